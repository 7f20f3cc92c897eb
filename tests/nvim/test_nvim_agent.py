"""A sitting with an agent (`:BB7Agent`), the scripted ACP agent playing it: the turn streams
into the chat view (thoughts, text, tool calls updated in place with their diff, the plan), the
agent's question is answered by a key, its write is pending (`M`, the disk untouched), its own
disk write is reviewable in place and undone with the user's edit kept, and a cancel and a crash
each end in one line with what was pending kept."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from chat_view_helpers import (
    answered,
    conversation,
    files_panel,
    send,
    wait_for_conversation,
    wait_for_screen,
    with_ui,
)
from editor import run, type_command, wait_for

from acp_agent import command, logged
from bb7.state.store import init_project
from neovims import NVIMS, VERSIONS

A_TEXT = "one = 1\ntwo = 2\nthree = 3\n"
NEW_A = A_TEXT.replace("two = 2", "two = 22")
HELLO = "def greet():\n    print('hello')\n\n\ngreet()\n"
NEW_HELLO = HELLO.replace("'hello'", "'hello, world'")

SLOW = 30_000  # ms: waits that follow events, for a machine under load
STREAMING = "require('bb7.chat.view').streaming()"
PANEL = "vim.api.nvim_buf_get_lines(require('bb7.chat').buf('files'), 0, -1, false)"
PANEL_HAS = "vim.tbl_contains(" + PANEL + ", {!r})"

TURNS = [
    [
        {"think": "a.py first"},
        {"say": "Reading a.py."},
        {"read": "a.py"},
        {"write": "a.py", "content": NEW_A},
        {"read": "a.py"},
        {"ask": "Edit hello.py", "kind": "edit"},
        {
            "tool": "t1",
            "title": "hello.py",
            "kind": "edit",
            "status": "in_progress",
            "diff": ["hello.py", HELLO, NEW_HELLO],
        },
        {"disk": "hello.py", "content": NEW_HELLO},
        {"tool_update": "t1", "status": "completed"},
        {"plan": [["read a.py", "completed"], ["greet the world", "in_progress"]]},
        {"say": " Done."},
    ],
    [{"say": "Working on it"}, {"wait_cancel": True}],
    [{"write": "b.py", "content": "print('B')\n"}, {"crash": 5}],
]


def test_an_agent_edits_through_the_sandbox_in_one_sitting(
    launch: Any, project: Path, tmp_path: Path, nvim_binary: Path
) -> None:
    (project / "hello.py").write_text(HELLO)
    git = ["git", "-C", str(project)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "a.py", "b.py", "hello.py"], check=True)
    init_project(project).close()
    argv, log = command(tmp_path / "agent", {"turns": TURNS})
    nvim = with_ui(launch(), "{ agents = { scripted = { cmd = ... } } }", argv)
    nvim.command("edit hello.py")
    # The agents found here (:BB7Agent completes them, :checkhealth bb7 lists them).
    assert "scripted" in nvim.exec_lua("return require('bb7.agents').found()")

    # :BB7Agent opens a chat with it; the turn streams in.
    type_command(nvim, "BB7Agent scripted")
    wait_for(nvim, "require('bb7.chat').is_open()", SLOW)
    send(nvim, "Make two 22 and greet the world")
    # Generous waits: the agent is a process of its own, started now (slow on a busy machine).
    rows = wait_for_screen(nvim, "? scripted asks: Edit hello.py (edit)?", SLOW)
    assert any("Reading a.py." in r for r in rows)
    asked = "? scripted asks: Edit hello.py (edit)? y allow once · a always · n reject"
    assert asked in conversation(nvim)
    nvim.input("y")  # answered by a key, in the chat view
    wait_for(nvim, f"not {STREAMING}", SLOW)
    answered(nvim, "Done.")
    lines = conversation(nvim)
    assert "## Assistant · scripted" in lines
    assert "✓ edit · hello.py · completed" in lines
    assert "-    print('hello')" in lines and "+    print('hello, world')" in lines
    assert "- [x] read a.py" in lines and "- [~] greet the world" in lines
    assert "Assistant modified: a.py" in lines
    assert "Agent changed on disk: hello.py (:BB7Review, :BB7UndoApply)" in lines
    wait_for(nvim, PANEL_HAS.format("M  a.py"), SLOW)
    # The agent's write is pending (the disk untouched); its reads saw the disk, then its own
    # pending text; its question got the answer.
    assert (project / "a.py").read_text() == A_TEXT
    assert [e["answer"]["result"]["content"] for e in logged(log, "read")] == [A_TEXT, NEW_A]
    assert logged(log, "asked")[0]["answer"]["result"]["outcome"]["optionId"] == "once"

    # Its own disk write: the buffer reloaded, the change reviewable in place, and marked so
    # in the files panel and the statusline until it is reviewed or undone.
    wait_for(nvim, PANEL_HAS.format("   hello.py  agent"), SLOW)
    nvim.command("tabnew hello.py")
    assert nvim.current.buffer[:] == NEW_HELLO.splitlines()
    assert nvim.exec_lua("return require('bb7').statusline()") == "bb7:agent"
    type_command(nvim, "BB7Review")
    rows = wait_for_screen(nvim, "bb7 agent hunk 1/1", SLOW)
    assert any(r.strip() == "print('hello')" for r in rows), rows  # the line from before
    nvim.input("q")
    # The user edits another line, saves; undo puts the agent's line back and keeps theirs.
    nvim.current.buffer[4] = "greet()  # mine"
    nvim.command("write")
    said = run(nvim, "BB7UndoApply")
    assert said == "bb7: undid the apply of hello.py; its change is pending again", said
    wait_for(nvim, "vim.api.nvim_buf_get_lines(0, 1, 2, false)[1] == \"    print('hello')\"", SLOW)
    assert (project / "hello.py").read_text() == HELLO.replace("greet()\n", "greet()  # mine\n")
    wait_for(nvim, "require('bb7').statusline() == 'bb7:M'", SLOW)  # pending again

    # The bars name the agent and price no request: the agent gets the message alone.
    bar, input_bar = nvim.exec_lua(
        "local v = require('bb7.chat.view')"
        " return { vim.wo[v.win('conversation')].winbar, vim.wo[v.win('input')].winbar }"
    )
    assert " scripted" in bar and "claude" not in bar, bar
    assert " tok" not in input_bar, input_bar

    if nvim_binary != NVIMS[VERSIONS[-1]]:
        # What follows is the host's and the agent's (a turn's end, as any send's, is drawn by
        # the same Lua on every version): the newest Neovim alone runs it.
        return
    # A cancel: one line; a crash: one line, and what it wrote stays pending.
    nvim.command("tabprevious")
    send(nvim, "Another thing")
    wait_for_conversation(nvim, "Working on it", SLOW)
    type_command(nvim, "BB7Cancel")
    wait_for(nvim, f"not {STREAMING}", SLOW)
    answered(nvim, "Turn cancelled: scripted stopped its turn")
    assert any(e["received"].get("method") == "session/cancel" for e in logged(log, "received"))
    send(nvim, "And b.py")
    wait_for_conversation(nvim, "The agent failed: ", SLOW)
    answered(nvim, "The agent failed: ")
    failed = [line for line in conversation(nvim) if "The agent failed" in line]
    assert len(failed) == 1 and failed[0].endswith(
        "exited with status 5: scripted agent: crashing as told"
    )
    wait_for(nvim, PANEL_HAS.format("M  b.py"), SLOW)
    assert "M  b.py" in files_panel(nvim)
    assert (project / "b.py").read_text() == "print('b')\n"
