"""The inline review and the editor's merge with the real host and state: the overlay leaves the
buffer's text alone, `ga`/`gr` take or drop one hunk, `:BB7Merge` keeps both sides and leaves
overlaps pending, the model's lines and the user's get different signs."""

from __future__ import annotations

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

from bb7.refusal import Problem
from bb7.state.store import open_project
from waits import until

A = ["one = 1", "two = 2", "three = 3"]
C = [f"c{i} = {i}" for i in range(1, 11)]

FILES_PANEL = (
    "vim.api.nvim_buf_get_lines("
    "vim.api.nvim_win_get_buf(require('bb7.chat').win('files')), 0, -1, false)"
)
HUNKS = "#vim.api.nvim_buf_get_extmarks(0, require('bb7.review').ns, 0, -1, {})"


def blocks(*edits: tuple[str, str, str]) -> str:
    """A model answer with SEARCH/REPLACE blocks for (path, old, new)."""
    return "Here you go:\n\n" + "".join(
        f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n\n"
        for path, old, new in edits
    )


def paste(nvim: Any, *edits: tuple[str, str, str]) -> None:
    nvim.funcs.setreg("p", blocks(*edits))
    said = run(nvim, "BB7Paste p")
    assert said.startswith("bb7: pasted"), said


def type_keys(nvim: Any, keys: str) -> None:
    """Types `keys` as a user would and waits until Neovim has handled them."""
    nvim.input(keys)
    wait_for(nvim, "vim.fn.getchar(1) == 0 and vim.api.nvim_get_mode().mode == 'n'")


def pending(nvim: Any, project: Path, *edits: tuple[str, str, str]) -> None:
    """Pasted edits of one file, waiting until it shows as a pending change (M)."""
    paste(nvim, *edits)
    wait_for_status(nvim, project / edits[0][0], "M")


def review(nvim: Any) -> None:
    run(nvim, "BB7Review")
    wait_for(nvim, "require('bb7.review').active(0)")


def test_the_overlay_shows_the_pending_text_and_leaves_the_buffer_alone(
    ready: Any, project: Path
) -> None:
    pending(ready, project, ("a.py", "two = 2", "two = 22"))
    review(ready)
    wait_for_message(ready, "reviewing a.py: 1 hunk")
    rows = screen(ready)
    # The window's bar shows the review's keys while it is on (row 0), the text below.
    assert rows[0].startswith(" review: 1 hunk · ga accept · gr reject"), rows
    assert rows[2].startswith("│   two = 2") and "bb7 hunk 1/1" in rows[2]
    assert rows[3] == "    two = 22"  # a virtual line: the model's new text
    assert rows[4].startswith("    three = 3")
    assert ready.current.buffer[:] == A
    assert ready.exec_lua("return vim.bo.modified") is False
    type_keys(ready, "q")
    assert ready.exec_lua(f"return {HUNKS}") == 0
    assert screen(ready)[2].startswith("    three = 3")  # the bar is gone with it


def test_accept_one_hunk_reject_the_other_leaves_exactly_the_accepted_one(
    ready: Any, project: Path
) -> None:
    pending(ready, project, ("a.py", "one = 1", "one = 11"), ("a.py", "three = 3", "three = 33"))
    review(ready)
    type_keys(ready, "gg")
    ready.input("ga")
    wait_for(ready, "vim.api.nvim_buf_get_lines(0, 0, 1, false)[1] == 'one = 11'")
    assert ready.current.buffer[:] == ["one = 11", "two = 2", "three = 3"]
    assert "bb7 hunk 1/1" in screen(ready)[3]
    type_keys(ready, "]h")
    assert ready.funcs.line(".") == 3
    ready.input("gr<CR>")  # no reason given
    text = wait_for_message(ready, "nothing pending; the buffer is modified, :w writes it")
    assert "a.py: nothing pending" in text
    assert ready.current.buffer[:] == ["one = 11", "two = 2", "three = 3"]
    assert (project / "a.py").read_text() == "one = 1\ntwo = 2\nthree = 3\n"  # nothing written
    assert ready.exec_lua(f"return {HUNKS}") == 0
    assert ready.exec_lua("return vim.fn.maparg('ga', 'n')") == ""  # the keys left too
    ready.command("write")
    assert (project / "a.py").read_text() == "one = 11\ntwo = 2\nthree = 3\n"
    wait_for_status(ready, project / "a.py", "")
    type_keys(ready, "u")  # the accept was one undo step
    assert ready.current.buffer[:] == A


def test_amend_one_hunk_reject_one_for_a_reason_and_apply_the_rest_around_an_edit(
    ready: Any, project: Path
) -> None:
    (project / "c.py").write_text("".join(line + "\n" for line in C))
    ready.command("edit c.py")
    run(ready, "BB7Add")
    model = [(f"c{i} = {i}", f"c{i} = 'model'") for i in (2, 5, 8)]
    pending(ready, project, *(("c.py", old, new) for old, new in model))
    type_keys(ready, "10GA # mine<Esc>")  # unsaved, away from the model's lines
    # Signs of the new text: still M, the model's lines and the user's apart.
    wait_for(ready, "#vim.api.nvim_buf_get_extmarks(0, require('bb7.status').ns, 0, -1, {}) == 5")
    assert signs(ready) == [[1, "M "], [2, "│ "], [5, "│ "], [8, "│ "], [10, "┆ "]]
    review(ready)
    type_keys(ready, "2Ggm")
    assert ready.current.buffer.name.endswith("[bb7 amend] c.py:2")
    assert ready.current.buffer[:] == ["c2 = 'model'"]
    type_keys(ready, "ccc2 = 'mine'<Esc>")
    ready.command("write")
    wait_for(ready, "vim.api.nvim_buf_get_lines(0, 1, 2, false)[1] == \"c2 = 'mine'\"")
    type_keys(ready, "5G")
    ready.input("gr")  # alone: typed ahead, `grn` would be Neovim's rename
    until(lambda: ready.api.get_mode()["mode"] == "c", "the prompt for the reason")
    ready.input("not c5<CR>")
    wait_for(ready, "#require('bb7.review').hunks(0) == 1")
    type_keys(ready, "q")
    assert run(ready, "BB7Apply") == "bb7: applied c.py, keeping your local edits"
    expected = [*C[:1], "c2 = 'mine'", *C[2:7], "c8 = 'model'", C[8], "c10 = 10 # mine"]
    assert ready.current.buffer[:] == expected
    store = open_project(project)
    assert not isinstance(store, Problem)
    events = [
        p.event for m in store.messages(store.chats()[0].id) for p in m.parts if hasattr(p, "event")
    ]
    store.close()
    done = [(e.action, e.diff, e.reason) for e in events if e.action.endswith("_hunk")]
    assert done == [
        ("user_amended_hunk", "-c2 = 'model'\n+c2 = 'mine'\n", ""),
        ("user_rejected_hunk", "-c5 = 5\n+c5 = 'model'\n", "not c5"),
    ]


def test_merge_keeps_both_sides_and_leaves_overlaps_pending_in_the_review(
    ready: Any, project: Path
) -> None:
    (project / "c.py").write_text("".join(line + "\n" for line in C))
    ready.command("edit c.py")
    run(ready, "BB7Add")
    pending(ready, project, ("c.py", "c2 = 2", "c2 = 'model'"), ("c.py", "c5 = 5", "c5 = 'model'"))
    type_keys(ready, "5GA # mine<Esc>8GA # mine<Esc>")
    wait_for_status(ready, project / "c.py", "~M")
    run(ready, "BB7Merge")
    text = wait_for_message(ready, "except line 5")
    assert "c.py: merged, except line 5:" in text
    wait_for(ready, "require('bb7.review').active(0)")
    lines = ready.current.buffer[:]
    assert lines[1] == "c2 = 'model'"  # the model's change
    assert (lines[4], lines[7]) == ("c5 = 5 # mine", "c8 = 8 # mine")  # the user's
    assert not any("<<<<<<<" in line for line in lines)
    rows = screen(ready)
    at = next(i for i, row in enumerate(rows) if "c5 = 5 # mine" in row)
    assert "bb7 hunk 1/1: over your own edit" in rows[at]
    assert rows[at + 1].strip() == "c5 = 'model'"
    assert (project / "c.py").read_text() == "".join(line + "\n" for line in C)


@NEWEST_ONLY
def test_the_users_own_lines_get_a_sign_apart_from_the_models(ready: Any, project: Path) -> None:
    pending(ready, project, ("a.py", "two = 2", "two = 22"))
    type_keys(ready, "3GA # mine<Esc>")  # typed, not saved
    wait_for_status(ready, project / "a.py", "~M")
    wait_for(ready, "#vim.api.nvim_buf_get_extmarks(0, require('bb7.status').ns, 0, -1, {}) == 3")
    assert signs(ready) == [[1, "~M"], [2, "│ "], [3, "┆ "]]
    rows = screen(ready)
    assert rows[1].startswith("│   two = 2") and rows[2].startswith("┆   three = 3 # mine")


@NEWEST_ONLY
def test_undo_apply_refusal_names_the_bang_and_the_bang_forces_it(
    ready: Any, project: Path
) -> None:
    pending(ready, project, ("a.py", "two = 2", "two = 22"))
    assert run(ready, "BB7Apply") == "bb7: applied a.py"
    type_keys(ready, "3GA # later<Esc>")
    said = run(ready, "BB7UndoApply")
    assert "a.py changed since the apply; :BB7UndoApply! undoes anyway" in said
    assert "--" not in said  # editor actions, never the CLI's flags
    assert ready.current.buffer[:] == ["one = 1", "two = 22", "three = 3 # later"]
    said = run(ready, "BB7UndoApply!")
    assert said == "bb7: undid the apply of a.py; its change is pending again"
    assert ready.current.buffer[:] == A
    wait_for_status(ready, project / "a.py", "M")


@NEWEST_ONLY
def test_review_with_a_path_opens_that_file_and_review_again_ends_it(
    ready: Any, project: Path
) -> None:
    pending(ready, project, ("a.py", "two = 2", "two = 22"))
    ready.command("edit b.py")
    run(ready, "BB7Review a.py")
    wait_for(ready, "require('bb7.review').active(0)")
    assert ready.current.buffer.name == str(project / "a.py")
    assert ready.exec_lua("return vim.fn.maparg(']h', 'n', false, true).desc") == (
        "bb7: go to the next hunk (review)"
    )
    run(ready, "BB7Review")
    assert ready.exec_lua("return require('bb7.review').active(0)") is False
    assert ready.exec_lua(f"return {HUNKS}") == 0


def test_the_users_edit_during_a_review_moves_the_hunks_and_is_never_one(
    ready: Any, project: Path
) -> None:
    pending(ready, project, ("a.py", "two = 2", "two = 22"))
    review(ready)
    type_keys(ready, "ggOmine = 0<Esc>")
    wait_for(ready, "require('bb7.review').hunks(0)[1].start == 2")
    assert len(ready.exec_lua("return require('bb7.review').hunks(0)")) == 1
    type_keys(ready, "3G")
    ready.input("ga")
    wait_for(ready, "not require('bb7.review').active(0)")
    assert ready.current.buffer[:] == ["mine = 0", "one = 1", "two = 22", "three = 3"]


@NEWEST_ONLY
def test_the_files_panel_key_opens_the_file_in_review(ready: Any, project: Path) -> None:
    pending(ready, project, ("a.py", "two = 2", "two = 22"))
    ready.command("BB7Chat")
    wait_for(ready, "require('bb7.chat').win('files') ~= nil")
    wait_for(ready, f"table.concat({FILES_PANEL}, '\\n'):find('a.py', 1, true) ~= nil")
    rows = ready.exec_lua(f"return {FILES_PANEL}")
    ready.exec_lua("require('bb7.chat').focus('files')")
    ready.current.window.cursor = (next(i for i, r in enumerate(rows) if "a.py" in r) + 1, 0)
    ready.input("R")
    wait_for(ready, "require('bb7.review').active(0)")
    assert ready.current.buffer.name == str(project / "a.py")
    assert ready.current.buffer[:] == A


def test_lines_added_above_the_first_line_are_scrolled_into_view(ready: Any, project: Path) -> None:
    pending(ready, project, ("a.py", "one = 1", "zero = 0\none = 1"))
    type_keys(ready, "gg")
    review(ready)
    wait_for(ready, "vim.fn.winsaveview().topfill == 1")
    rows = screen(ready)  # under the review's bar:
    assert rows[1] == "    zero = 0", rows  # the virtual line above line 1, on screen
    assert rows[2].endswith("one = 1 bb7 hunk 1/1"), rows
    type_keys(ready, "G]h")
    assert ready.exec_lua("return vim.fn.winsaveview().topfill") == 1
    assert screen(ready)[1] == "    zero = 0"


def test_a_bom_file_with_unsaved_edits_merges_and_reviews_line_1_as_the_models(
    ready: Any, project: Path
) -> None:
    # The buffer holds the BOM in 'bomb', not in its text: line 1 is not the user's edit.
    (project / "c.py").write_bytes(b"\xef\xbb\xbfc1 = 1\nc2 = 2\nc3 = 3\n")
    ready.command("edit c.py")
    run(ready, "BB7Add")
    pending(ready, project, ("c.py", "c1 = 1", "c1 = 'model'"))
    type_keys(ready, "3GA # mine<Esc>")
    wait_for_status(ready, project / "c.py", "M")  # an edit away from the change: rebased
    review(ready)
    rows = screen(ready)[1:]  # under the review's bar
    assert "bb7 hunk 1/1" in rows[0] and "over your own edit" not in rows[0]
    assert rows[1] == "    c1 = 'model'"  # no <feff> drawn
    type_keys(ready, "q")
    said = run(ready, "BB7Merge")
    assert said == "bb7: c.py: merged; u undoes it, :w writes it"
    assert ready.current.buffer[:] == ["c1 = 'model'", "c2 = 2", "c3 = 3 # mine"]
    ready.command("write")
    assert (project / "c.py").read_bytes() == b"\xef\xbb\xbfc1 = 'model'\nc2 = 2\nc3 = 3 # mine\n"


@NEWEST_ONLY
def test_a_change_applied_or_discarded_during_its_review_ends_the_review(
    ready: Any, project: Path
) -> None:
    pending(ready, project, ("a.py", "two = 2", "two = 22"))
    review(ready)
    assert run(ready, "BB7Apply") == "bb7: applied a.py"
    wait_for(ready, "not require('bb7.review').active(0)")
    assert ready.exec_lua(f"return {HUNKS}") == 0  # no hunk drawn over the applied text
    assert ready.funcs.maparg("ga", "n") == ""
    run(ready, "BB7UndoApply")
    wait_for_status(ready, project / "a.py", "M")
    review(ready)
    assert run(ready, "BB7Discard") == "bb7: discarded the pending change of a.py"
    wait_for(ready, "not require('bb7.review').active(0)")
    assert ready.exec_lua(f"return {HUNKS}") == 0
    assert not any("no pending change" in n for n in notifications(ready))
