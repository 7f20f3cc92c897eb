"""`python -m bb7.host`: the msgpack-RPC host that `lua/bb7/backend.lua` starts over stdio.

The front door: set up logging, attach to Neovim, serve the route table (`bb7.host.handlers`)
through `bb7.host.rpc.Host` until the channel closes. stdout is the RPC channel, so nothing here
may print: diagnostics go to the log file Lua passes in `BB7_LOG_FILE` (level `BB7_LOG_LEVEL`:
off, error, warn, info or debug).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Mapping

from bb7.host.handlers import build_registry
from bb7.host.rpc import Host

# Named, not __name__: run with -m this module is __main__, outside the "bb7" logger tree.
logger = logging.getLogger("bb7.host")

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
