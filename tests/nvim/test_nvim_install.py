"""`:BB7Install` on a plugin checkout without `.venv`: a real venv under stdpath('data') that the
host then runs from, made with uv from $PATH or with uv bootstrapped into the venv by pip, one
message per step, and a stamp that asks for a re-install when the dependencies change."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from editor import (
    NVIMS,
    ROOT,
    isolate,
    notifications,
    python_without_pynvim,
    spawn,
    start_host,
    type_command,
    wait_for_message,
)

PLUGIN_FILES = ("lua", "plugin", "python", "pyproject.toml", "README.md", "LICENSE", "tests/nvim")
UV = Path(sys.executable).parent / "uv"  # the test extra's
# The download caches a user has (the tests point XDG_CACHE_HOME at an empty dir).
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
CACHES = {
    "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR") or str(CACHE / "uv"),
    "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR") or str(CACHE / "pip"),
}


# A real install: about 50 s by pip on a quiet machine (benchmarks/install.py), minutes when the
# cores are busy. The tests are marked `long`, whose limit in tests/conftest.py is above this.
INSTALL_MS = 480_000


def copy_plugin(target: Path) -> Path:
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "test_*.py")
    for name in PLUGIN_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=skip)
        else:
            shutil.copy2(source, target / name)
    return target


def venv_of(tmp_path: Path) -> Path:
    return tmp_path / "home" / "xdg_data_home" / "nvim" / "bb7" / "venv"


def path_with(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *, uv: bool, pip: bool = True
) -> None:
    """$PATH with a real python3 (without pip unless `pip`) and, if `uv`, uv; with no other uv
    on it either way."""
    if pip:
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "python3").symlink_to(Path(sys.executable).resolve())
    else:  # a bare venv's bin: its python3 is the real one, without pip
        bin_dir = python_without_pynvim(tmp_path).parent
    if uv:
        (bin_dir / "uv").symlink_to(UV)
    others = [d for d in os.environ["PATH"].split(os.pathsep) if not Path(d, "uv").exists()]
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), *others]))
    for name, value in CACHES.items():
        monkeypatch.setenv(name, value)


def install_and_check(project: Path, nvim_version: str, plugin: Path, steps: list[str]) -> Path:
    """:BB7Install in one Neovim from no environment to a running host, saying `steps`
    (numbered as the plan stood when each began), then the stamp going stale. Returns the
    venv."""
    nvim = spawn(project, root=plugin, nvim=NVIMS[nvim_version])
    try:
        venv = venv_of(project.parent)  # the test's tmp_path, beside the isolated home
        check_install(nvim, plugin, venv, [step.format(venv=venv) for step in steps])
    finally:
        nvim.close()
    return venv


def check_install(nvim: Any, plugin: Path, venv: Path, steps: list[str]) -> None:
    nvim.exec_lua("require('bb7').setup()")
    type_command(nvim, "BB7Init")
    wait_for_message(nvim, "bb7: no Python environment for bb7 yet; run :BB7Install")

    before = len(notifications(nvim))
    type_command(nvim, "BB7Install")
    wait_for_message(nvim, "bb7: installed into", timeout_ms=INSTALL_MS)
    said = notifications(nvim)[before:]
    assert said[:-1] == [f"bb7: install {step}" for step in steps]
    assert said[-1].startswith(f"bb7: installed into {venv} in ")
    assert all("\n" not in message for message in said)
    # Written at install (uv would leave it to the host's first start, half a second).
    assert list(venv.glob("lib/python3*/site-packages/pynvim/__pycache__/*.pyc"))
    assert start_host(nvim)["python"] == str(venv / "bin" / "python")

    with (plugin / "pyproject.toml").open("a") as pyproject:
        pyproject.write("# a new dependency would change this file\n")
    nvim.exec_lua("require('bb7.backend').stop()")
    type_command(nvim, "BB7Init")
    text = wait_for_message(nvim, "is out of date")
    assert f"bb7: the Python environment in {venv} is out of date" in text
    assert "run :BB7Install" in text


# One Neovim: the same Lua runs the same processes on every version, and the two tests below
# take install.lua's steps, messages and stamp through one version each.
@pytest.mark.long
def test_install_with_uv_on_the_path_makes_the_venv_the_host_runs_from(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate(monkeypatch, tmp_path / "home")
    path_with(monkeypatch, tmp_path, uv=True)
    plugin = copy_plugin(tmp_path / "plugin")
    steps = ["1/2: creating {venv} (uv)", "2/2: installing bb7 and its dependencies (uv)"]
    venv = install_and_check(project, "0.12", plugin, steps)
    assert not (venv / "bin" / "uv").exists()


# Without uv on $PATH: pip bootstraps uv into the venv, or, when uv cannot be had (a python3
# without pip, as Debian's without python3-pip), the venv gets pip and pip installs. On one
# Neovim each: the steps are the same processes on every version.
WITHOUT_UV = {
    "uv-bootstrapped": (
        "0.11.4",
        False,
        ["1/3: {venv} (venv)", "2/3: {uv} (pip)", "3/3: {bb7} (uv)"],
    ),
    "pip-fallback": (
        "0.12",
        True,
        ["1/3: {venv} (venv)", "2/3: {uv} (pip)", "3/4: {pip} (ensurepip)", "4/4: {bb7} (pip)"],
    ),
}


@pytest.mark.long
@pytest.mark.parametrize("case", WITHOUT_UV)
def test_install_without_uv_on_the_path(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    version, uv_unavailable, steps = WITHOUT_UV[case]
    isolate(monkeypatch, tmp_path / "home")
    path_with(monkeypatch, tmp_path, uv=False, pip=not uv_unavailable)
    plugin = copy_plugin(tmp_path / "plugin")
    names = {
        "venv": "creating {venv}",
        "uv": "getting uv, the fast installer",
        "pip": "uv is not available: adding pip to the venv",
        "bb7": "installing bb7 and its dependencies",
    }
    venv = install_and_check(project, version, plugin, [s.format(**names) for s in steps])
    assert (venv / "bin" / "uv").exists() is not uv_unavailable


def test_a_failed_lazy_build_says_why_in_one_line_and_writes_no_stamp(
    launch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path_with(monkeypatch, tmp_path, uv=True)
    plugin = copy_plugin(tmp_path / "plugin")
    with (plugin / "pyproject.toml").open("a") as pyproject:
        pyproject.write("dependencies = [\n")  # a broken edit of the dependency list
    nvim = launch(root=plugin)
    # The lazy.nvim `build` function of the README: blocks until the install ends.
    ok, message = nvim.exec_lua(
        """
        local result
        require('bb7.install').run({ wait = true, on_done = function(...) result = { ... } end })
        return result
        """
    )
    assert not ok
    assert (
        message == "install failed: error: Failed to parse metadata from built wheel (see :BB7Log)"
    )
    assert notifications(nvim)[-1] == "bb7: install 2/2: installing bb7 and its dependencies (uv)"
    assert not (venv_of(tmp_path) / "bb7-install.stamp").exists()
    type_command(nvim, "BB7Init")
    text = wait_for_message(nvim, "is incomplete")
    assert f"the Python environment in {venv_of(tmp_path)} is incomplete" in text
