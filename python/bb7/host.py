"""`python -m bb7.host`: the msgpack-RPC host that `lua/bb7/backend.lua` starts over stdio.

Only glue: decode a call, run the handler from `bb7.host_handlers`, encode the reply; events go
to Lua in batches through `exec_lua(..., async_=True)`. stdout is the RPC channel, so nothing here
may print: diagnostics go to the log file Lua passes in `BB7_LOG_FILE` (level `BB7_LOG_LEVEL`:
off, error, warn, info or debug).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Mapping
from typing import Any

from bb7 import __version__
from bb7.host_events import Batch, EventSink
from bb7.host_handlers import build_registry
from bb7.host_registry import Context, Registry, handle_notification, handle_request
from bb7.protocol import PROTOCOL, Notify, Ready

# Named, not __name__: run with -m this module is __main__, outside the "bb7" logger tree.
logger = logging.getLogger("bb7.host")

# Every batch of events enters Lua here (see lua/bb7/events.lua).
DISPATCH = "return require('bb7.events').dispatch(...)"

LOG_LEVELS = {
    "error": logging.ERROR,
    "warn": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
}


def configure_logging(env: Mapping[str, str]) -> None:
    """Log the `bb7` loggers to `BB7_LOG_FILE` when a level other than `off` is set."""
    root = logging.getLogger("bb7")
    root.propagate = False
    level = LOG_LEVELS.get(env.get("BB7_LOG_LEVEL", "off").lower())
    path = env.get("BB7_LOG_FILE")
    if level is None or not path:
        root.addHandler(logging.NullHandler())
        return
    try:
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:  # an unwritable log must not stop the host (stderr reaches Lua)
        sys.stderr.write(f"bb7 host: cannot open the log file {path}\n")
        root.addHandler(logging.NullHandler())
        return
    handler.setFormatter(
        logging.Formatter(f"%(asctime)s [host {os.getpid()}] %(levelname)s %(name)s: %(message)s")
    )
    root.addHandler(handler)
    root.setLevel(level)


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


def main() -> int:
    configure_logging(os.environ)
    import pynvim  # after logging is set up: its import is most of the start-up time

    nvim = pynvim.attach("stdio")
    host = Host(nvim, build_registry())
    # Neovim's jobstop may send SIGTERM: end the loop instead of dying, so that `finally`
    # still gives the chat's lease up.
    signal.signal(signal.SIGTERM, lambda *_: nvim.stop_loop())
    try:
        nvim.run_loop(
            host.on_request, host.on_notification, host.announce, err_cb=host.on_loop_error
        )
    finally:
        host.registry.close()  # gives up the chat's lease, closes the databases
    logger.info("channel closed, exiting")
    return 0


if __name__ == "__main__":
    sys.exit(main())
