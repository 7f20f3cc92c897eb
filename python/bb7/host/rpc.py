"""The host between pynvim and the route table: calls in, replies and events out.

Only glue: a call goes to the registry (`bb7.host.registry`, filled from `bb7.host.handlers`),
its reply back to Neovim; events go to Lua in batches through `exec_lua(..., async_=True)`.
Used by both front doors: `python -m bb7.host` (`bb7.host.__main__`) and the classic remote
plugin (`bb7.host.rplugin`).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from bb7 import __version__
from bb7.host.events import Batch, EventSink
from bb7.host.protocol import PROTOCOL, Notify, Ready
from bb7.host.registry import Context, Registry, handle_notification, handle_request

logger = logging.getLogger(__name__)

# Every batch of events enters Lua here (see lua/bb7/events.lua).
DISPATCH = "return require('bb7.events').dispatch(...)"


class Host:
    """Connects a pynvim session to a handler registry and an event sink."""

    def __init__(self, nvim: Any, registry: Registry) -> None:
        self.nvim = nvim
        self.registry = registry
        self.sink = EventSink(self._deliver, nvim.loop.call_later)
        self.ctx = Context(self.sink, nvim.async_call, self._lua)

    def _lua(self, code: str, *args: Any) -> Any:
        return self.nvim.exec_lua(code, *args)

    def _deliver(self, batch: Batch) -> None:
        logger.debug("flush %d events", len(batch))
        self.nvim.exec_lua(DISPATCH, batch, async_=True)

    def on_request(self, name: str, args: list[Any]) -> Any:
        logger.debug("request %s", name)
        return handle_request(self.registry, self.ctx, name, args)

    def on_notification(self, name: str, args: list[Any]) -> None:
        logger.debug("notification %s", name)
        handle_notification(self.registry, self.ctx, name, args)

    def announce(self) -> None:
        """Tell Lua the host is up; it flushes its queued calls on this event."""
        ready = Ready(__version__, PROTOCOL, os.getpid(), self.nvim.channel_id, sys.executable)
        logger.info("ready: bb7 %s, protocol %d", __version__, PROTOCOL)
        self.ctx.emit("ready", ready)
        self.registry.start(self.ctx)

    def on_loop_error(self, message: str) -> None:
        """pynvim reports errors of async callbacks here; log them and tell the user."""
        logger.error("%s", message)
        first = message.strip().splitlines()[0] if message.strip() else "unknown error"
        self.ctx.emit("notify", Notify("error", f"host error: {first} (details in :BB7Log)"))
