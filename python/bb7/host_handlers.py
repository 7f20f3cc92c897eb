"""Every method the host answers, in one table: Lua command -> host request -> core.

One line per method. Handlers take the host's `Session` first (`bb7.host_session`); `_bind`
adapts them to the registry's `fn(ctx, args)`. (A method Lua sends before its backend exists
is registered with `registry.planned_request`, which answers "not available yet".)
Handlers in `bb7.host_send` import the LLM client and the edit formats (~100 ms), so they are
imported on first use and warmed up in a background thread a moment after the host is ready:
neither the cold start nor the first requests (`:BB7Chat`) wait for them.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

from bb7 import __version__, host_chat, host_review, host_state
from bb7.host_registry import Context, Registry
from bb7.host_session import Session
from bb7.protocol import (
    AddArgs,
    ApplyArgs,
    BuffersArgs,
    CancelArgs,
    EchoEventsArgs,
    InitArgs,
    NewChatArgs,
    NoArgs,
    OpenArgs,
    PasteArgs,
    PathArgs,
    PingArgs,
    Pong,
    SendArgs,
    SetModelArgs,
    StatusesArgs,
)

A = TypeVar("A")
Handler = Callable[[Session, Context, A], object]

# Imported in the background after `ready` (see the module docstring).
WARM_UP = ("bb7.host_send",)
# Seconds after `ready` before the warm-up starts: an import holds the GIL in bursts, which
# slowed the first requests (open, the chat view) by ~25 ms.
WARM_UP_DELAY = 1.0


def ping(ctx: Context, args: PingArgs) -> Pong:
    """Round trip for `:checkhealth bb7` and tests."""
    return Pong(payload=args.payload, version=__version__, pid=os.getpid())


def echo_events(ctx: Context, args: EchoEventsArgs) -> int:
    """Emit the events from a worker thread, as streaming will (tests, benchmarks)."""

    def run() -> None:
        for name, payload in args.events:
            ctx.emit(name, payload)
            if args.interval_ms:
                time.sleep(args.interval_ms / 1000)

    ctx.spawn(run, name="echo_events")
    return len(args.events)


def _bind(session: Session, fn: Handler[A]) -> Callable[[Context, A], object]:
    return lambda ctx, args: fn(session, ctx, args)


def _lazy(session: Session, module: str, name: str) -> Callable[[Context, Any], object]:
    """A handler of `module`, imported when first called."""

    def handler(ctx: Context, args: Any) -> object:
        fn: Handler[Any] = getattr(importlib.import_module(module), name)
        return fn(session, ctx, args)

    return handler


def _import(module: str) -> None:
    time.sleep(WARM_UP_DELAY)
    importlib.import_module(module)


def _start(session: Session) -> Callable[[Context], None]:
    def start(ctx: Context) -> None:
        session.on_lease_lost = host_state.lease_lost(ctx)
        for module in WARM_UP:
            ctx.spawn(_import, module, name=f"import {module}")

    return start


def build_registry() -> Registry:
    registry = Registry()
    session = Session()
    registry.at_start(_start(session))
    registry.at_close(session.close)
    registry.request("ping", PingArgs, ping)
    registry.request("echo_events", EchoEventsArgs, echo_events)
    registry.request("open", OpenArgs, _bind(session, host_state.open_project))
    registry.request("init", InitArgs, _bind(session, host_state.init))
    registry.request("statuses", StatusesArgs, _bind(session, host_state.statuses))
    registry.request("active_chat", NoArgs, _bind(session, host_state.active_chat))
    registry.request("new_chat", NewChatArgs, _bind(session, host_state.new_chat))
    registry.request("set_model", SetModelArgs, _bind(session, host_state.set_model))
    registry.request("add", AddArgs, _bind(session, host_state.add))
    registry.request("remove", PathArgs, _bind(session, host_state.remove))
    registry.request("apply", ApplyArgs, _bind(session, host_state.apply))
    registry.request("apply_all", BuffersArgs, _bind(session, host_state.apply_all))
    registry.request("discard", PathArgs, _bind(session, host_state.discard))
    registry.request("undo_apply", PathArgs, _bind(session, host_state.undo_apply))
    registry.request("diff", PathArgs, _bind(session, host_state.diff))
    registry.request("finish_merge", PathArgs, _bind(session, host_state.finish_merge))
    registry.request("paste", PasteArgs, _lazy(session, "bb7.host_send", "paste"))
    registry.request("models", NoArgs, _lazy(session, "bb7.host_send", "models"))
    registry.notification("send", SendArgs, _lazy(session, "bb7.host_send", "send"))
    registry.notification("cancel", CancelArgs, _lazy(session, "bb7.host_send", "cancel"))
    host_chat.register(registry, session)
    host_review.register(registry, session)
    return registry
