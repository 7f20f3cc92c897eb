"""A newcomer's second sitting, in one real Neovim with a screen resized through 80x24 and
120x40 in both layouts, against a scripted provider: at each screen a merge over the user's own
edit says one thing and draws its hunk's label whole, a paste onto a file newer than the chat's
copy is made on the file, `:BB7Add buffers` adds what it can and names what it skipped,
a file that looks like a secret chosen in telescope asks once and then says one line,
`:edit` typed in the chat opens beside it, the usage line breaks between its parts, the
input's bar keeps its send key, and every message fits one line without a wait for Enter.
Then the wording: the Python version, the models count, a context in thousands, the prompt
view's total with the cache, and a new chat with files that does not ask for files. (Taking a
chat over: test_nvim_held.py.)"""

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
    choosing,
    conversation,
    focus,
    on_screen,
    pane_screen,
    wait_for_conversation,
    wait_for_screen,
)
from editor import (
    VERSIONS,
    never_waiting,
    notifications,
    screen,
    type_command,
    wait_for,
    wait_for_notification,
)

from bb7.state.records import Usage
from llm_server import DEFAULT_MODELS, LLMServer

C_TEXT = "".join(f"c{i} = {i}\n" for i in range(1, 9))
MODELS = [*DEFAULT_MODELS, {"id": "test/tiny-model", "context_length": 1500}]
SETUP = (
    "local layout, url, picker = ... require('bb7').setup({ layout = layout, picker = picker,"
    " provider = { base_url = url, model = 'test/tools-model' } })"
)
STUBS = Path(__file__).parent / "stubs"  # telescope, as test_nvim_integrations.py uses it
PASTE = "g{i}.py\n<<<<<<< SEARCH\nNAME = 'world'\n=======\nNAME = 'you'\n>>>>>>> REPLACE\n"


def seed(project: Path) -> None:
    """The chat "Tea": per screen a file the model changed (lines 2 and 5) and one whose chat
    copy is older than the file (the user undid the change the chat took); an answer with its
    usage; a README and the project's instructions to open."""
    seeded = Seeded(project)
    chat = seeded.chat("Tea")
    for i in range(len(DISPLAYS)):
        (project / f"c{i}.py").write_text(C_TEXT)
        seeded.add(chat, f"c{i}.py")
        seeded.model_writes(
            chat, f"c{i}.py", C_TEXT.replace("c2 = 2", "c2 = 22").replace("5", "55")
        )
        (project / f"g{i}.py").write_text("NAME = 'bb7'\n")
        seeded.add(chat, f"g{i}.py")
        (project / f"g{i}.py").write_text("NAME = 'world'\n")
        (project / f"n{i}.py").write_text("n = 1\n")
        (project / f".env.{i}").write_text("TOKEN=abc\n")
    seeded.ask(chat, "how much?")
    usage = Usage(
        prompt_tokens=12000, completion_tokens=350, cost=0.012, duration=4.1, first_token=0.4
    )
    long = "done\n\n" + "".join(f"- point {n}\n" for n in range(60))  # longer than a screen
    seeded.answer(chat, long, model="test/tools-model", usage=usage)
    seeded.store.close()
    (project / "README.md").write_text("# read me\n")
    (project / ".bb7" / "instructions").write_text("Be brief.\n")


def numbered(rows: list[str], needle: str) -> int:
    """The number Neovim's built-in vim.ui.select gives the choice holding `needle`."""
    (row,) = [r for r in rows if needle in r and r[:1].isdigit()]
    return int(row.split(":", 1)[0])


@pytest.mark.parametrize("nvim_binary", VERSIONS[-1:], indirect=True)
def test_a_second_sitting_says_each_thing_once_and_whole_at_every_screen(
    launch: Callable[..., Any], project: Path
) -> None:
    seed(project)
    with LLMServer(models=MODELS) as server:
        nvim = on_screen(launch)
        nvim.exec_lua("vim.opt.runtimepath:prepend(...)", str(STUBS))
        for i, display in enumerate(DISPLAYS):
            where = f"at {display}"
            nvim.command(f"set lines={display.rows} columns={display.cols}")
            nvim.ui_try_resize(display.cols, display.rows)
            nvim.exec_lua(SETUP, display.layout, server.base_url, "telescope")
            type_command(nvim, "BB7Chat")
            wait_for(nvim, OPEN)
            wait_for_conversation(nvim, "done")

            # The usage line breaks between its parts, never inside a number.
            focus(nvim, "conversation")
            nvim.command("call search('first token') | normal! zz")
            rows = pane_screen(nvim, "conversation")
            assert any("4.1 s (first token 0.4 s)" in row for row in rows), (where, rows)

            # :edit typed in the chat opens the file beside it; the pane keeps its buffer.
            focus(nvim, "input")
            type_command(nvim, "edit README.md")
            wait_for(nvim, "vim.fn.expand('%:t') == 'README.md' and vim.w.bb7_pane == nil")
            assert nvim.exec_lua(
                "local c = require('bb7.chat') return vim.api.nvim_win_get_buf(c.win('input'))"
                " == c.buf('input')"
            ), where
            never_waiting(nvim)

            # A merge over the user's own edit: one message; the hunk's label whole.
            before = len(notifications(nvim))
            nvim.command(f"edit c{i}.py")
            nvim.input("5GA # mine<Esc>")
            type_command(nvim, "BB7Merge")
            wait_for_notification(
                nvim, f"c{i}.py: merged, except line 5: both changed them", before
            )
            wait_for_screen(nvim, "bb7 hunk 1/1: over your own edit")
            assert len(notifications(nvim)) == before + 1, notifications(nvim)[before:]
            nvim.input("q")  # ends the review

            # A paste onto a file newer than the chat's copy is made on the file.
            nvim.funcs.setreg('"', PASTE.format(i=i))
            type_command(nvim, "BB7Paste")
            wait_for_notification(
                nvim, f"pasted, to review: g{i}.py (edited as the file is now)", before
            )

            # The open buffers: what can be added is, the rest named with why.
            nvim.command(f"edit n{i}.py | split .bb7/instructions | bwipeout! c{i}.py README.md")
            type_command(nvim, "BB7Add buffers")
            wait_for_notification(
                nvim, f"skipped .bb7/instructions (bb7's own); added n{i}.py to Tea"
            )
            nvim.command("bwipeout .bb7/instructions")

            # A file that looks like a secret, chosen in telescope: asked, then one line.
            focus(nvim, "input")
            before = len(notifications(nvim))
            type_command(nvim, "BB7Add")
            wait_for(nvim, "next(require('telescope.pickers').open) ~= nil")
            files = nvim.exec_lua(
                "local _, picker = next(require('telescope.pickers').open)"
                " return vim.tbl_map(function(e) return e.value end, picker.finder.entries)"
            )
            nvim.input("<Down>" * files.index(f".env.{i}") + "<Tab><CR>")
            choosing(nvim)
            nvim.input("1<CR>")
            wait_for_notification(nvim, f"added .env.{i} (writable) to Tea", before)
            assert len(notifications(nvim)) == before + 1, notifications(nvim)[before:]

            type_command(nvim, "BB7Version")
            wait_for_notification(nvim, "(host pid ", before)
            assert any(", Python 3." in m for m in notifications(nvim)[before:]), notifications(
                nvim
            )[before:]
            never_waiting(nvim)
            all_fit(nvim)
            # The input's bar keeps the send key, whatever the estimate leaves.
            focus(nvim, "input")  # back to the view
            wait_for(nvim, "require('bb7.chat').state().estimate ~= nil")
            bar = pane_screen(nvim, "input")[0]
            assert "<CR> send" in bar and not bar.endswith(">"), (where, bar)
            nvim.exec_lua("require('bb7.chat').close()")
            nvim.command("silent! tabonly | silent! only")
        nvim.exec_lua(SETUP, DISPLAYS[-1].layout, server.base_url, "select")

        # The prompt log: off by default, said so when opened.
        type_command(nvim, "BB7Log prompts")
        wait_for_notification(
            nvim, "the prompt log is off: setup({ log_prompts = true }) keeps one"
        )
        assert nvim.exec_lua("return vim.fn.expand('%:t')") == "bb7-prompts.log"
        nvim.command("tabclose")
        # The wording, once.
        type_command(nvim, "BB7RefreshModels")
        wait_for_notification(nvim, "models list refreshed: 3 models")
        type_command(nvim, "BB7Chat")
        wait_for(nvim, OPEN)
        focus(nvim, "conversation")
        nvim.input("gm")
        choosing(nvim)
        assert any("test/tiny-model  (1.5k context" in row for row in screen(nvim))
        # Its last item marks a favourite, which then comes first.
        nvim.input(f"{numbered(screen(nvim), 'mark or unmark a favourite')}<CR>")
        choosing(nvim)
        nvim.input(f"{numbered(screen(nvim), 'test/tiny-model')}<CR>")
        wait_for_notification(nvim, "test/tiny-model is a favourite now")
        choosing(nvim)
        assert numbered(screen(nvim), "★ test/tiny-model") == 1
        nvim.input("<Esc>")
        # BB-7's habits: the first line says when the chat started and with what; K there (and
        # g3 anywhere) says which project; g1-g5 go to its panes; <C-d>/<C-u> in the input
        # scroll the conversation.
        first = conversation(nvim)[0]
        assert (
            first.startswith("Chat started ") and " with 8 files: c0.py, g0.py, c1.py (+5" in first
        )
        focus(nvim, "conversation", 1)
        nvim.input("K")
        rows = wait_for_screen(nvim, "project:")  # its path, wrapped in a narrow pane
        assert any(row.rstrip(" │").endswith("/project") for row in rows), rows
        focus(nvim, "input")
        nvim.input("g1")
        wait_for_screen(nvim, "bb7 chats")
        nvim.input("q")
        for key, pane in (("g2", "files"), ("g4", "conversation"), ("g5", "input")):
            nvim.input(key)
            wait_for(nvim, f"vim.api.nvim_get_current_win() == require('bb7.chat').win('{pane}')")
        top = "vim.fn.getwininfo(require('bb7.chat').win('conversation'))[1].topline"
        assert nvim.exec_lua(f"return {top}") == 1  # K was asked on its first line
        nvim.input("<C-d>")
        wait_for(nvim, f"{top} > 1")
        nvim.input("<C-u>")
        wait_for(nvim, f"{top} == 1")
        nvim.input("g3")
        wait_for_screen(nvim, "in its context")
        focus(nvim, "conversation")
        nvim.input("gP")
        rows = wait_for_screen(nvim, "next request · ~")
        (title,) = [row for row in rows if "next request · ~" in row]
        assert "cached) · ~$0.0" in title and "e-0" not in "".join(rows), title
        nvim.input("q")
        nvim.input("gN")  # a new chat with this one's files: it does not ask for files
        wait_for_notification(nvim, "new chat with the same context (")
        wait_for(
            nvim,
            "#vim.api.nvim_buf_get_lines(require('bb7.chat').buf('conversation'),"
            " 0, -1, false) == 1",
        )
        rows = wait_for_screen(nvim, "A new chat: write below")
        assert not any(":BB7Add" in row for row in rows), rows
        # The chat search in the picker (here Neovim's own): the chosen chat is shown.
        type_command(nvim, "BB7Search much")
        choosing(nvim)
        nvim.input(f"{numbered(screen(nvim), 'Tea — how much?')}<CR>")
        wait_for_conversation(nvim, "- point 59")
        never_waiting(nvim)
        all_fit(nvim)
