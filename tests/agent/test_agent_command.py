"""`bb7 agent` with the scripted ACP agent: in-process for the turn and its files, as a child
process on a terminal for the question asked there and Ctrl-C."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from agent_helpers import A_TEXT, HELLO

from acp_agent import command, logged
from checks_helpers import write_checks
from cli_runner import run_cli

NEW_A = A_TEXT.replace("two = 2", "two = 22")
NEW_HELLO = "print('hello, world')\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text(A_TEXT)
    (root / "hello.py").write_text(HELLO)
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(root), "add", "a.py", "hello.py"], check=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(root)
    return root


def agent_cmd(tmp: Path, script: dict[str, Any]) -> tuple[str, Path]:
    """The `--cmd` line of the scripted agent, behind a script named `scripted-agent` (the
    name bb7 gives the agent), and the agent's log."""
    argv, log = command(tmp / "agent", script)
    wrapper = tmp / "agent" / "scripted-agent"
    wrapper.write_text("#!/bin/sh\nexec " + " ".join(f"'{a}'" for a in argv) + ' "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper), log


TURN = [
    {"say": "Reading a.py.\n"},
    {"think": "two is on line 2"},
    {"read": "a.py"},
    {"write": "a.py", "content": NEW_A},
    {"read": "a.py"},
    {"ask": "Edit hello.py", "kind": "edit"},
    {"tool": "t1", "title": "hello.py", "kind": "edit", "status": "pending"},
    {"disk": "hello.py", "content": NEW_HELLO},
    {"tool_update": "t1", "status": "completed"},
    {"say": "Done."},
]


def test_bb7_agent_streams_the_turn_and_holds_its_changes_for_review(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cmd, log = agent_cmd(tmp_path, {"turns": [TURN]})
    run_cli(capsys, "init")
    done = run_cli(capsys, "agent", "--show-reasoning", "--cmd", cmd, "Make two 22")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Reading a.py.\nDone.\n")
    assert "wrote a.py (M): bb7 output apply a.py" in done.stdout
    assert (
        "scripted-agent changed hello.py on disk: bb7 output diff hello.py, bb7 output undo "
        "hello.py" in done.stdout
    )
    err = done.stderr.splitlines()
    assert err[0].startswith("bb7: new chat ") and err[0].endswith(" with scripted-agent")
    assert "bb7: change pending: a.py" in err
    assert "two is on line 2" in err  # the thought, its line ended before the next note
    # No terminal here: the question is rejected, and the agent got that answer.
    assert (
        "bb7: scripted-agent asks: Edit hello.py (edit): rejected (no terminal; --yes "
        "allows)" in err
    )
    asked = logged(log, "asked")[0]["answer"]["result"]["outcome"]
    assert asked == {"outcome": "selected", "optionId": "reject"}
    assert "bb7: ✓ edit · hello.py · completed" in err
    # The disk: a.py as it was (pending), hello.py as the agent wrote it (its apply).
    assert (project / "a.py").read_text() == A_TEXT
    assert (project / "hello.py").read_text() == NEW_HELLO
    reads = [e["answer"]["result"]["content"] for e in logged(log, "read")]
    assert reads == [A_TEXT, NEW_A]  # the second read saw the pending text
    assert "    hello.py  [6]  agent" in run_cli(capsys, "status").stdout  # its review is due
    diff = run_cli(capsys, "output", "diff", "hello.py")
    assert "-print('hello')\n+print('hello, world')\n" in diff.stdout
    undone = run_cli(capsys, "output", "undo", "hello.py")
    assert undone.returncode == 0, undone.stderr
    assert (project / "hello.py").read_text() == HELLO
    # The same agent's chat is the active one: the next turn goes on in it (a new process of
    # the agent), and --yes allows once what it asks.
    agent_cmd(tmp_path, {"turns": [[{"ask": "Edit a.py"}, {"say": "again"}]]})
    again = run_cli(capsys, "agent", "--yes", "--cmd", cmd, "And?")
    assert again.returncode == 0 and again.stdout.startswith("again\n")
    assert "new chat" not in again.stderr
    assert logged(log, "asked")[-1]["answer"]["result"]["outcome"]["optionId"] == "once"
    status = run_cli(capsys, "status")
    assert " M  a.py" in status.stdout and " M  hello.py" in status.stdout


def test_bb7_agent_fails_in_one_line_and_keeps_what_is_pending(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cli(capsys, "init")
    cmd, _ = agent_cmd(tmp_path, {"turns": [[{"write": "a.py", "content": NEW_A}, {"crash": 9}]]})
    died = run_cli(capsys, "agent", "--cmd", cmd, "Go")
    assert died.returncode == 1
    assert died.stderr.splitlines()[-1] == (
        "bb7: scripted-agent exited with status 9: scripted agent: crashing as told"
    )
    assert "wrote a.py (M)" in died.stdout
    missing = run_cli(capsys, "agent", "--cmd", "bb7-no-such-agent acp", "Go")
    assert missing.returncode == 1
    assert missing.stderr.splitlines()[-1] == (
        "bb7: agent command not found: bb7-no-such-agent (is it on $PATH?)"
    )
    unknown = run_cli(capsys, "agent", "nobody", "Go")
    assert unknown.returncode == 1
    assert unknown.stderr == "bb7: no agent named nobody: one of claude, codex, gemini, opencode\n"


def test_bb7_agent_asks_on_a_terminal_and_ctrl_c_cancels_the_turn(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cli(capsys, "init")
    # The agent's question carries escape sequences (OSC 52 writes the clipboard): shown.
    ask = "Edit hello.py\x1b]52;c;ZXZpbA==\x07"
    script = {"turns": [[{"ask": ask}, {"say": "working"}, {"wait_cancel": True}]]}
    cmd, log = agent_cmd(tmp_path, script)
    main, terminal = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bb7.cli", "agent", "--cmd", cmd, "Go"],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    os.close(terminal)
    try:
        shown = b""
        deadline = time.monotonic() + 30
        while b"[y allow once, a always, n reject] " not in shown:
            assert time.monotonic() < deadline, shown
            if select.select([main], [], [], 0.1)[0]:
                shown += os.read(main, 4096)
        assert b"bb7: scripted-agent asks: Edit hello.py\\033]52;c;ZXZpbA==\\007 (edit)?" in shown
        assert b"\x1b" not in shown and b"\x07" not in shown
        os.write(main, b"a\n")
        wait_for(lambda: bool(logged(log, "asked")))
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        os.close(main)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert logged(log, "asked")[0]["answer"]["result"]["outcome"]["optionId"] == "always"
    assert out.startswith("working\n")
    assert err.splitlines()[-1] == "bb7: scripted-agent stopped its turn"


def wait_for(check: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_the_checks_run_on_what_the_agent_left_and_its_next_message_carries_the_failure(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    run_cli(capsys, "init")
    write_checks(project, "[[check]]\nname = 'two'\nrun = \"! grep -q 'two = 22' a.py\"\n")
    cmd, log = agent_cmd(tmp_path, {"turns": [[{"write": "a.py", "content": NEW_A}]]})
    wrote = run_cli(capsys, "agent", "--cmd", cmd, "Make two 22")
    assert wrote.returncode == 0, wrote.stderr
    assert "FAILED  two" in wrote.stdout and "1 of 1 checks did not pass" in wrote.stdout
    assert (project / "a.py").read_text() == A_TEXT  # checked in a copy
    status = json.loads(run_cli(capsys, "status", "--json").stdout)["check"]
    assert (status["state"], status["failed"], status["files"]["a.py"]["state"]) == (
        "failed",
        1,
        "failed",
    )
    # The agent keeps its own context: the failure goes with the next message, once.
    for message in ("Why?", "And?"):
        agent_cmd(tmp_path, {"turns": [[{"say": "ok"}]]})
        assert run_cli(capsys, "agent", "--cmd", cmd, message).returncode == 0
    prompts = [
        e["received"]["params"]["prompt"][0]["text"]
        for e in logged(log, "received")
        if e["received"].get("method") == "session/prompt"
    ]
    assert prompts == [
        "Make two 22",
        "Why?\n\nbb7 ran the project's checks on your pending changes, in a copy of the "
        "project: 1 of 1 did not pass.\n- two: failed (exit 1)",
        "And?",
    ]
    agent_cmd(tmp_path, {"turns": [[{"write": "a.py", "content": A_TEXT + "four = 4\n"}]]})
    skipped = run_cli(capsys, "agent", "--no-checks", "--cmd", cmd, "Add four")
    assert skipped.returncode == 0 and "check" not in skipped.stdout
