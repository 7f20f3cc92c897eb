"""What the next open settled of a killed apply (issue 11): the CLI's line, shown once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from editor import NEWEST_ONLY, notifications, run, start_host, wait_for

from bb7.cli import main
from bb7.files.fsio import CRASH_ENV
from model_answer import model_writes


def _bb7(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bb7.cli", *args],
        cwd=project,
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=30,
    )


@NEWEST_ONLY
def test_a_finished_interrupted_apply_is_said_once_in_the_editor(
    launch: Callable[..., Any], project: Path
) -> None:
    assert _bb7(project, "init").returncode == 0
    assert _bb7(project, "add", "a.py").returncode == 0
    model_writes(project, {"a.py": "one = 1\n"})
    killed = _bb7(project, "output", "apply", "a.py", **{CRASH_ENV: "before_commit"})
    assert killed.returncode < 0, killed.stderr
    line = "bb7: finished an interrupted apply of a.py (`bb7 output undo` reverts it)"
    editor = launch()
    editor.exec_lua("require('bb7').setup({ status = { debounce_ms = 20 } })")
    start_host(editor)
    editor.command("edit a.py")
    run(editor, "BB7Add")
    wait_for(
        editor,
        f"vim.tbl_contains(vim.tbl_map(function(n) return n.msg end, _G.notifications), {line!r})",
    )
    run(editor, "BB7Add")
    assert notifications(editor).count(line) == 1, notifications(editor)
    assert (project / "a.py").read_text() == "one = 1\n"


def test_an_edit_made_after_the_host_died_mid_apply_keeps_the_replaced_text(
    launch: Callable[..., Any], project: Path
) -> None:
    assert main(["init", "--root", str(project)]) == 0  # in-process: no Python start to pay
    assert main(["add", "--root", str(project), str(project / "a.py")]) == 0
    model_writes(project, {"a.py": "one = 'model'\ntwo = 2\nthree = 3\n"})
    editor = launch()
    editor.exec_lua("require('bb7').setup({ status = { debounce_ms = 20 } })")
    editor.exec_lua(f"vim.env.{CRASH_ENV} = 'before_commit'")  # the host dies mid-apply
    start_host(editor)
    editor.command("edit a.py")
    editor.command("call setline(1, 'one = \"mine\"') | write")
    run(editor, "BB7Apply!")  # over the user's edit; the host is killed before its commit
    wait_for(editor, "not require('bb7.backend').is_ready()")
    editor.exec_lua(f"vim.env.{CRASH_ENV} = nil")
    # The user keeps typing and saves; the next command restarts the host.
    editor.command("call append('$', 'typed = 4') | write")
    run(editor, "BB7Add")
    # A cold host start and its recovery: slow on a loaded machine (5 s was missed once in CI).
    wait_for(editor, "require('bb7.backend').is_ready()", 20_000)
    said = "function(n) return n.msg:find('which was edited since', 1, true) end"
    wait_for(editor, f"vim.iter(_G.notifications):any({said})", 10_000)
    run(editor, "BB7UndoApply!")
    assert (project / "a.py").read_text() == 'one = "mine"\ntwo = 2\nthree = 3\n'
    assert editor.current.buffer[:] == ['one = "mine"', "two = 2", "three = 3"]
