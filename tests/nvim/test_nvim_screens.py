"""What the chat view draws that depends on the screen's size or the layout, at 80x24 and
120x40 in both layouts, in one real Neovim with a UI attached, resized between them (the
whole sitting, test_nvim_chat_session.py, starts one Neovim per screen for the rest): the
conversation's bar whole with the chat's effort, the retry banner wrapped under its text, the
input's bar (the retry note, `gr resends` after an error), every file in the files panel, the
diffs `<C-n>` steps through from the conversation, and the chat search's excerpts cut before
their date."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import (
    DISPLAYS,
    OPEN,
    open_chat_list,
    open_view,
    pane_screen,
    wait_for_screen,
    with_ui,
)
from editor import VERSIONS, type_command, wait_for

from bb7.state import chats
from bb7.state.records import Message, TextPart, Usage
from waits import until

FILES = ("a.py", "b.py", "c.py", "d.py", "e.py")
CHANGED = ("c.py", "e.py")  # pending changes, as an answer left them
ERROR = "The request failed: The provider refused the request (HTTP 500: boom)."


def seed(project: Path) -> None:
    """Two chats: "Ended", whose last send failed, and the active "Repairs": five files, a
    long question, an answer with totals, the effort high and a failed edit to repair."""
    for name in FILES[2:]:
        (project / name).write_text(f"{name[0]} = 1\n")
    seeded = Seeded(project)
    ended = seeded.chat("Ended")
    seeded.ask(ended, "how do tokenizers split words")
    chats.append_message(seeded.store, ended, Message(role="system", parts=[TextPart(ERROR)]))
    chat = seeded.chat("Repairs")
    for name in FILES:
        seeded.add(chat, name)
    seeded.ask(chat, "and tokenizers of a language that writes very long words, " * 2)
    usage = Usage(prompt_tokens=1234, completion_tokens=56, cost=0.0031)
    seeded.answer(chat, "done", model="test/model", usage=usage)
    seeded.store.update_chat(
        chat, reasoning_effort="high", retry_context="the edit of a.py did not match"
    )
    for name in CHANGED:
        seeded.model_writes(chat, name, f"{name[0]} = 2\n")
    seeded.store.close()


HEIGHTS = """
local heights = {}
for _, pane in ipairs({ 'conversation', 'files', 'input' }) do
  heights[pane] = vim.fn.winheight(require('bb7.chat').win(pane))
end
return heights
"""


def bar_showing(nvim: Any, pane: str, needle: str) -> str:
    """The bar of `pane` once it shows `needle`."""

    def bar() -> str:
        drawn = pane_screen(nvim, pane)[0]
        return drawn if needle in drawn else ""

    return until(bar, f"{needle!r} on the {pane} bar")


def row_after(rows: list[str], start: str) -> int:
    (found,) = [i for i, row in enumerate(rows) if row.startswith(start)]
    return found


@pytest.mark.parametrize("nvim_binary", VERSIONS[-1:], indirect=True)
def test_the_view_draws_whole_at_every_screen_and_layout(
    launch: Callable[..., Any], project: Path
) -> None:
    seed(project)
    nvim = with_ui(launch())
    for display in DISPLAYS:
        nvim.command(f"set lines={display.rows} columns={display.cols}")
        nvim.ui_try_resize(display.cols, display.rows)
        nvim.exec_lua("require('bb7').setup({ layout = ... })", display.layout)
        open_view(nvim, "done")
        where = f"at {display}"

        bar, *rows = pane_screen(nvim, "conversation")
        # Neovim cuts a bar too long for its pane: "<" at its start, ">" at its end.
        assert " · effort high" in bar and bar[1] != "<" and bar[-1] != ">", (where, bar)
        banner = row_after(rows, "⚠ The last answer's file changes")
        end = rows.index("", banner) if "" in rows[banner:] else len(rows)
        # Whole on screen, at the end, and wrapped under its text, not at the left edge.
        assert rows[end - 1].endswith("them.") and not any(rows[end:]), (where, rows)
        assert all(row.startswith("  ") for row in rows[banner + 1 : end]), (where, rows)
        (bar,) = pane_screen(nvim, "input")[:1]
        assert bar == " ⚠ next send repairs edits · gR drop", (where, bar)
        files = pane_screen(nvim, "files")
        shown = [f for f in FILES if any(re.search(rf" {f} +\d+$", row) for row in files)]
        assert shown == list(FILES), (where, files)  # each with its tokens
        if display.layout == "split":
            # The conversation gets what the input and the files panel leave: the input keeps
            # its height (2 lines of text on a short screen), the panel its five files.
            heights = nvim.exec_lua(HEIGHTS)
            assert heights["input"] == (2 if display.rows < 30 else 5), (where, heights)
            bars = 7  # a bar and a status line per pane, the command line
            assert heights["conversation"] == display.rows - bars - 5 - heights["input"], (
                where,
                heights,
            )

        # <C-n> from the conversation: the next changed file's diff in a float, whole on the
        # screen; again: the one after (round the end), `q` closes it.
        nvim.exec_lua("require('bb7.chat').focus('conversation')")
        for name in (*CHANGED, CHANGED[0]):
            nvim.input("<C-n>")
            rows = wait_for_screen(nvim, f" {name} ")
            (top,) = [i for i, row in enumerate(rows) if "╭" in row and f" {name} " in row]
            body = rows[top + 1 : rows.index(next(r for r in rows[top:] if "╰" in r))]
            assert any(f"+{name[0]} = 2" in row for row in body), (where, rows)
            assert all(len(row) <= display.cols for row in rows), (where, rows)
        nvim.input("q")
        wait_for(nvim, "vim.api.nvim_win_get_config(0).relative == ''")

        # The chat search: each excerpt cut a space before its date.
        open_chat_list(nvim)
        nvim.input("/tokenizer<CR>")
        rows = wait_for_screen(nvim, 'chats matching "tokenizer"')
        dated = [row for row in rows if re.search(r" — .* \d{4}-\d\d-\d\d \d\d:\d\d", row)]
        assert len(dated) == 2 and all(len(row) <= display.cols for row in rows), "\n".join(rows)
        assert any(re.search(r"tokenizers .*… \d{4}-\d\d", row) for row in dated), (where, rows)
        # The chat whose send failed: the input's bar names the key that sends it again.
        listed = nvim.current.buffer[:]
        nvim.input(f"{next(i for i, line in enumerate(listed) if 'Ended' in line) + 1}G<CR>")
        wait_for_screen(nvim, ERROR[:30])
        # With the estimate (it comes a moment later): shortened, cut or left out to fit, the
        # send key kept.
        wait_for(nvim, "require('bb7.chat').state().estimate ~= nil")
        bar = bar_showing(nvim, "input", "<CR> send")
        assert bar.startswith(" Message · gr resends · "), (where, bar)
        assert display.cols < 100 or " tok" in bar, (where, bar)
        open_chat_list(nvim)
        listed = nvim.current.buffer[:]
        nvim.input(f"{next(i for i, line in enumerate(listed) if 'Repairs' in line) + 1}G<CR>")
        wait_for_screen(nvim, "⚠ next send repairs edits")
        type_command(nvim, "BB7Chat")  # closed, for the next screen
        wait_for(nvim, f"not {OPEN}")
