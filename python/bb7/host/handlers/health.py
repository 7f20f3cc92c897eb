"""Round trips that touch no project: `ping` (`:checkhealth bb7`, tests) and `echo_events`
(events from a worker thread, as a send streams them; tests and benchmarks)."""

from __future__ import annotations

import os
import platform
import time

from bb7 import __version__
from bb7.host.needs import Call
from bb7.host.protocol import EchoEventsArgs, PingArgs, Pong


def ping(c: Call, args: PingArgs) -> Pong:
    return Pong(
        payload=args.payload,
        version=__version__,
        pid=os.getpid(),
        python_version=platform.python_version(),
    )


def echo_events(c: Call, args: EchoEventsArgs) -> int:
    def run() -> None:
        for name, payload in args.events:
            c.emit(name, payload)
            if args.interval_ms:
                time.sleep(args.interval_ms / 1000)

    c.ctx.spawn(run, name="echo_events")
    return len(args.events)
