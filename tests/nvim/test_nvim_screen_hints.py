"""Key hints where they fit and messages that lead with the action, at 80x24 and 120x40 in both
layouts, in one real Neovim with a UI attached (resized between screens), its vim.notify the
real one: the review's keys on the reviewed window's bar (and the user's own bar back after),
the files panel of a long list ("+N more", counted again as it scrolls), `gE` with two files
changed since in one line, and a long path giving way before what a message says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import (
    DISPLAYS,
    OPEN,
    all_fit,
    conversation,
    focus,
    open_view,
    pane_screen,
)
from editor import (
    VERSIONS,
    emit,
    never_waiting,
    notifications,
    screen,
    type_command,
    wait_for,
    wait_for_notification,
)

A_TEXT = "one = 1\ntwo = 2\nthree = 3\n"
LISTED = [f"file_{i:02}.py" for i in range(14)]


NAME = "Hints, in a chat whose name is long enough to push the rest off a line"


def seed(project: Path) -> str:
    """The active chat (NAME): a.py, b.py and 14 more files; two questions, a.py and b.py
    changed by the model between them; then two of the files changed locally. Its id."""
    seeded = Seeded(project)
    chat = seeded.chat(NAME)
    for name in ["a.py", "b.py", *LISTED]:
        if name in LISTED:
            (project / name).write_text(f"x = {name[5:7]}\n")
        seeded.add(chat, name)
    seeded.ask(chat, "first question")
    seeded.answer(chat, "first answer")
    seeded.model_writes(chat, "a.py", A_TEXT.replace("one = 1", "one = 11"))
    seeded.model_writes(chat, "b.py", "print('bee')\n")
    seeded.ask(chat, "second question")
    seeded.answer(chat, "second answer")
    seeded.store.close()
    for name in LISTED[:2]:
        (project / name).write_text("changed = True\n")
    return chat


def window_rows(nvim: Any) -> list[str]:
    """The current window's rows on the screen, its bar first."""
    info = nvim.exec_lua("return vim.fn.getwininfo(vim.api.nvim_get_current_win())[1]")
    top, left = info["winrow"] - 1, info["wincol"] - 1
    rows = screen(nvim)[top : top + info["winbar"] + info["height"]]
    return [row[left : left + info["width"]].rstrip() for row in rows]


def review_on_the_bar(nvim: Any, where: str, scope: str) -> None:
    """:BB7Review of a.py: its keys on the window's bar, the user's own bar (the window's, or
    every window's: `scope`) back after."""
    nvim.command("edit a.py")
    nvim.command("setlocal winbar=")
    nvim.command(f"set{scope} winbar=my\\ own\\ bar")
    nvim.current.window.cursor = (3, 0)  # off the hunk (line 1)
    before = len(notifications(nvim))
    type_command(nvim, "BB7Review")
    wait_for(nvim, "require('bb7.review').active(0)")
    assert wait_for_notification(nvim, "reviewing", before) == "bb7: reviewing a.py: 1 hunk", where
    bar, *rows = window_rows(nvim)
    assert bar.startswith(" review: 1 hunk · ga accept · gr reject · gm amend"), (where, bar)
    assert rows[0].endswith("one = 1 bb7 hunk 1/1"), (where, rows)
    nvim.input("gg")
    bar = window_rows(nvim)[0]
    assert bar.startswith(" review 1/1 · ga accept · gr reject"), (where, bar)  # on the hunk
    # Amending: the small window's keys on its own bar, the message leads with the action.
    before = len(notifications(nvim))
    nvim.input("gm")
    assert (
        wait_for_notification(nvim, "amending", before)
        == "bb7: amending a.py line 1: :w accepts, q leaves the hunk"
    )
    bar = window_rows(nvim)[0]
    assert bar == " amend: edit these lines · :w accepts them · q leaves the hunk", (where, bar)
    nvim.input("q")
    wait_for(nvim, "require('bb7.review').active(0)")
    nvim.input("q")
    wait_for(nvim, "not require('bb7.review').active(0)")
    assert window_rows(nvim)[0] == "my own bar", where
    assert nvim.exec_lua("return vim.wo.winbar") == "my own bar"
    nvim.command(f"set{scope} winbar=")


def files_panel_counts_what_it_hides(nvim: Any, where: str) -> None:
    """Every file is on the panel, or its bar says how many are not; scrolled, again."""
    for keys in ("gg", "G"):
        focus(nvim, "files")
        nvim.input(keys)
        bar, *rows = pane_screen(nvim, "files")
        visible = [f for f in [*LISTED, "a.py", "b.py"] if any(f" {f} " in row for row in rows)]
        hidden = int(bar.split("+")[1].split()[0]) if " more" in bar else 0
        assert len(visible) + hidden == len(LISTED) + 2, (where, keys, bar, rows)
        assert not bar.startswith(" <") and not bar.endswith(">"), (where, bar)


HEIGHTS = """
local c = require('bb7.chat')
return { vim.fn.winheight(c.win('conversation')), vim.fn.winheight(c.win('files')) }
"""
DRAFT = "table.concat(vim.api.nvim_buf_get_lines(require('bb7.chat').buf('input'), 0, -1, false))"


def edit_in_one_line(nvim: Any, where: str) -> None:
    """gE on a question two files changed since: one line, never Press ENTER."""
    lines = conversation(nvim)
    question = "second question" if "second question" in lines else "first question"
    focus(nvim, "conversation", lines.index(question) + 1)
    before = len(notifications(nvim))
    nvim.input("gE")
    wait_for(nvim, "vim.api.nvim_get_mode().mode == 'c'")  # the confirm's choices
    nvim.input("1<CR>")
    message = wait_for_notification(nvim, "changed since", before)
    assert message == "bb7: 2 files changed since; the chat has them as they were (:BB7Log)"
    wait_for(nvim, f"{DRAFT} == {question!r}")
    never_waiting(nvim)
    assert notifications(nvim)[before:] == [message], where


@pytest.mark.parametrize("nvim_binary", VERSIONS[-1:], indirect=True)
def test_hints_and_messages_fit_every_screen_and_layout(
    launch: Callable[..., Any], project: Path
) -> None:
    chat = seed(project)
    nvim = launch()
    nvim.ui_attach(80, 24, rgb=True)
    # Each layout at 80x24 after 120x40, the tab last: its gE (on the first question) drops
    # the pending changes that the reviews before it need.
    for display in sorted(DISPLAYS, key=lambda d: (d.layout, d.rows == 24)):
        where = str(display)
        nvim.command(f"set lines={display.rows} columns={display.cols}")
        nvim.ui_try_resize(display.cols, display.rows)
        nvim.exec_lua("require('bb7').setup({ layout = ... })", display.layout)
        review_on_the_bar(nvim, where, "local" if display.rows == 24 else "global")
        open_view(nvim, "first answer")
        files_panel_counts_what_it_hides(nvim, where)
        if display.layout == "split":
            # A long list leaves the conversation room (it had 5 rows at 24 lines).
            heights = nvim.exec_lua(HEIGHTS)
            assert heights[0] >= (9 if display.rows == 24 else 18), (where, heights)
        if display.rows == 24:
            edit_in_one_line(nvim, where)
        type_command(nvim, "BB7Chat")  # closed, for the next screen
        wait_for(nvim, f"not {OPEN}")
    all_fit(nvim)
    # An answer ending while the view is closed: a long chat name gives way to what to do.
    before = len(notifications(nvim))
    emit(
        nvim,
        ("request_started", {"request_id": 7, "chat_id": chat}),
        ("done", {"request_id": 7, "ok": True, "files": ["a.py", "b.py"], "message": ""}),
    )
    ready = wait_for_notification(nvim, "answer ready in", before)
    assert ready.startswith("bb7: answer ready in Hints, in a chat") and ready.endswith(
        "…: 2 files changed, :BB7Review"
    ), ready
    room = nvim.exec_lua("return vim.v.echospace")
    assert nvim.exec_lua("return vim.api.nvim_strwidth(...)", ready) <= room, ready
    # One file changed: named.
    before = len(notifications(nvim))
    emit(
        nvim,
        ("request_started", {"request_id": 8, "chat_id": chat}),
        ("done", {"request_id": 8, "ok": True, "files": [str(project / "a.py")], "message": ""}),
    )
    assert wait_for_notification(nvim, "answer ready in", before).endswith(
        ": a.py changed, :BB7Review"
    )

    # At 80x24 still: a message too long for its line gives its longest path away first (the
    # log has it whole).
    room -= len("bb7: ")

    def one_line(message: str) -> str:
        line, cut = nvim.exec_lua("return { require('bb7.log').one_line(...) }", message)
        assert cut and nvim.exec_lua("return vim.api.nvim_strwidth(...)", line) <= room, line
        return str(line)

    long = "some/deeply/nested/package/with/a/long/path/module_name.py"
    merged = one_line(f"{long}: merged; u undoes it, :w writes it")
    assert merged.startswith("…") and merged.endswith(
        "/module_name.py: merged; u undoes it, :w writes it"
    ), merged
    # The message of a merge taking some hunks (the issue's: it lost ":w writes them").
    took = one_line("src/pkg/d.py: took some hunks, the rest stays pending; :w writes them")
    assert took == "…/d.py: took some hunks, the rest stays pending; :w writes them", took
    undid = one_line(f"undid the apply of {long}; its change is pending again")
    assert undid.startswith("undid the apply of …") and undid.endswith(
        "py; its change is pending again"
    )
    # Too long with no path to give: its first sentence whole (what to do), the figures go.
    over = "Too large to send: drop files or messages, or start a new chat. The prompt is 9k"
    assert one_line(over) == "Too large to send: drop files or messages, or start a new chat."
    # A command's `!` ends no sentence: cut in the middle, what to do leads.
    held = "held by pid 42: :BB7Chat! takes it over (read-only here; it runs in a place far away)"
    assert one_line(held).startswith("held by pid 42: :BB7Chat! takes it over (read-only")
    # No sentence to keep: the end is cut, and the action leads, so it stays.
    near = "context nearly full: drop files or start a new chat\nThe prompt is about 1,000 ..."
    assert one_line(near) == "context nearly full: drop files or start a new chat (:BB7Log)"
