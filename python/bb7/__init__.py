"""bb7: LLM-assisted, non-agentic coding for Neovim; file changes land in a reviewable sandbox."""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing would slow every `bb7` command down
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # pynvim's remote-plugin host imports rplugin/python3/bb7.py as the module `bb7`; when bb7
    # is installed in that interpreter, this package is found instead, and offers the same
    # plugin class. Loaded on request only: importing bb7 must not import pynvim.
    if name == "BB7RemotePlugin":
        from bb7.host.rplugin import BB7RemotePlugin

        return BB7RemotePlugin
    raise AttributeError(f"module 'bb7' has no attribute {name!r}")


def __dir__() -> list[str]:
    return [*globals(), "BB7RemotePlugin"]
