"""`:BB7Install` on a plugin checkout without `.venv`: a real venv under stdpath('data') that the
host then runs from, and a stamp that asks for a re-install when the dependencies change."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from editor import ROOT, start_host, type_command, wait_for_message

PLUGIN_FILES = ("lua", "plugin", "python", "pyproject.toml", "README.md", "tests/nvim")


def copy_plugin(target: Path) -> Path:
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "test_*.py")
    for name in PLUGIN_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=skip)
        else:
            shutil.copy2(source, target / name)
    return target


def test_install_makes_the_venv_the_host_runs_from(launch: Any, tmp_path: Path) -> None:
    plugin = copy_plugin(tmp_path / "plugin")
    nvim = launch(root=plugin)
    nvim.exec_lua("require('bb7').setup()")
    type_command(nvim, "BB7Init")
    wait_for_message(nvim, "bb7: no Python environment for bb7 yet; run :BB7Install")

    type_command(nvim, "BB7Install")
    wait_for_message(nvim, "bb7: installed into", timeout_ms=240_000)
    venv = tmp_path / "home" / "xdg_data_home" / "nvim" / "bb7" / "venv"
    assert start_host(nvim)["python"] == str(venv / "bin" / "python")

    with (plugin / "pyproject.toml").open("a") as pyproject:
        pyproject.write("# a new dependency would change this file\n")
    nvim.exec_lua("require('bb7.backend').stop()")
    type_command(nvim, "BB7Init")
    text = wait_for_message(nvim, "is out of date")
    assert f"bb7: the Python environment in {venv} is out of date" in text
    assert "run :BB7Install" in text
