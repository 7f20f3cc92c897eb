"""Routes that talk to (or stand in for) the model: `send`/`cancel` (the send loop of
`bb7.chat.send`), `:BB7Paste` and the models list.

A send's events (from its worker threads) go to Lua as they come: `request_started`, then
`chunk`, `reasoning`, `tool_progress`, `block`, `warning`, `retrying`, `repairing` as
`Streamed`, then `diff_error` when its file changes failed, then one `done` (`SendDone`, also
for failures and cancel), maybe a `title`. Lua refreshes the statuses on `done` with its
current buffers.

They need the edit formats and the LLM client, whose imports cost about 100 ms; the route
table imports this module on first use (see `bb7.host.handlers`) and warms it up in the
background after `ready`, so neither the cold start nor the first call pays for it. Slow work
(HTTP, running a `cmd:` key source) happens in worker threads that answer with events.
"""

from __future__ import annotations

from typing import cast, get_args

import msgspec

from bb7.chat import events as ev
from bb7.chat.paste import paste_response
from bb7.chat.send import start_send
from bb7.chat.title import retitle_chat as ask_title
from bb7.formats import DEFAULT_MODE, DiffMode
from bb7.host.handlers.project import publish
from bb7.host.needs import Call, Held, Project, Reading
from bb7.host.protocol import (
    CancelArgs,
    ChatIdArgs,
    DiffError,
    Estimate,
    MessageArgs,
    Models,
    ModelsArgs,
    NoArgs,
    Notify,
    PasteArgs,
    PromptArgs,
    PromptParts,
    Said,
    SendArgs,
    SendDone,
    SetReasoningEffortArgs,
    convert,
)
from bb7.host.session import Session
from bb7.prompt.assemble import FollowEdits
from bb7.prompt.config import SendConfig
from bb7.prompt.estimate import estimate_next
from bb7.prompt.instructions import Instructions, load_instructions
from bb7.prompt.parts import next_request, toggle_exclusion
from bb7.provider.client import OpenAICompatClient, ProviderConfig
from bb7.provider.failures import HttpProblem
from bb7.provider.keys import ApiKey, KeyProblem, resolve_api_key
from bb7.provider.models import (
    ModelInfo,
    ModelList,
    cached_models,
    default_cache_dir,
    load_models,
    tools_first,
)
from bb7.provider.provider import provider_config
from bb7.provider.wire import ReasoningEffort
from bb7.refusal import Abort, unwrap
from bb7.state import chats
from bb7.state.records import GLOBAL, Chat, Problem
from bb7.stats import model_stats
from bb7.usage.log import day_spend, usage_log_path
from bb7.usage.report import read_credit, summary_line


def diff_mode(session: Session) -> DiffMode:
    """The configured diff_mode (Lua validated it; an unknown one falls back to the default)."""
    try:
        mode: DiffMode = msgspec.convert(session.settings.diff_mode, DiffMode)
    except msgspec.ValidationError:
        return DEFAULT_MODE
    return mode


def provider(session: Session) -> ProviderConfig:
    """The client configuration from the `provider` settings (Lua validated them)."""
    p = session.settings.provider
    config = provider_config(
        p.preset, p.base_url, timeout=p.timeout, idle_timeout=p.idle_timeout, retries=p.retries
    )
    return unwrap(Problem("settings", config) if isinstance(config, str) else config)


def send(c: Call, args: SendArgs) -> None:
    """Start a send in the active chat (a new one if none); the answer comes as events."""
    try:
        h = c.project().held(create=True)
        config = _config(h.session, h.chat, args.model)
        buffers = h.buffers(args.buffers).text
        handle = unwrap(
            start_send(
                h.store,
                h.chat.id,
                args.text,
                config,
                _Forward(h, args.request_id),
                buffers=buffers,
            )
        )
    except Abort as refused:
        # A send that could not start still ends with `done`, so nothing waits for it forever.
        problem = refused.problem
        c.emit(
            "done", SendDone(args.request_id, ok=False, kind=problem.kind, message=problem.message)
        )
        raise
    c.session.sends[args.request_id] = handle
    if config.follow_edits != "off":
        # The context followed the user's edits: their `~` goes at once, not at the answer.
        publish(h, buffers)


def _config(session: Session, chat: Chat, model: str | None) -> SendConfig:
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
        follow_edits=follow_edits(session),
        usage_log=str(usage_log_path()),
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


class _Forward:
    """The send loop's `on_event`: each event to Lua (from the send's worker threads)."""

    def __init__(self, r: Reading, request_id: str) -> None:
        self.r = r
        self.request_id = request_id

    def __call__(self, event: ev.SendEvent) -> None:
        rid, ctx = self.request_id, self.r.ctx
        if isinstance(event, ev.Started):
            ctx.emit("request_started", convert.request_started(rid, event))
        elif isinstance(event, ev.Done | ev.Failed):
            ctx.post(self._forget)
            if isinstance(event, ev.Done) and not event.ok:
                errors = convert.apply_errors(event.errors)
                ctx.emit("diff_error", DiffError(rid, errors, event.retry_saved))
            ctx.emit("done", convert.send_done(rid, event, self.r.editor_path))
        else:
            ctx.emit(*convert.streamed(rid, event))

    def _forget(self) -> None:
        self.r.session.sends.pop(self.request_id, None)


def cancel(c: Call, args: CancelArgs) -> None:
    """Stop a streaming send (the given one, else every running one)."""
    sends = c.session.sends
    if args.request_id is not None:
        handles = [sends[args.request_id]] if args.request_id in sends else []
    else:
        handles = list(sends.values())
    if not handles:
        c.emit("notify", Notify("info", "nothing to cancel"))
    for handle in handles:
        handle.cancel()


def paste(h: Held, args: PasteArgs) -> Said:
    buffers = h.buffers(args.buffers).text
    pasted = unwrap(paste_response(h.store, h.chat.id, args.text, diff_mode(h.session), buffers))
    recorded = pasted.recorded
    changed = [o.path for o in recorded.outputs]
    publish(h, buffers, [*changed, *recorded.reverted, *pasted.added])
    if not changed:
        return Said("the pasted edits change nothing: every file already has that content")
    added = f"; added to the chat: {', '.join(pasted.added)}" if pasted.added else ""
    # One short line: a longer message makes Neovim wait for Enter.
    return Said(f"pasted, to review: {', '.join(changed)} (:BB7Review, :BB7Merge){added}")


def set_reasoning_effort(h: Held, args: SetReasoningEffortArgs) -> Said:
    """The active chat's reasoning effort, sent from its next message on, and the session's
    default for chats without their own."""
    efforts = get_args(ReasoningEffort)
    if args.effort and args.effort not in efforts:
        unwrap(Problem("bad_effort", f"reasoning effort should be one of {', '.join(efforts)}"))
    s = h.session
    chosen = msgspec.structs.replace(s.settings.provider, reasoning_effort=args.effort or None)
    s.settings = msgspec.structs.replace(s.settings, provider=chosen)
    unwrap(
        chats.save_settings(h.store, h.chat.id, model=h.chat.model, reasoning_effort=args.effort)
    )
    return Said(f"reasoning effort of {h.chat.name}: {args.effort or 'the model default'}")


def models(c: Call, args: ModelsArgs) -> bool:
    """Start fetching the models list (cached for a day; `refresh`: fetched again); the
    `models` event brings it."""
    r = c.active()
    current = c.session.model(None if r is None else r.chat)
    config = provider(c.session)
    key_spec = c.session.settings.provider.api_key
    root = c.session.root
    edits = _edit_lines(c)

    def fetch() -> None:
        key = resolve_api_key(key_spec, config.base_url, cwd=root, preset=config.preset)
        # The list is public on most providers: without a usable key, ask anyway.
        client = OpenAICompatClient(config, key if isinstance(key, ApiKey) else None)
        try:
            listed = load_models(client, default_cache_dir(), refresh=args.refresh)
        finally:
            client.close()
        c.emit("models", _models_event(listed, current, edits))

    c.ctx.spawn(fetch, name="models")
    return True


# Once a title came (or not): the chat list and the view show the chat's name again.
RETITLED = "require('bb7.chat.chats').retitled()"


def retitle_chat(p: Project, args: ChatIdArgs) -> Said:
    """Start naming a chat again after its first message (the `titles.model` option, else
    the chat's model); the outcome comes as a `notify` event and the chat list is redrawn."""
    store, chat = p.find(args.chat_id)
    model = p.session.settings.titles.model or p.session.model(chat, None)
    config = provider(p.session)
    key_spec = p.session.settings.provider.api_key
    root = p.session.root

    def ask() -> None:
        key = resolve_api_key(key_spec, config.base_url, cwd=root, preset=config.preset)
        if isinstance(key, KeyProblem):
            named: str | Problem = Problem("no_title", key.message)
        else:
            client = OpenAICompatClient(config, key)
            try:
                named = ask_title(store, chat.id, model, client)
            finally:
                client.close()
        if isinstance(named, Problem):
            note = Notify("warn", f"{chat.name}: {named.message}")
        else:
            note = Notify("info", f"chat title: {named}")

        def shown() -> None:
            p.ctx.emit("notify", note)
            p.ctx.lua(RETITLED)

        p.ctx.post(shown)

    p.ctx.spawn(ask, name="title")
    return Said(f"asking {model} for a title")


def _next_request(r: Reading) -> tuple[SendConfig, ModelInfo | None, Instructions]:
    """What the chat's next request is built with, without asking the provider anything (the
    models list as cached)."""
    config = _config(r.session, r.chat, None)
    listed = cached_models(default_cache_dir(), config.provider.base_url)
    model = None if listed is None else listed.find(config.model)
    root = r.store.root if r.store.scope != GLOBAL else None
    return config, model, load_instructions(root, None, config.instruction_files)


def estimate(r: Reading, args: NoArgs) -> Estimate:
    """The next request's size and input price, for the input bar: from the models list as
    cached (no request to the provider) and the chat as stored."""
    found = estimate_next(r.store, r.chat.id, *_next_request(r))
    return Estimate(found.tokens, found.cached, found.cost, found.text)


def prompt_parts(r: Reading, args: PromptArgs) -> PromptParts:
    """Every part of the next request with `args.text` as the message (`:BB7Prompt`)."""
    found = next_request(r.store, r.chat.id, *_next_request(r), text=args.text)
    shown = msgspec.convert(found, PromptParts, from_attributes=True)
    # A file's part names it as the editor does, so that dropping it names the same file.
    parts = [
        msgspec.structs.replace(part, path=r.editor_path(part.path)) if part.path else part
        for part in shown.parts
    ]
    return msgspec.structs.replace(shown, parts=parts)


def exclude_message(h: Held, args: MessageArgs) -> Said:
    """Exclude a message of the active chat from future requests (with its answer, for a user
    message), or include it again; says what the next request saves or gains."""
    config = _next_request(h)
    return Said(unwrap(toggle_exclusion(h.store, h.chat.id, args.message_id, *config)))


def usage(c: Call, args: NoArgs) -> bool:
    """Start reading today's spend (the usage log) and the OpenRouter key's credit; one line
    comes as a `notify` event. Only on demand: nothing polls it."""
    r = c.active()
    chat = None
    if r is not None:
        chat = sum(m.usage.cost for m in r.store.messages(r.chat.id) if m.usage is not None)
    config = provider(c.session)
    key_spec = c.session.settings.provider.api_key
    root = c.session.root

    def read() -> None:
        spend = day_spend(usage_log_path())
        credit = read_credit(config, key_spec, cwd=root)
        c.emit("notify", Notify("info", summary_line(spend, credit, chat)))

    c.ctx.spawn(read, name="usage")
    return True


def _models_event(listed: ModelList | HttpProblem, current: str, edits: dict[str, str]) -> Models:
    if isinstance(listed, HttpProblem):
        return Models(current=current, error=f"could not list the models: {listed.message}")
    models = [
        msgspec.structs.replace(m, edits=edits.get(m.id, ""))
        for m in convert.models(tools_first(listed.models))
    ]
    return Models(models=models, current=current, warning=listed.warning)


def _edit_lines(c: Call) -> dict[str, str]:
    """Model id -> how its answers with edits landed in this project's chats (`bb7.stats`),
    read here, on the loop thread that owns the store (a few ms for hundreds of messages)."""
    ws = c.session.project()
    store = None if isinstance(ws, Problem) else ws.project
    if store is None:
        return {}
    stats = model_stats(store.messages(chat.id) for chat in store.chats())
    return {s.model: s.short() for s in stats if s.answers}
