"""Pending changes in the editor with the real host and state: paste, apply through the buffer,
conflicts, apply over them, undo, discard, apply all, the vimdiff merge, a host crash."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from pathlib import Path
from typing import Any

from editor import (
    NEWEST_ONLY,
    notifications,
    run,
    screen,
    signs,
    wait_for,
    wait_for_message,
    wait_for_status,
)

A = ["one = 1", "two = 2", "three = 3"]


def blocks(*edits: tuple[str, str, str]) -> str:
    """A model answer with SEARCH/REPLACE blocks for (path, old, new)."""
    return "Here you go:\n\n" + "".join(
        f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n\n"
        for path, old, new in edits
    )


def paste(nvim: Any, text: str) -> str:
    nvim.funcs.setreg("p", text)
    return run(nvim, "BB7Paste p")


def pending_two(nvim: Any, project: Path) -> None:
    """a.py gets a pending change of line 2 (through :BB7Paste)."""
    said = paste(nvim, blocks(("a.py", "two = 2", "two = 22")))
    assert said == "bb7: pasted, to review: a.py (:BB7Review, :BB7Merge)"
    wait_for_status(nvim, project / "a.py", "M")


def type_keys(nvim: Any, keys: str) -> None:
    """Types `keys` as a user would and waits until Neovim has handled them."""
    nvim.input(keys)
    wait_for(nvim, "vim.fn.getchar(1) == 0 and vim.api.nvim_get_mode().mode == 'n'")


def test_a_pasted_answer_is_a_pending_change_in_sign_and_statusline(
    ready: Any, project: Path
) -> None:
    pending_two(ready, project)
    assert signs(ready) == [[1, "M "], [2, "│ "]]
    rows = screen(ready)
    assert rows[0].startswith("M   one = 1") and rows[1].startswith("│   two = 2")
    assert "a.py bb7:M" in rows
    assert (project / "a.py").read_text() == "one = 1\ntwo = 2\nthree = 3\n"  # untouched


@NEWEST_ONLY
def test_a_paste_that_does_not_apply_says_where_and_changes_nothing(
    ready: Any, project: Path
) -> None:
    said = paste(ready, blocks(("a.py", "four = 4", "four = 44")))
    assert said.startswith("bb7: nothing pasted, a.py, change 1: not found")
    assert "the pasted response was not applied, nothing changed (1 error)" in said
    assert "block 1, line 4, a.py [not_found]" in said
    assert ready.exec_lua("return require('bb7').status()") == ""
    said = paste(ready, "Sure! Anything else?")
    assert "the pasted text has no edits" in said


def test_apply_writes_through_the_buffer_as_one_undoable_change(ready: Any, project: Path) -> None:
    paste(ready, blocks(("a.py", "one = 1", "one = 11"), ("a.py", "three = 3", "three = 33")))
    wait_for_status(ready, project / "a.py", "M")
    assert run(ready, "BB7Apply") == "bb7: applied a.py"
    assert ready.current.buffer[:] == ["one = 11", "two = 2", "three = 33"]
    assert ready.exec_lua("return vim.bo.modified") is False
    assert (project / "a.py").read_text() == "one = 11\ntwo = 2\nthree = 33\n"
    wait_for_status(ready, project / "a.py", "")
    assert signs(ready) == []
    type_keys(ready, "u")
    assert ready.current.buffer[:] == A


def test_an_unsaved_edit_makes_a_conflict_that_apply_refuses_naming_the_way_out(
    ready: Any, project: Path
) -> None:
    pending_two(ready, project)
    type_keys(ready, "3GA # mine<Esc>")  # typed, not saved
    wait_for_status(ready, project / "a.py", "~M")
    rows = screen(ready)
    assert rows[0].startswith("~M  one = 1") and "a.py bb7:~M" in rows
    said = run(ready, "BB7Apply")
    assert ":BB7Apply! applies over them" in said and ":BB7Diff merges by hand" in said
    assert ready.exec_lua("return _G.notifications[#_G.notifications].level") == 4  # ERROR
    assert ready.current.buffer[:] == ["one = 1", "two = 2", "three = 3 # mine"]
    assert (project / "a.py").read_text() == "one = 1\ntwo = 2\nthree = 3\n"


@NEWEST_ONLY
def test_apply_bang_overwrites_local_changes_and_undo_apply_brings_them_back(
    ready: Any, project: Path
) -> None:
    pending_two(ready, project)
    type_keys(ready, "3GA # mine<Esc>")
    wait_for_status(ready, project / "a.py", "~M")
    said = run(ready, "BB7Apply!")
    assert said == "bb7: applied a.py over your local changes (undo with :BB7UndoApply)"
    assert ready.current.buffer[:] == ["one = 1", "two = 22", "three = 3"]
    wait_for_status(ready, project / "a.py", "")
    said = run(ready, "BB7UndoApply")
    assert said == "bb7: undid the apply of a.py; its change is pending again"
    assert ready.current.buffer[:] == ["one = 1", "two = 2", "three = 3 # mine"]
    assert (project / "a.py").read_text() == "one = 1\ntwo = 2\nthree = 3 # mine\n"
    wait_for_status(ready, project / "a.py", "~M")


@NEWEST_ONLY
def test_discard_drops_the_pending_change_and_its_signs(ready: Any, project: Path) -> None:
    pending_two(ready, project)
    assert run(ready, "BB7Discard") == "bb7: discarded the pending change of a.py"
    wait_for_status(ready, project / "a.py", "")
    assert signs(ready) == []
    assert ready.current.buffer[:] == A
    assert "no pending output" in run(ready, "BB7Discard")


@NEWEST_ONLY
def test_apply_all_writes_loaded_and_unloaded_files(ready: Any, project: Path) -> None:
    said = paste(ready, blocks(("a.py", "one = 1", "one = 11"), ("b.py", "print('b')", "pass")))
    assert "to review: a.py, b.py" in said
    said = run(ready, "BB7ApplyAll")
    assert said == "bb7: applied 2 of 2 pending changes"
    assert ready.current.buffer[0] == "one = 11"
    assert (project / "a.py").read_text().startswith("one = 11\n")
    assert (project / "b.py").read_text() == "pass\n"
    assert ready.exec_lua("return vim.fn.bufloaded('b.py')") == 0


def test_vimdiff_takes_one_hunk_and_reopening_shows_only_the_other(
    ready: Any, project: Path
) -> None:
    paste(ready, blocks(("a.py", "one = 1", "one = 11"), ("a.py", "three = 3", "three = 33")))
    wait_for_status(ready, project / "a.py", "M")
    run(ready, "BB7Diff")
    assert ready.exec_lua("return #vim.api.nvim_tabpage_list_wins(0)") == 2
    rows = screen(ready)
    assert any("one = 1" in row and "one = 11" in row for row in rows)  # side by side
    assert ready.exec_lua("return vim.wo.diff") is True
    type_keys(ready, "gg]c")
    assert ready.funcs.line(".") == 3  # the second hunk
    type_keys(ready, "[cdo")  # back to the first, taken from the output into the file
    assert ready.current.buffer[:] == ["one = 11", "two = 2", "three = 3"]
    ready.command("tabclose")
    wait_for_message(ready, "a.py: took some hunks, the rest stays pending; :w writes them")
    # Like any Vim diff, the taken hunk stays in the buffer; the file is the user's to write.
    assert (project / "a.py").read_text() == "one = 1\ntwo = 2\nthree = 3\n"
    assert ready.exec_lua("return vim.bo.modified") is True
    wait_for_status(ready, project / "a.py", "M")
    run(ready, "BB7Diff")
    pending = ready.exec_lua(
        "local w = vim.api.nvim_tabpage_list_wins(0)[2]"
        " return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false)"
    )
    assert pending == ["one = 11", "two = 2", "three = 33"]
    ready.command("wincmd l")
    assert ready.exec_lua("return vim.bo.modifiable") is False
    type_keys(ready, "q")  # the output's own key closes the diff
    wait_for_message(ready, "nothing taken; the change is still pending")
    assert ready.exec_lua("return vim.fn.tabpagenr('$')") == 1


@NEWEST_ONLY
def test_context_commands_add_sections_read_only_files_and_remove(
    ready: Any, project: Path
) -> None:
    assert run(ready, "BB7Remove").startswith("bb7: removed a.py from Chat ")
    wait_for_status(ready, project / "a.py", None)
    said = run(ready, "2,3BB7Add")
    assert said.startswith("bb7: added a.py:2-3 (section) to ")
    wait_for_status(ready, project / "a.py", "S")
    assert signs(ready) == [[1, "S "]]
    run(ready, "BB7Remove b.py")
    assert run(ready, "BB7AddReadonly b.py").startswith("bb7: added b.py (readonly) to ")
    wait_for_status(ready, project / "b.py", "R")


@NEWEST_ONLY
def test_a_new_chat_starts_with_no_files(ready: Any, project: Path) -> None:
    assert run(ready, "BB7NewChat refactor") == "bb7: new chat: refactor"
    wait_for_status(ready, project / "a.py", None)
    assert run(ready, "BB7Model test/tools-model") == "bb7: model of refactor: test/tools-model"


@NEWEST_ONLY
def test_the_chat_view_gets_the_active_chat(ready: Any) -> None:
    err, chat = ready.exec_lua("return { require('bb7.backend').request_sync('active_chat') }")
    assert err is None and chat["name"].startswith("Chat ") and len(chat["id"]) == 10
    run(ready, "BB7NewChat second")
    err, again = ready.exec_lua("return { require('bb7.backend').request_sync('active_chat') }")
    assert again["name"] == "second" and again["id"] != chat["id"]


@NEWEST_ONLY
def test_commands_before_bb7init_say_to_run_it_and_add_starts_a_global_chat(
    nvim: Any, project: Path
) -> None:
    nvim.command("edit a.py")
    nvim.command("BB7Apply")
    text = wait_for_message(nvim, f"bb7: no bb7 project in {project}: run :BB7Init there")
    assert "Traceback" not in text
    nvim.command("BB7Add")  # as after :BB7Chat, not refused until one opened a global chat
    wait_for_message(nvim, "bb7: added a.py (external) to [global] ")
    assert not (project / ".bb7").exists()


def test_a_killed_host_restarts_on_the_next_command_with_nothing_pending_lost(
    ready: Any, project: Path
) -> None:
    pending_two(ready, project)
    pid = ready.exec_lua("return require('bb7.backend').status().info.pid")
    os.kill(pid, signal.SIGKILL)
    wait_for_message(ready, "bb7: the Python host exited")
    ready.command("BB7Apply")  # starts a new host, which opens the project again
    wait_for_message(ready, "bb7: applied a.py")
    assert ready.exec_lua("return require('bb7.backend').status().info.pid") != pid
    assert (project / "a.py").read_text() == "one = 1\ntwo = 22\nthree = 3\n"
    assert ready.current.buffer[:] == ["one = 1", "two = 22", "three = 3"]
    assert not any("locked" in n for n in notifications(ready))


def test_a_section_is_cut_from_the_buffer_as_the_user_sees_it(ready: Any, project: Path) -> None:
    run(ready, "BB7Remove")
    type_keys(ready, "ggOzero = 0<Esc>")  # unsaved: the file on disk has no line "zero"
    assert "(section) to " in run(ready, "1,2BB7Add")
    with sqlite3.connect(project / ".bb7" / "bb7.db") as db:
        (content,) = db.execute(
            "SELECT b.content FROM context c JOIN blobs b ON b.sha = c.blob"
            " WHERE c.path = 'a.py' AND c.kind = 'section'"
        ).fetchone()
    assert content == "zero = 0\none = 1\n"


def test_a_new_file_open_in_a_buffer_is_created_through_it(ready: Any, project: Path) -> None:
    ready.command("edit pkg/new.py")  # a buffer for a file (and folder) that does not exist yet
    call = {"name": "write_file", "arguments": json.dumps({"path": "pkg/new.py", "content": "x\n"})}
    said = paste(ready, json.dumps({"tool_calls": [{"type": "function", "function": call}]}))
    assert said.startswith("bb7: pasted, to review: pkg/new.py")
    wait_for_status(ready, project / "pkg" / "new.py", "A")
    assert run(ready, "BB7Apply") == "bb7: applied pkg/new.py"
    assert (project / "pkg" / "new.py").read_text() == "x\n"
    assert ready.current.buffer[:] == ["x"] and ready.exec_lua("return vim.bo.modified") is False


@NEWEST_ONLY
def test_undo_apply_of_a_closed_buffer_keeps_the_bom_and_crlf_of_the_file(
    ready: Any, project: Path
) -> None:
    # What the apply keeps to undo comes from the buffer's unsaved text: it must be the file's
    # bytes (BOM, CRLF), not the buffer's lines joined with LF.
    (project / "w.py").write_bytes(b"\xef\xbb\xbfone = 1\r\ntwo = 2\r\nthree = 3\r\n")
    ready.command("edit w.py")
    run(ready, "BB7Add")
    paste(ready, blocks(("w.py", "two = 2", "two = 22")))
    wait_for_status(ready, project / "w.py", "M")
    type_keys(ready, "3GA # mine<Esc>")
    wait_for_status(ready, project / "w.py", "~M")
    assert "over your local changes" in run(ready, "BB7Apply!")
    assert (project / "w.py").read_bytes() == b"\xef\xbb\xbfone = 1\r\ntwo = 22\r\nthree = 3\r\n"
    ready.command("bwipeout")
    assert "undid the apply of w.py" in run(ready, "BB7UndoApply w.py")
    mine = b"\xef\xbb\xbfone = 1\r\ntwo = 2\r\nthree = 3 # mine\r\n"
    assert (project / "w.py").read_bytes() == mine


def test_a_pending_new_file_opened_before_it_exists_shows_its_sign(
    ready: Any, project: Path
) -> None:
    new = "new.py\n<<<<<<< SEARCH\n=======\nprint('new')\nprint('two')\n>>>>>>> REPLACE\n"
    said = paste(ready, new)
    assert said == "bb7: pasted, to review: new.py (:BB7Review, :BB7Merge)"
    wait_for_status(ready, project / "new.py", "A")
    ready.command("edit new.py")  # no such file yet: BufNewFile, not BufReadPost
    assert signs(ready) == [[1, "A "]]
    assert ready.exec_lua("return vim.b.bb7_status") == "A"
    assert screen(ready)[0].startswith("A")
    run(ready, "BB7Review")  # the new file from its first line, not under an empty one
    wait_for(ready, "require('bb7.review').active(0)")
    rows = screen(ready)[1:]  # under the review's bar
    assert rows[0].startswith("A   print('new')") and rows[0].endswith("bb7 hunk 1/1"), rows
    assert rows[1] == "    print('two')", rows
    assert ready.current.buffer[:] == [""]


@NEWEST_ONLY
def test_apply_bang_over_a_file_made_meanwhile_says_so_and_undo_brings_it_back(
    ready: Any, project: Path
) -> None:
    paste(ready, "new.py\n<<<<<<< SEARCH\n=======\nprint('new')\n>>>>>>> REPLACE\n")
    wait_for_status(ready, project / "new.py", "A")
    wait_for_status(ready, project / "new.py", "A")
    (project / "new.py").write_text("mine = 1\n")  # made outside Neovim meanwhile
    wait_for_status(ready, project / "new.py", "!A")  # seen without a command or a key
    assert "new.py now exists locally (!A)" in run(ready, "BB7Apply new.py")
    said = run(ready, "BB7Apply! new.py")
    assert said == "bb7: applied new.py over the local file (undo with :BB7UndoApply)"
    assert (project / "new.py").read_text() == "print('new')\n"
    assert "undid the apply of new.py" in run(ready, "BB7UndoApply new.py")
    assert (project / "new.py").read_text() == "mine = 1\n"


def test_the_diff_marks_the_users_own_lines_and_closing_it_untouched_keeps_them_theirs(
    ready: Any, project: Path
) -> None:
    pending_two(ready, project)
    type_keys(ready, "1GA # mine<Esc>")  # the user's own edit, next to the model's hunk
    wait_for_status(ready, project / "a.py", "~M")
    run(ready, "BB7Diff")
    assert ready.exec_lua("return vim.fn.tabpagenr('$')") == 2
    rows = screen(ready)
    assert any("one = 1 # mine your ed" in row for row in rows), rows  # cut at 30 columns
    assert sum("your ed" in row for row in rows) == 1  # the model's line is not marked
    type_keys(ready, ":q<CR>")  # in the file's window, not the output's
    wait_for_message(ready, "a.py: nothing taken; the change is still pending")
    assert ready.exec_lua("return vim.fn.tabpagenr('$')") == 1
    assert ready.exec_lua("return vim.fn.bufexists('bb7://pending/a.py')") == 0
    assert ready.current.buffer[:] == ["one = 1 # mine", "two = 2", "three = 3"]
    wait_for_status(ready, project / "a.py", "~M")  # the edit is still the user's, not merged
    assert "your ed" not in "".join(screen(ready))


@NEWEST_ONLY
def test_applying_a_file_deleted_meanwhile_says_so_in_its_first_line(
    ready: Any, project: Path
) -> None:
    paste(ready, blocks(("b.py", "print('b')", "pass")))
    wait_for_status(ready, project / "b.py", "M")
    (project / "b.py").unlink()  # outside Neovim; the status shown is still M
    said = run(ready, "BB7Apply b.py").splitlines()
    assert said[0] == "bb7: b.py changed since its status was shown; not applied"
    wait_for_status(ready, project / "b.py", "~M")
    said = run(ready, "BB7Apply b.py").splitlines()
    assert said[0] == "bb7: b.py no longer exists; :BB7Apply! writes it again"
    assert not (project / "b.py").exists()
    assert run(ready, "BB7Apply! b.py").startswith("bb7: applied b.py")
    assert (project / "b.py").read_text() == "pass\n"
