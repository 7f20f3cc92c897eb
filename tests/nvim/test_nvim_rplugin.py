"""The `:UpdateRemotePlugins` shim (rplugin/python3/bb7.py) serves the same handlers and events
as bb7's own host, whether or not bb7 is installed in the remote-plugin host's interpreter; the
chat view over `transport = 'rplugin'` is as complete as over the job (keys, `@` completion,
sending, the draft, the review)."""

from __future__ import annotations

import inspect
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import answered, open_view, wait_for_conversation, with_ui
from editor import ROOT, VERSIONS, emit, poll, run, wait_for, wait_for_status

from bb7.files.fileid import entry_file_id
from llm_server import LLMServer, edits, stream, text_chunk, tool_call
from waits import until

A_ID = entry_file_id("a.py", "one = 1\ntwo = 2\nthree = 3\n")
EDIT_TWO = edits(("a.py", A_ID, "two = 2", "two = 22"))


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


# The chat view's Lua is the same on every version; the remote-plugin transport's start is
# what this adds (both versions serve requests through it above).
@pytest.mark.parametrize("nvim_binary", VERSIONS[-1:], indirect=True)
def test_the_chat_view_over_the_remote_plugin_maps_its_keys_completes_sends_and_drafts(
    launch: Any, project: Path, server: LLMServer
) -> None:
    host_prog = f"let g:python3_host_prog = '{sys.executable}'"
    launch(cmd=(host_prog,)).command("UpdateRemotePlugins")
    seeded = Seeded(project)
    chat = seeded.chat("Work")
    seeded.add(chat, "a.py")
    nvim = with_ui(
        launch(cmd=(host_prog,)),
        "{ transport = 'rplugin', provider = { base_url = ..., model = 'test/tools-model' } }",
        server.base_url,
    )
    open_view(nvim, "Context added: a.py")
    assert nvim.exec_lua("return vim.b.bb7_pane") == "input"
    mapped = nvim.exec_lua(
        "return vim.tbl_map(function(m) return m.lhs end, vim.api.nvim_buf_get_keymap(0, 'n'))"
    )
    assert {"<CR>", "ga", "q", "?"} <= set(mapped)
    assert "<CR> send" in nvim.exec_lua("return vim.wo.winbar")  # drawn with the windows

    # `@` completes a live part or a project path; accepting a path adds the file.
    nvim.input("isee @")
    poll(nvim, "vim.fn.pumvisible() == 1")  # the completion menu after @
    words = [i["word"] for i in nvim.exec_lua("return vim.fn.complete_info({ 'items' }).items")]
    assert words == ["diagnostics", "diff", "terminal", "a.py", "b.py"]
    nvim.input("<C-n>" * (4 - nvim.funcs.complete_info(["selected"])["selected"]) + "<C-y>")
    wait_for_conversation(nvim, "Context added: b.py")
    nvim.input("<Esc>")

    # The draft is saved (debounced) while the view stays open.
    until(lambda: getattr(seeded.store.chat(chat), "draft", None) == "see @b.py", "the draft")

    # <CR> sends; the answer's edit is pending, and reviewed: `ga` takes its hunk.
    server.push(stream(text_chunk("Done."), *tool_call("edit_file", EDIT_TWO)))
    nvim.input("<CR>")
    answered(nvim, "Assistant modified: a.py")
    assert nvim.current.buffer[:] == [""]
    wait_for_status(nvim, project / "a.py", "M")
    nvim.command("tabnew a.py")
    nvim.command("BB7Review")
    wait_for(nvim, "require('bb7.review').active(0)")
    nvim.input("2Gga")
    wait_for(nvim, "vim.api.nvim_buf_get_lines(0, 1, 2, false)[1] == 'two = 22'")
