"""File statuses from the real host to the screen: its `status_changed` event drawn as a sign
on line 1, signs on pending lines, `b:bb7_status`, the statusline and a `User` autocmd; an
edit refreshing a status; a project's file shown without any command. How the plugin takes
each event (removed files, a full refresh, the sign options, completion and jumps from the
cache, response autocmds) is specified without a host in tests/lua/status_spec.lua."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chat_state import Seeded
from editor import NEWEST_ONLY, emit, screen, start_host, wait_for, wait_for_status

SIGNS = """
  local ns = require('bb7.status').ns
  local marks = vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })
  return vim.tbl_map(function(m) return { m[2] + 1, m[4].sign_text, m[4].sign_hl_group } end, marks)
"""

COUNT_USER_EVENTS = """
  _G.user_events = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = { 'BB7StatusChanged', 'BB7RequestStarted', 'BB7ResponseDone' },
    callback = function(ev) table.insert(_G.user_events, { ev.match, ev.data }) end,
  })
"""


def status_event(path: Path, status: str, lines: list[int] | None = None) -> dict[str, Any]:
    return {"files": {str(path): {"status": status, "lines": lines or []}}}


def test_a_status_event_shows_on_screen_in_signs_statusline_and_buffer_var(
    nvim: Any, project: Path
) -> None:
    nvim.command("edit a.py")
    start_host(nvim)
    wait_for(nvim, "require('bb7.events').stats.flushes >= 2")  # ready, then the first statuses
    nvim.exec_lua(COUNT_USER_EVENTS)
    emit(nvim, ("status_changed", status_event(project / "a.py", "M", [2, 3])))
    wait_for(nvim, "#_G.user_events == 1")
    assert nvim.exec_lua("return require('bb7').status()") == "M"
    assert nvim.exec_lua("return vim.b.bb7_status") == "M"
    assert nvim.exec_lua(SIGNS) == [
        [1, "M ", "BB7SignModified"],
        [2, "│ ", "BB7SignPendingLine"],
        [3, "│ ", "BB7SignPendingLine"],
    ]
    rows = screen(nvim)
    assert rows[0].startswith("M   one = 1")
    assert rows[1].startswith("│   two = 2")
    assert "a.py bb7:M" in rows
    event = nvim.exec_lua("return _G.user_events[1]")
    assert event == ["BB7StatusChanged", {"paths": [str(project / "a.py")]}]


@NEWEST_ONLY
def test_editing_a_chat_file_refreshes_its_status_after_a_pause(ready: Any, project: Path) -> None:
    ready.exec_lua("vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'one = 111' })")
    ready.exec_lua("vim.api.nvim_exec_autocmds('TextChanged', { buffer = 0 })")
    wait_for_status(ready, project / "a.py", "~")  # the unsaved text counts
    ready.command("edit!")  # back to the file on disk
    wait_for_status(ready, project / "a.py", "")


def test_a_file_of_the_project_shows_its_status_without_any_bb7_command(
    launch: Any, project: Path, tmp_path: Path
) -> None:
    seeded = Seeded(project)
    chat = seeded.chat("Pending")
    seeded.add(chat, "a.py")
    seeded.model_writes(chat, "a.py", "one = 1\ntwo = 22\nthree = 3\n")
    seeded.store.close()
    nvim = launch()
    nvim.exec_lua("require('bb7').setup()")
    outside = tmp_path / "notes.txt"
    outside.write_text("not in a project\n")
    nvim.command(f"edit {outside}")  # no .bb7 above it: nothing starts
    nvim.exec_lua("vim.wait(30)")
    assert nvim.exec_lua("return require('bb7.backend').state()") == "stopped"
    nvim.command("edit a.py")  # as when Neovim is reopened on it
    wait_for_status(nvim, project / "a.py", "M")
    assert nvim.exec_lua(SIGNS)[0][1:] == ["M ", "BB7SignModified"]
