"""Every method the host answers, in one table: Lua command -> host request -> core.

To wire a backend, add one line in `build_registry`, e.g.
`registry.request("apply", ApplyArgs, state_handlers.apply)`; it replaces the `planned`
placeholder of the same name, which until then answers "not available yet".
"""

from __future__ import annotations

import os
import time

from bb7 import __version__, host_chat
from bb7.host_registry import Context, Registry
from bb7.protocol import (
    AddArgs,
    ApplyArgs,
    CancelArgs,
    EchoEventsArgs,
    InitArgs,
    NoArgs,
    PasteArgs,
    PathArgs,
    PingArgs,
    Pong,
    SendArgs,
    SetModelArgs,
    StatusesArgs,
)

# Requests the Lua commands already send; their backends (state, LLM layers) come later.
PLANNED_REQUESTS: dict[str, type[object]] = {
    "init": InitArgs,
    "add": AddArgs,
    "remove": PathArgs,
    "apply": ApplyArgs,
    "apply_all": NoArgs,
    "discard": PathArgs,
    "diff": PathArgs,
    "undo_apply": PathArgs,
    "models": NoArgs,
    "set_model": SetModelArgs,
    "paste": PasteArgs,
    "statuses": StatusesArgs,
}
PLANNED_NOTIFICATIONS: dict[str, type[object]] = {"send": SendArgs, "cancel": CancelArgs}


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


def build_registry() -> Registry:
    registry = Registry()
    for name, args_type in PLANNED_REQUESTS.items():
        registry.planned_request(name, args_type)
    for name, args_type in PLANNED_NOTIFICATIONS.items():
        registry.planned_notification(name, args_type)
    registry.request("ping", PingArgs, ping)
    registry.request("echo_events", EchoEventsArgs, echo_events)
    host_chat.register(registry)
    return registry
