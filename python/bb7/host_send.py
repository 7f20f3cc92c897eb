"""Host handlers that talk to (or stand in for) the model: `:BB7Paste` and the models list.

They need the edit formats and the LLM client, whose imports cost about 100 ms; the host imports
this module on first use (see `bb7.host_handlers`) and warms it up in the background after
`ready`, so neither the cold start nor the first call pays for it. Slow work (HTTP, running a
`cmd:` key source) happens in worker threads that answer with events.
"""

from __future__ import annotations

import logging

import msgspec

from bb7.formats import DEFAULT_MODE, DiffMode
from bb7.host_registry import Context
from bb7.host_session import Session
from bb7.host_state import publish
from bb7.llm.keys import ApiKey, resolve_api_key
from bb7.llm.models import ModelList, default_cache_dir, load_models, tools_first
from bb7.llm.openai_compat import HttpProblem, OpenAICompatClient, ProviderConfig
from bb7.paste import paste_response
from bb7.protocol import Models, NoArgs, PasteArgs, Said
from bb7.state.records import Problem

logger = logging.getLogger(__name__)


def diff_mode(session: Session) -> DiffMode:
    """The configured diff_mode (Lua validated it; an unknown one falls back to the default)."""
    try:
        mode: DiffMode = msgspec.convert(session.settings.diff_mode, DiffMode)
    except msgspec.ValidationError:
        return DEFAULT_MODE
    return mode


def provider(session: Session) -> ProviderConfig:
    base_url = session.settings.provider.base_url
    return ProviderConfig() if base_url is None else ProviderConfig(base_url=base_url)


def paste(session: Session, ctx: Context, args: PasteArgs) -> Said | Problem:
    found = session.chat(create=True)
    if isinstance(found, Problem):
        return found
    store, chat = found
    pasted = paste_response(store, chat.id, args.text, diff_mode(session))
    if isinstance(pasted, Problem):
        return pasted
    recorded = pasted.recorded
    changed = [o.path for o in recorded.outputs]
    buffers = session.buffers(store, args.buffers)
    publish(ctx, session, store, chat.id, buffers, [*changed, *recorded.reverted, *pasted.added])
    if not changed:
        return Said("the pasted edits change nothing: every file already has that content")
    added = f" (added to the chat: {', '.join(pasted.added)})" if pasted.added else ""
    return Said(
        f"pasted: {len(changed)} pending change{'s' if len(changed) != 1 else ''} to review "
        f"({', '.join(changed)}){added}; :BB7Diff to merge, :BB7Apply to apply"
    )


def models(session: Session, ctx: Context, args: NoArgs) -> bool:
    """Start fetching the models list (cached for a day); the `models` event brings it."""
    found = session.active()
    chat_model = found[1].model if found is not None else ""
    current = chat_model or session.settings.provider.model or ""
    config = provider(session)
    key_spec = session.settings.provider.api_key
    root = session.root

    def fetch() -> None:
        key = resolve_api_key(key_spec, config.base_url, cwd=root)
        # The list is public on most providers: without a usable key, ask anyway.
        client = OpenAICompatClient(config, key if isinstance(key, ApiKey) else None)
        try:
            listed = load_models(client, default_cache_dir())
        finally:
            client.close()
        ctx.emit("models", _models_event(listed, current))

    ctx.spawn(fetch, name="models")
    return True


def _models_event(listed: ModelList | HttpProblem, current: str) -> Models:
    if isinstance(listed, HttpProblem):
        return Models(current=current, error=f"could not list the models: {listed.message}")
    return Models(models=tools_first(listed.models), current=current, warning=listed.warning)
