"""A chat another Neovim holds, seen from a second real Neovim with a UI attached: the view
reads it with a banner naming that Neovim's host, the chat list marks it, a send is refused in
one line that says what to do, `:BB7Chat!` asks before taking it from a Neovim that runs, the
quitting Neovim gives the chat up, and then `:BB7Chat!` takes it over."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chat_view_helpers import OPEN, open_chat_list, wait_for_screen, with_ui
from editor import notifications, type_command, wait_for, wait_for_notification

INPUT = "vim.api.nvim_buf_get_lines(require('bb7.chat').buf('input'), 0, -1, false)"
LIST_HIGHLIGHTS = """
local ns = require('bb7.chat.chats').ns
local marks = vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })
return vim.iter(marks):map(function(m) return m[4].line_hl_group end):totable()
"""


def test_a_chat_held_by_another_neovim_is_read_only_until_taken_over(
    ready: Any, launch: Callable[..., Any], project: Path
) -> None:
    pid = ready.exec_lua("return require('bb7.backend').status().info.pid")
    other = with_ui(launch())
    type_command(other, "BB7Chat")
    wait_for(other, OPEN)
    banner = f" ⊘ read-only, pid {pid} · :BB7Chat! takes it over · "
    rows = wait_for_screen(other, banner)
    # Where it runs comes last, cut from the left to fit: the project's name stays.
    (row,) = [r for r in rows if banner in r]
    assert row.endswith("/project") or row.endswith(f"in {project}")
    assert not any("Message ·" in row for row in rows)

    listed = open_chat_list(other)
    (row,) = [r for r in listed if "held by" in r]  # the banner shows under the float too
    assert "⊘  Chat " in row and f"held by pid {pid} · " in row
    assert other.exec_lua(LIST_HIGHLIGHTS) == ["BB7ChatHeld"]  # its name is dimmed
    other.input("q")

    other.input("ihello<Esc><CR>")  # <CR> in the input sends
    # One line, what to do first (where the holder runs may be cut; :BB7Log has it whole).
    said = wait_for_notification(other, f"bb7: held by pid {pid}: :BB7Chat! takes it over")
    assert "\n" not in said
    assert other.exec_lua(f"return {INPUT}") == ["hello"]  # nothing typed is lost

    # While the holder runs, :BB7Chat! asks first; No leaves the chat read-only.
    type_command(other, "BB7Chat!")
    wait_for_screen(other, f"Take the chat over from pid {pid} (still running; its sending stops)?")
    other.input("2<CR>")
    assert not [n for n in notifications(other) if "took over" in n]
    # In the split layout at 80 columns the input is 40 wide: the pid and :BB7Chat! still show.
    type_command(other, "BB7Chat")
    wait_for(other, f"not {OPEN}")
    other.exec_lua("require('bb7').setup({ layout = 'split' })")
    type_command(other, "BB7Chat")
    wait_for_screen(other, f" ⊘ read-only, pid {pid} · :BB7Chat!")

    ready.exec_lua("vim.api.nvim_exec_autocmds('VimLeavePre', {})")  # quitting stops its host
    # Released by the exiting host, not left to go stale (a killed holder's lease is taken over
    # as stale: tests/host/test_host_held.py). A loaded machine may take seconds to run the
    # host's exit, so wait for its row to go rather than for a fixed time.
    deadline = time.monotonic() + 20
    leases = None
    while time.monotonic() < deadline:
        with sqlite3.connect(project / ".bb7" / "bb7.db") as db:
            leases = db.execute("SELECT count(*) FROM leases WHERE pid = ?", (pid,)).fetchone()
        if leases == (0,):
            break
        time.sleep(0.02)
    assert leases == (0,)
    type_command(other, "BB7Chat!")
    wait_for_notification(other, "took over")
    rows = wait_for_screen(other, "Message ·")
    assert not any("read-only" in r for r in rows)
    assert other.exec_lua(f"return {INPUT}") == ["hello"]
