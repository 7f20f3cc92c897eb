"""bb7 as a classic remote plugin (`:UpdateRemotePlugins`, `transport = 'rplugin'`): the same
handler table as `python -m bb7.host`, behind two functions.

`BB7Rpc(method, args)` is a request and `BB7Notify(method, args)` a notification; events reach
Lua the same way (`exec_lua`). `rplugin/python3/bb7.py` (or the installed package, see
`bb7.__getattr__`) exposes the class to pynvim's host.
"""

from __future__ import annotations

import atexit
from typing import Any

import pynvim

from bb7.host.handlers import build_registry
from bb7.host.rpc import Host


@pynvim.plugin
class BB7RemotePlugin:
    def __init__(self, nvim: Any) -> None:
        self.host = Host(nvim, build_registry())
        # The shared host never announces `ready`: start at once, close when it exits.
        self.host.registry.start(self.host.ctx)
        atexit.register(self.host.registry.close)

    @pynvim.function("BB7Rpc", sync=True)  # type: ignore[untyped-decorator]
    def rpc(self, args: list[Any]) -> Any:
        return self.host.on_request(args[0], args[1:])

    @pynvim.function("BB7Notify")  # type: ignore[untyped-decorator]
    def notify(self, args: list[Any]) -> None:
        self.host.on_notification(args[0], args[1:])
