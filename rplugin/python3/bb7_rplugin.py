"""bb7 as a classic remote plugin (`:UpdateRemotePlugins`): the host handlers behind two functions.

`BB7Rpc(method, args)` is a request and `BB7Notify(method, args)` a notification, dispatched to the
same registry as `python -m bb7.host`; events reach Lua the same way (`exec_lua`). Lua uses them
when `transport = 'rplugin'`. Not named `bb7.py`: the rplugin host imports a file by its bare name,
which would clash with the `bb7` package.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# bb7's code always comes from this checkout, as for the job host (PYTHONPATH there).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import pynvim

from bb7.host import Host
from bb7.host_handlers import build_registry


@pynvim.plugin
class BB7RemotePlugin:
    def __init__(self, nvim: Any) -> None:
        self.host = Host(nvim, build_registry())

    @pynvim.function("BB7Rpc", sync=True)
    def rpc(self, args: list[Any]) -> Any:
        return self.host.on_request(args[0], args[1:])

    @pynvim.function("BB7Notify")
    def notify(self, args: list[Any]) -> None:
        self.host.on_notification(args[0], args[1:])
