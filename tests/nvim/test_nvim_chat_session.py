"""A whole session in the chat view, against the real host and a real local provider, at
80x24 and 120x40 in both layouts: a chat held by another process read and taken over, an
answer that ends while the view is closed, the marker of a new answer below, a failed edit, an
apply refused over a conflict, apply all and undo, a :BB7Diff closed untouched, discard, the
model picker and effort, an undo refused, and Neovim reopened on a pending change. Every
message it prints fits one line of the command area, and the editor never waits for Enter."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chat_state import Seeded
from chat_view_helpers import (
    DISPLAYS,
    OPEN,
    Display,
    all_fit,
    answered,
    choosing,
    conversation,
    focus,
    gone,
    on_every_screen,
    on_screen,
    open_chat_list,
    open_view,
    pane_screen,
    send,
    wait_for_conversation,
    wait_for_screen,
)
from editor import (
    never_waiting,
    notifications,
    screen,
    type_command,
    wait_for,
    wait_for_notification,
    wait_for_status,
)

from bb7.files.fileid import entry_file_id
from llm_server import LLMServer, edits, finish, stream, text_chunk, tool_call, usage_chunk

A_TEXT = "one = 1\ntwo = 2\nthree = 3\n"
B_TEXT = "print('b')\n"


# The answers' states as `User BB7AnswerState` reports them.
STATES = """
_G.states = {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'BB7AnswerState',
  callback = function(ev) table.insert(_G.states, ev.data.state) end,
})
"""
MARK = "↓ new answer below: G"


def at_end(nvim: Any) -> None:
    """The conversation's cursor is on its last line."""
    assert nvim.exec_lua(
        "local c = require('bb7.chat') return vim.api.nvim_win_get_cursor(c.win('conversation'))[1]"
        " == vim.api.nvim_buf_line_count(c.buf('conversation'))"
    )


# Another bb7 process holding a chat (as tests/host/test_host_held.py makes one): it takes the
# lease with the real core and holds it until its stdin closes, then exits without giving it up.
HOLD = """
import sys
from pathlib import Path
from bb7.state import lock
from bb7.state.store import init_project
store = init_project(Path.cwd())
print(type(lock.acquire(store, sys.argv[1])).__name__, flush=True)
sys.stdin.read()
"""


def hold(project: Path, chat: str) -> subprocess.Popen[str]:
    """Starts a process that holds `chat` (read its first line to know it does)."""
    return subprocess.Popen(
        [sys.executable, "-c", HOLD, chat],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


@on_every_screen()
def test_a_whole_session_never_stops_at_press_enter(
    launch: Callable[..., Any], project: Path, server: LLMServer, display: Display
) -> None:
    seeded = Seeded(project)
    chat = seeded.chat("Session")
    seeded.add(chat, "a.py")
    seeded.add(chat, "b.py")
    seeded.store.close()
    holder = hold(project, chat)  # it starts while Neovim does
    nvim = on_screen(launch, display)
    nvim.exec_lua(
        "local layout, url = ... require('bb7').setup({ layout = layout,"
        " provider = { base_url = url, model = 'test/tools-model' } })",
        display.layout,
        server.base_url,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "Lease"
        held_then_taken(nvim, holder)
    finally:
        holder.communicate("")

    # 1. An answer that changes both files ends while the view is closed: one line says so,
    # the statusline shows it unread (●) until the view opens again, at the end.
    nvim.exec_lua(STATES)
    focus(nvim, "conversation")
    nvim.input("q")
    wait_for(nvim, f"not {OPEN}")
    both = edits(
        ("a.py", entry_file_id("a.py", A_TEXT), "two = 2", "two = 22"),
        ("b.py", entry_file_id("b.py", B_TEXT), "print('b')", "print('bee')"),
    )
    server.push(stream(text_chunk("Both."), *tool_call("edit_file", both), usage_chunk(900, 40)))
    nvim.exec_lua("require('bb7').send('Change both files')")
    wait_for_notification(nvim, "answer ready in Session: 2 files changed, :BB7Review")
    assert nvim.exec_lua("return require('bb7').statusline()") == "bb7 ●"
    assert any(row.endswith(" bb7 ●") for row in screen(nvim))  # as the statusline draws it
    open_view(nvim, "Assistant modified: b.py")
    at_end(nvim)
    assert nvim.exec_lua("return _G.states") == ["streaming", "unread", "idle"]
    never_waiting(nvim)

    # 2. An answer whose edit fails: said in the conversation, not in a message. The user
    # reads above while it streams: the place is kept, the bar says a new answer is below,
    # and its key goes there; ]u and [u go between the user's messages.
    bad = edits(("a.py", entry_file_id("a.py", A_TEXT), "no such line", "x"))
    server.push(
        stream(text_chunk("Oops."), {"gate": "rest"}, *tool_call("edit_file", bad), finish())
    )
    send(nvim, "And once more")
    wait_for_conversation(nvim, "Oops.")
    at_end(nvim)  # a send goes to the end
    assert nvim.exec_lua("return require('bb7').statusline()") == "bb7 ○"
    focus(nvim, "conversation", 1)
    server.open_gate("rest")
    answered(nvim, "• a.py")
    wait_for_screen(nvim, MARK)
    bar = pane_screen(nvim, "conversation")[0]
    assert bar.startswith(" " + MARK), bar  # the conversation's bar leads with it
    yours = [i + 1 for i, line in enumerate(conversation(nvim)) if line == "## You"]
    assert nvim.current.window.cursor[0] == 1 and len(yours) == 2
    nvim.input("]u]u")
    assert nvim.current.window.cursor[0] == yours[1]
    nvim.input("[u")
    assert nvim.current.window.cursor[0] == yours[0]
    nvim.input("G")
    at_end(nvim)
    assert not any(MARK in row for row in screen(nvim))
    # K: when the answer came, its model and effort, what it took (a float).
    nvim.input("K")
    rows = wait_for_screen(nvim, "test/model · effort the model default")
    assert any("answer of 20" in row for row in rows), "\n".join(rows)
    # Broken between words where the pane is narrow (the split layout), not mid-word.
    whole = any("no token counts" in row for row in rows)
    broken = any(row.endswith("no token │") for row in rows) and any(
        "│counts from the provider" in row for row in rows
    )
    assert whole or broken, "\n".join(rows)
    nvim.input("k")  # the float goes with the cursor's move
    never_waiting(nvim)

    # 3. A local change of the changed line makes a.py a conflict: :BB7Apply refuses it.
    (project / "a.py").write_text(A_TEXT.replace("two = 2", "two = 2.0"))
    nvim.command("doautocmd FocusGained")  # as when coming back from another program
    wait_for_status(nvim, project / "a.py", "~M")
    type_command(nvim, "BB7Apply a.py")
    wait_for_notification(nvim, "a.py has local changes (~M); :BB7Merge keeps both")

    # 4. Apply all: b.py lands, the conflict is skipped.
    type_command(nvim, "BB7ApplyAll")
    wait_for_notification(nvim, "applied 1 of 2 pending changes; skipped a.py (~M)")
    assert (project / "b.py").read_text() == "print('bee')\n"
    type_command(nvim, "BB7UndoApply b.py")  # the real undo of an apply
    wait_for_notification(nvim, "undid the apply of b.py; its change is pending again")
    assert (project / "b.py").read_text() == B_TEXT

    # 4b. :BB7Review b.py right after the undo: the model's line drawn under the file's own,
    # labelled, the review's keys on the window's bar; its q ends it.
    type_command(nvim, "BB7Review b.py")
    wait_for_notification(nvim, "reviewing b.py: 1 hunk")
    rows = wait_for_screen(nvim, "print('bee')")
    assert any("print('b') bb7 hunk 1/1" in row for row in rows), "\n".join(rows)
    assert any(row.startswith(" review 1/1 · ga accept · gr reject") for row in rows)
    nvim.input("q")
    gone(nvim, "print('bee')")

    # 5. :BB7Diff on the conflict: the user's own line is marked apart from the model's;
    # closed without taking anything, it says so and a.py stays the user's (~M).
    diff_taking_nothing(nvim, project)

    # 6. Discard a.py's change from the files panel (a confirm through vim.ui.select).
    wait_for_conversation(nvim, "Applied: b.py")
    focus(
        nvim,
        "files",
        nvim.exec_lua(
            "for i, l in ipairs(vim.api.nvim_buf_get_lines(require('bb7.chat').buf('files'), 0, -1,"
            " false)) do if l:find('a.py', 1, true) then return i end end"
        ),
    )
    nvim.input("x")
    nvim.input("1<CR>")  # Yes
    wait_for_conversation(nvim, "Discarded: a.py")
    never_waiting(nvim)

    # 7. The model picker and the reasoning effort, with Neovim's own vim.ui.select: it lists
    # the choices in the message area, where the next message must not wait below them.
    focus(nvim, "conversation")
    nvim.input("G")  # past the notes that came below (their marker leaves the bar no room)
    nvim.input("gm")
    choosing(nvim)
    nvim.input("2<CR>")  # test/plain-model
    wait_for_notification(nvim, "model of Session")
    nvim.input("ge")
    choosing(nvim)
    nvim.input("4<CR>")  # low
    wait_for_notification(nvim, "reasoning effort of Session")
    wait_for_screen(nvim, " · effort low")  # the conversation's bar shows it, whole
    bar = pane_screen(nvim, "conversation")[0]
    assert " · effort low" in bar and not bar.startswith("<"), bar

    if display == DISPLAYS[0]:  # messages only: the first screen's command line is the least
        # 8. Undo where nothing was applied: refused.
        type_command(nvim, "BB7UndoApply a.py")
        wait_for_notification(nvim, "no apply of a.py to undo")

        # 9. BB-7's habits: the version, the models list fetched again.
        type_command(nvim, "BB7Version")
        wait_for_notification(nvim, "bb7 0.1.0 (host pid ")
        type_command(nvim, "BB7RefreshModels")
        wait_for_notification(nvim, "models list refreshed: ")

    assert len(notifications(nvim)) >= 5, notifications(nvim)
    all_fit(nvim)

    # 10. Neovim opened again on b.py, whose change is pending: its M shows before any bb7
    # command (the chat is still held by the first Neovim): the sign on its line, the status
    # at the end of the statusline, at this screen's size (how soon: benchmarks/nvim_startup.py).
    fresh = on_screen(launch, display)
    fresh.exec_lua("require('bb7').setup()")
    fresh.command("edit b.py")
    wait_for_status(fresh, project / "b.py", "M")
    rows = screen(fresh)
    assert rows[0].endswith(" M print('b')") and rows[-2].endswith("b.py bb7:M"), rows
    never_waiting(fresh)


def held_then_taken(nvim: Any, holder: subprocess.Popen[str]) -> None:
    """The view opens read-only on the chat `holder` holds, with a banner naming it; the chat
    list marks it; once the holder is gone, `:BB7Chat!` takes the chat over without asking."""
    banner = f" ⊘ read-only, pid {holder.pid} · :BB7Chat!"
    open_view(nvim, "Context added: b.py")
    wait_for_screen(nvim, banner)
    bar = pane_screen(nvim, "input")[0]
    # Whole: Neovim cuts a bar too long for its pane with ">".
    assert bar.startswith(banner) and not bar.endswith(">"), bar
    assert not any("Message ·" in row for row in screen(nvim))
    rows = open_chat_list(nvim)
    assert any("⊘  Session" in row and f"held by pid {holder.pid} · " in row for row in rows)
    nvim.input("q")
    holder.communicate("")  # it exits without giving the chat up: its lease goes stale
    type_command(nvim, "BB7Chat!")
    wait_for_notification(nvim, 'took over "Session"')
    rows = wait_for_screen(nvim, "Message ·")
    assert not any("read-only" in row for row in rows), "\n".join(rows)
    never_waiting(nvim)


def diff_taking_nothing(nvim: Any, project: Path) -> None:
    type_command(nvim, "BB7Diff a.py")
    wait_for(nvim, "vim.wo.diff and vim.fn.tabpagenr('$') == vim.fn.tabpagenr()")
    rows = screen(nvim)
    mine = [row for row in rows if "two = 2.0" in row]
    assert len(mine) == 1 and "your edit" in mine[0], "\n".join(rows)
    assert sum("your edit" in row for row in rows) == 1  # the model's line is not marked
    assert any("two = 22" in row for row in rows)
    nvim.command("tabclose")
    wait_for_notification(nvim, "a.py: nothing taken; the change is still pending")
    assert not any("partly" in m for m in notifications(nvim))
    wait_for_status(nvim, project / "a.py", "~M")  # the user's edit is still theirs
    never_waiting(nvim)


C_TEXT = "".join(f"c{i} = {i}\n" for i in range(1, 9))


def test_merges_say_what_they_kept_in_one_whole_line(
    launch: Callable[..., Any], project: Path
) -> None:
    (project / "c.py").write_text(C_TEXT)
    (project / "d.py").write_text(C_TEXT)
    seeded = Seeded(project)
    chat = seeded.chat("Merges")
    for name in ("c.py", "d.py"):
        seeded.add(chat, name)
        changed = C_TEXT.replace("c2 = 2", "c2 = 'model'").replace("c5 = 5", "c5 = 'model'")
        seeded.model_writes(chat, name, changed)
    seeded.store.close()
    nvim = on_screen(launch)
    nvim.exec_lua("require('bb7').setup()")
    # :BB7Merge where both sides changed line 5: the rest is merged, line 5 left to review.
    nvim.command("edit c.py")
    nvim.input("5GA # mine<Esc>")
    type_command(nvim, "BB7Merge")
    wait_for_notification(nvim, "c.py: merged, except line 5: both changed them")
    # :BB7Diff taking one of two hunks: part merged.
    nvim.command("edit d.py")
    type_command(nvim, "BB7Diff")
    wait_for(nvim, "vim.wo.diff and vim.fn.tabpagenr('$') == 2")
    nvim.input("gg]cdo")
    wait_for(nvim, "vim.api.nvim_buf_get_lines(0, 1, 2, false)[1] == \"c2 = 'model'\"")
    nvim.command("tabclose")
    wait_for_notification(nvim, "d.py: took some hunks, the rest stays pending; :w writes them")
    all_fit(nvim)


def test_paste_without_a_clipboard_takes_the_unnamed_register(
    launch: Callable[..., Any], project: Path
) -> None:
    seeded = Seeded(project)
    seeded.add(seeded.chat("Pasting"), "a.py")
    seeded.store.close()
    # As on a server over SSH: no clipboard tool, so no "+" register to read.
    nvim = on_screen(launch, cmd=("let g:loaded_clipboard_provider = 1",))
    nvim.exec_lua("require('bb7').setup()")
    answer = "a.py\n<<<<<<< SEARCH\ntwo = 2\n=======\ntwo = 22\n>>>>>>> REPLACE\n"
    nvim.funcs.setreg('"', answer)  # yanked in Neovim
    type_command(nvim, "BB7Paste")
    wait_for_notification(nvim, "pasted, to review: a.py")
    type_command(nvim, "BB7Paste +")
    wait_for_notification(nvim, "register + needs a clipboard provider")
    all_fit(nvim)


def test_a_send_that_cannot_list_the_models_says_so_in_one_whole_line(
    launch: Callable[..., Any], project: Path
) -> None:
    seeded = Seeded(project)
    seeded.chat("Offline")
    seeded.store.close()
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    nvim = on_screen(launch)
    nvim.exec_lua(
        "require('bb7').setup({ provider = { base_url = ..., retries = 0 } })",
        url,
    )
    open_view(nvim, "")
    send(nvim, "Anyone there?")
    answered(nvim, "The request failed")  # why, in the conversation
    wait_for_notification(nvim, "no models list: tool support and context size unknown")
    all_fit(nvim)
