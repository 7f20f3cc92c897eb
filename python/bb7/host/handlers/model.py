"""Routes about the model and its provider: the models list (`models`), today's spend and the
key's credit (`usage`), and the reasoning effort of a chat (`set_reasoning_effort`); and
`provider`, the client's configuration from the `provider` settings, for the other model routes.

They need the provider client and its HTTP stack: the route table imports this module on
first use (see `bb7.host.handlers`) and warms it up after `ready`. Slow work (HTTP,
running a `cmd:` key source) happens in worker threads that answer with events.
"""

from __future__ import annotations

from typing import get_args

import msgspec

from bb7.host.needs import Call, Held
from bb7.host.protocol import (
    Models,
    ModelsArgs,
    NoArgs,
    Notify,
    Said,
    SetReasoningEffortArgs,
    convert,
)
from bb7.host.session import Session
from bb7.provider.client import OpenAICompatClient, ProviderConfig
from bb7.provider.failures import HttpProblem
from bb7.provider.keys import ApiKey, resolve_api_key
from bb7.provider.models import ModelList, default_cache_dir, load_models, tools_first
from bb7.provider.provider import provider_config
from bb7.provider.wire import ReasoningEffort
from bb7.refusal import Problem, unwrap
from bb7.state import chats
from bb7.stats import model_stats
from bb7.usage.log import day_spend, usage_log_path
from bb7.usage.report import read_credit, summary_line


def provider(session: Session) -> ProviderConfig:
    """The client configuration from the `provider` settings (Lua validated them)."""
    p = session.settings.provider
    config = provider_config(
        p.preset,
        p.base_url,
        timeout=p.timeout,
        idle_timeout=p.idle_timeout,
        retries=p.retries,
        api=p.api,
    )
    return unwrap(Problem("settings", config) if isinstance(config, str) else config)


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
