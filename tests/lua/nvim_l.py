"""Lua run without a host or a screen: `nvim --clean -l`, the plugin on its runtimepath."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from neovims import NVIMS

ROOT = Path(__file__).resolve().parents[2]


def nvim_l(version: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`nvim --clean -l ARGS` of `version`, its XDG dirs (the log's) in `home`."""
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(home / var.lower())
    env.pop("BB7_LOG_LEVEL", None)
    return subprocess.run(
        [str(NVIMS[version]), "--clean", "-l", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def lua(version: str, home: Path, code: str, *args: Any) -> Any:
    """What the Lua chunk `code` returns, given `...` = `args` (both through JSON), with the
    plugin on the runtimepath: for a test that holds Lua beside Python."""
    script = home / "chunk.lua"
    script.write_text(
        f"vim.opt.runtimepath:prepend({str(ROOT)!r})\n"
        "local args = vim.json.decode(_G.arg[1])\n"
        f"local chunk = assert(loadstring({code!r}))\n"
        "io.write(vim.json.encode({ value = chunk(unpack(args)) }))\n"
    )
    result = nvim_l(version, home, str(script), json.dumps(list(args)))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["value"]
