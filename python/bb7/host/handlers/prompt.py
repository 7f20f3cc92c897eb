"""Routes about the chat's next request, built as a send builds it but not sent: its size and
price for the input bar (`estimate`), its parts for `:BB7Prompt` (`prompt_parts`), and leaving a
message out of it (`exclude_message`); and `send_config`, a send's settings from the session's,
which the send routes use too.

They need prompt assembly and the edit formats: the route table imports this module on first
use (see `bb7.host.handlers`) and warms it up after `ready`. Nothing here asks the provider:
the models list is read as cached.
"""

from __future__ import annotations

from typing import cast, get_args

import msgspec

from bb7.formats import DEFAULT_MODE, DiffMode
from bb7.host.handlers.context import live_texts
from bb7.host.handlers.model import provider
from bb7.host.needs import Held, Reading
from bb7.host.protocol import Estimate, MessageArgs, NoArgs, PromptArgs, PromptParts, Said
from bb7.host.session import Session
from bb7.live import EditorState
from bb7.prompt.assemble import FollowEdits, check_context
from bb7.prompt.config import SendConfig
from bb7.prompt.estimate import estimate_next
from bb7.prompt.instructions import Instructions, load_instructions
from bb7.prompt.parts import next_request, toggle_exclusion
from bb7.provider.models import ModelInfo, cached_models, default_cache_dir, list_key
from bb7.provider.provider import privacy_preferences
from bb7.provider.wire import ReasoningEffort
from bb7.refusal import Abort, unwrap
from bb7.state import context
from bb7.state.records import GLOBAL, Chat
from bb7.usage.log import usage_log_path


def diff_mode(session: Session) -> DiffMode:
    """The configured diff_mode (Lua validated it; an unknown one falls back to the default)."""
    try:
        mode: DiffMode = msgspec.convert(session.settings.diff_mode, DiffMode)
    except msgspec.ValidationError:
        return DEFAULT_MODE
    return mode


def send_config(session: Session, chat: Chat, model: str | None) -> SendConfig:
    """The settings of a send in `chat`, from the session's: `model`, else the chat's."""
    settings = session.settings
    # Read at every send: `set_reasoning_effort` changes it between two messages.
    chosen = chat.reasoning_effort or settings.provider.reasoning_effort
    effort = cast("ReasoningEffort | None", chosen or None)
    return SendConfig(
        model=session.model(chat, model),
        provider=provider(session),
        api_key=settings.provider.api_key,
        diff_mode=diff_mode(session),
        reasoning_effort=effort if effort in get_args(ReasoningEffort) else None,
        models_cache=str(default_cache_dir()),
        title_model=_title_model(session, chat, model),
        cache=settings.provider.cache,
        provider_preferences=privacy_preferences(
            settings.provider.privacy.data_collection, settings.provider.privacy.zdr
        ),
        follow_edits=follow_edits(session),
        usage_log=str(usage_log_path()),
        prompt_log=settings.prompt_log or None,
        instruction_files=tuple(settings.context.instruction_files),
    )


def follow_edits(session: Session) -> FollowEdits:
    """The `context.follow_edits` option (Lua validated it; anything else means the default)."""
    chosen = session.settings.context.follow_edits
    return cast(FollowEdits, chosen) if chosen in get_args(FollowEdits) else "diff"


def _title_model(session: Session, chat: Chat, model: str | None) -> str | None:
    """Who names the chat after its first exchange: the `titles.model` option, else the
    chat's own model; None when titles are off."""
    titles = session.settings.titles
    return (titles.model or session.model(chat, model)) if titles.enabled else None


def next_request_config(r: Reading) -> tuple[SendConfig, ModelInfo | None, Instructions]:
    """What the chat's next request is built with, without asking the provider anything (the
    models list as cached)."""
    config = send_config(r.session, r.chat, None)
    listed = cached_models(default_cache_dir(), list_key(config.provider))
    model = None if listed is None else listed.find(config.model)
    root = r.store.root if r.store.scope != GLOBAL else None
    return config, model, load_instructions(root, None, config.instruction_files)


def estimate(r: Reading, args: NoArgs) -> Estimate:
    """The next request's size and input price, for the input bar: from the models list as
    cached (no request to the provider) and the chat as stored."""
    config, model, instructions = next_request_config(r)
    found = estimate_next(r.store, r.chat.id, config, model, instructions)
    near = False
    if model is not None:
        check = check_context(found.tokens, model.context_length, model.max_completion_tokens)
        near = check.level == "near"
    return Estimate(found.tokens, found.cached, found.cost, found.text, near)


def prompt_parts(r: Reading, args: PromptArgs) -> PromptParts:
    """Every part of the next request with `args.text` as the message (`:BB7Prompt`), its
    live parts read again from `args.editor` as the send will read them (while another bb7
    holds the chat: as they were last read)."""
    if args.editor is not None:
        _read_live(r, args.editor)
    found = next_request(r.store, r.chat.id, *next_request_config(r), text=args.text)
    shown = msgspec.convert(found, PromptParts, from_attributes=True)
    # A file's part names it as the editor does, so that dropping it names the same file.
    parts = [
        msgspec.structs.replace(part, path=r.editor_path(part.path)) if part.path else part
        for part in shown.parts
    ]
    return msgspec.structs.replace(shown, parts=parts)


def _read_live(r: Reading, editor: EditorState) -> None:
    try:
        h = r.held()
    except Abort:
        return
    texts, _ = live_texts(h, editor)
    if texts:
        context.follow_parts(h.store, h.chat.id, texts)


def exclude_message(h: Held, args: MessageArgs) -> Said:
    """Exclude a message of the active chat from future requests (with its answer, for a user
    message), or include it again; says what the next request saves or gains."""
    config = next_request_config(h)
    return Said(unwrap(toggle_exclusion(h.store, h.chat.id, args.message_id, *config)))
