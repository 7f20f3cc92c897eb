"""A chat two real Neovims share, each with a screen, at 80x24 and 120x40 in both layouts (one
pair of editors resized between them; the older Neovim at 80x24 only): the second opens it
read-only with a banner naming the first one's host, the chat list marks it, a send is refused
in one line that says what to do, `:BB7Chat!` asks before taking it from a Neovim that runs.
Taken over, the other Neovim turns read-only in place: its answer stops, its host lives on,
its typed text stays (and is the chat's draft once its `:BB7Chat!` takes the chat back), and
nothing waits for Enter. A quitting Neovim gives the chat up, and then `:BB7Chat!` takes it
without asking."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import (
    DISPLAYS,
    OPEN,
    STREAMING,
    Display,
    all_fit,
    focus,
    on_screen,
    open_chat_list,
    pane_screen,
    send,
    wait_for_conversation,
    wait_for_screen,
)
from editor import (
    NVIMS,
    VERSIONS,
    never_waiting,
    notifications,
    type_command,
    wait_for,
    wait_for_notification,
)

from llm_server import LLMServer, finish, stream, text_chunk

INPUT = "vim.api.nvim_buf_get_lines(require('bb7.chat').buf('input'), 0, -1, false)"
LIST_HIGHLIGHTS = """
local ns = require('bb7.chat.chats').ns
local marks = vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })
return vim.iter(marks):map(function(m) return m[4].line_hl_group end):totable()
"""
SETUP = (
    "local layout, url = ... require('bb7').setup({ layout = layout,"
    " provider = { base_url = url, model = 'test/tools-model' } })"
)


def host_pid(nvim: Any) -> int:
    pid: int = nvim.exec_lua("return require('bb7.backend').status().info.pid")
    return pid


def typed(nvim: Any) -> list[str]:
    lines: list[str] = nvim.exec_lua(f"return {INPUT}")
    return lines


def stored_draft(project: Path) -> str:
    with sqlite3.connect(project / ".bb7" / "bb7.db") as db:
        (draft,) = db.execute("SELECT draft FROM chats").fetchone()
    return str(draft)


def show(nvim: Any, display: Display, url: str) -> None:
    """The view again at `display`'s size and layout (closed first: the layout applies on
    opening)."""
    nvim.exec_lua("require('bb7.chat').close()")
    nvim.command(f"set lines={display.rows} columns={display.cols}")
    nvim.ui_try_resize(display.cols, display.rows)
    nvim.exec_lua(SETUP, display.layout, url)
    type_command(nvim, "BB7Chat")
    wait_for(nvim, OPEN)


@pytest.mark.parametrize("nvim_binary", VERSIONS, indirect=True)
def test_a_chat_two_neovims_share_is_read_only_in_one_and_taken_back_and_forth(
    launch: Callable[..., Any], project: Path, nvim_binary: Path
) -> None:
    seeded = Seeded(project)
    seeded.add(seeded.chat("Session"), "a.py")
    seeded.store.close()
    newest = nvim_binary == NVIMS[VERSIONS[-1]]
    with LLMServer() as server:
        first = on_screen(launch)
        show(first, DISPLAYS[0], server.base_url)
        wait_for_conversation(first, "Context added: a.py")
        second = on_screen(launch)
        show(second, DISPLAYS[0], server.base_url)
        opened_read_only(second, host_pid(first), project)
        pids = {id(first): host_pid(first), id(second): host_pid(second)}

        holder, taker = first, second
        for i, display in enumerate(DISPLAYS if newest else DISPLAYS[:1]):
            where = f"at {display}"
            for nvim in (holder, taker):
                show(nvim, display, server.base_url)
            if i == 0:  # an answer streams in the holder when the chat is taken from it
                server.push(stream(text_chunk("Hel"), {"gate": "g"}, text_chunk("lo"), finish()))
                send(holder, "first")
                wait_for(holder, STREAMING)
            focus(holder, "input")
            holder.input(f"ggdGidraft {i}<Esc>")
            kept = typed(taker)
            before = len(notifications(holder))
            taken_over(taker, pids[id(holder)])
            assert typed(taker) == kept, where  # and it is the chat's draft now
            deadline = time.monotonic() + 5
            while stored_draft(project) != "\n".join(kept):
                assert time.monotonic() < deadline, (where, stored_draft(project), kept)
                time.sleep(0.02)

            # The holder turns read-only in place: one line says who has it and how to take it
            # back, the banner names that Neovim's host, the typed text stays.
            by = pids[id(taker)]
            lost = wait_for_notification(
                holder, f'pid {by} took "Session" over: :BB7Chat! takes it back', before
            )
            assert lost.startswith("bb7: pid"), (where, lost)
            wait_for_screen(holder, f" ⊘ read-only, pid {by} · :BB7Chat!")
            bar = pane_screen(holder, "input")[0]
            assert bar.startswith(f" ⊘ read-only, pid {by} · :BB7Chat!"), (where, bar)
            assert not bar.endswith(">"), (where, bar)  # Neovim cuts a bar too long with ">"
            assert typed(holder) == [f"draft {i}"], where
            if i == 0:  # its answer ended, its host lives on
                wait_for(holder, f"not {STREAMING}")
                server.open_gate("g")
                assert holder.exec_lua("return require('bb7.backend').state()") == "ready"
                assert host_pid(holder) == pids[id(holder)]
            # A send is refused in one line; the text stays.
            focus(holder, "input")
            holder.input("<CR>")
            wait_for_notification(
                holder, f"held by pid {by}: :BB7Chat! takes it over (read-only here)", before
            )
            assert typed(holder) == [f"draft {i}"], where
            for nvim in (holder, taker):
                never_waiting(nvim)
                assert not [m for m in notifications(nvim) if "Invalid channel" in m], (
                    notifications(nvim)
                )
                all_fit(nvim)
            holder, taker = taker, holder  # the one that lost it takes it back next

    # Quitting stops the holder's host, which gives the chat up: the other takes it at once.
    holder.exec_lua("vim.api.nvim_exec_autocmds('VimLeavePre', {})")
    released(project, pids[id(holder)])
    before = len(notifications(taker))
    type_command(taker, "BB7Chat!")
    wait_for_notification(taker, "took over", before)
    rows = wait_for_screen(taker, "Message ·")
    assert not any("read-only" in r for r in rows)


def opened_read_only(nvim: Any, pid: int, project: Path) -> None:
    """The view on a chat `pid`'s Neovim holds: the banner, the list's mark, a refused send, and
    `:BB7Chat!` answered No."""
    banner = f" ⊘ read-only, pid {pid} · :BB7Chat! takes it over · "
    rows = wait_for_screen(nvim, banner)
    # Where it runs comes last, cut from the left to fit: the project's name stays.
    (row,) = [r for r in rows if banner in r]
    assert row.endswith("/project") or row.endswith(f"in {project}")
    assert not any("Message ·" in row for row in rows)

    listed = open_chat_list(nvim)
    (row,) = [r for r in listed if "held by" in r]  # the banner shows under the float too
    assert "⊘  Session " in row and f"held by pid {pid} · " in row
    assert nvim.exec_lua(LIST_HIGHLIGHTS) == ["BB7ChatHeld"]  # its name is dimmed
    nvim.input("q")

    focus(nvim, "input")
    nvim.input("ihello<Esc><CR>")  # <CR> in the input sends
    wait_for_notification(nvim, f"bb7: held by pid {pid}: :BB7Chat! takes it over", 0)
    assert typed(nvim) == ["hello"]  # nothing typed is lost

    # While the holder runs, :BB7Chat! asks first; No leaves the chat read-only.
    type_command(nvim, "BB7Chat!")
    wait_for_screen(nvim, f"Take the chat over from pid {pid} (still running; its sending stops)?")
    nvim.input("2<CR>")
    assert not [n for n in notifications(nvim) if "took over" in n]


def taken_over(nvim: Any, pid: int) -> None:
    """`:BB7Chat!` taking the chat from the running Neovim whose host is `pid`."""
    before = len(notifications(nvim))
    type_command(nvim, "BB7Chat!")
    wait_for_screen(nvim, f"Take the chat over from pid {pid}")
    nvim.input("1<CR>")
    wait_for_notification(nvim, 'took over "Session"', before)
    wait_for_screen(nvim, " Message · ")


def released(project: Path, pid: int) -> None:
    """Waits until the exiting host `pid` has given its lease up (not left it to go stale; a
    killed holder's lease is taken over as stale: tests/host/test_host_held.py). A loaded
    machine may take seconds to run the host's exit."""
    deadline = time.monotonic() + 20
    while True:
        with sqlite3.connect(project / ".bb7" / "bb7.db") as db:
            leases = db.execute("SELECT count(*) FROM leases WHERE pid = ?", (pid,)).fetchone()
        if leases == (0,):
            return
        assert time.monotonic() < deadline, leases
        time.sleep(0.02)
