"""The `:UpdateRemotePlugins` shim (rplugin/python3/bb7.py) serves the same handlers and events
as bb7's own host, whether or not bb7 is installed in the remote-plugin host's interpreter."""

from __future__ import annotations

import inspect
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from editor import ROOT, emit, run, wait_for, wait_for_status


def deps_without_bb7(tmp_path: Path) -> Path:
    """An interpreter with bb7's dependencies but not bb7 (as a user's python3_host_prog): a
    bare venv that sees the test venv's packages (its editable bb7 path is not among them)."""
    venv = tmp_path / "host-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return python


def test_the_shim_file_becomes_the_bb7_package_and_serves_requests_and_events(
    launch: Any, tmp_path: Path, project: Path
) -> None:
    python = deps_without_bb7(tmp_path)
    probe = subprocess.run([str(python), "-c", "import pynvim, bb7"], capture_output=True)
    assert b"No module named 'bb7'" in probe.stderr  # only the shim can provide it
    host_prog = f"let g:python3_host_prog = '{python}'"
    launch(cmd=(host_prog,)).command("UpdateRemotePlugins")
    manifest = Path(tmp_path / "home" / "xdg_data_home" / "nvim" / "rplugin.vim").read_text()
    assert str(ROOT / "rplugin" / "python3" / "bb7.py") in manifest
    nvim = launch(cmd=(host_prog,))  # the manifest is read at start-up
    nvim.exec_lua("require('bb7').setup({ transport = 'rplugin' })")
    err, pong = nvim.exec_lua(
        "return { require('bb7.backend').request_sync('ping', { payload = 'via rplugin' }) }"
    )
    assert err is None and pong["payload"] == "via rplugin"
    nvim.exec_lua(
        "_G.got = {}; require('bb7.events').on('x', function(p) _G.got[#_G.got+1] = p end)"
    )
    emit(nvim, ("x", 1), ("x", 2))
    wait_for(nvim, "#_G.got == 2")
    assert run(nvim, "BB7Init").startswith("bb7: project ready in ")
    nvim.command("edit a.py")
    assert run(nvim, "BB7Add").startswith("bb7: added a.py")
    wait_for_status(nvim, project / "a.py", "")


def test_an_installed_bb7_offers_the_same_plugin_class_to_pynvims_host() -> None:
    import bb7
    from bb7.host.rplugin import BB7RemotePlugin

    classes = dict(inspect.getmembers(bb7, inspect.isclass))  # how pynvim's host looks
    assert classes["BB7RemotePlugin"] is BB7RemotePlugin
    assert BB7RemotePlugin._nvim_plugin is True
