"""The host's real route table (`build_registry`), called as Lua calls it, without Neovim."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bb7.host.events import EventSink
from bb7.host.handlers import build_registry
from bb7.host.registry import Context, handle_request


class Host:
    """The host's real handler table (`build_registry`), called as Lua calls it, after the
    `open` every host gets first. Events (statuses) are kept in `events`."""

    def __init__(self, root: Path) -> None:
        self.registry = build_registry()
        self.events: list[list[Any]] = []
        sink = EventSink(self.events.extend, lambda delay, fn: fn())
        self.ctx = Context(sink, lambda fn, *args: fn(*args))
        self.call("open", root=str(root))

    def call(self, method: str, **args: Any) -> Any:
        reply = handle_request(self.registry, self.ctx, method, [args])
        assert reply["ok"], reply["error"]
        return reply["value"]

    def refused(self, method: str, **args: Any) -> dict[str, str]:
        reply = handle_request(self.registry, self.ctx, method, [args])
        assert not reply["ok"], reply
        error: dict[str, str] = reply["error"]
        return error

    def close(self) -> None:
        self.registry.close()  # gives the chat's lease up, closes the databases
