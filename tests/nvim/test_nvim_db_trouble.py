"""Database trouble in the editor (issue 11): the line the CLI prints, shown once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from editor import notifications, run, start_host, wait_for


def test_a_damaged_database_is_the_clis_one_line_shown_once(
    launch: Callable[..., Any], project: Path
) -> None:
    db = project / ".bb7" / "bb7.db"
    db.parent.mkdir()
    db.write_bytes(b"this is not a database\n" * 100)
    said = subprocess.run(
        [sys.executable, "-m", "bb7.cli", "status"],
        cwd=project,
        env=dict(os.environ),
        capture_output=True,
        text=True,
    )
    assert said.returncode == 1 and said.stderr.count("\n") == 1, said.stderr
    line = said.stderr.strip()
    assert "is damaged" in line
    editor = launch()
    editor.exec_lua("require('bb7').setup({ status = { debounce_ms = 20 } })")
    start_host(editor)
    editor.command("edit a.py")  # a status refresh for the buffer meets the damaged database
    run(editor, "BB7Add")
    wait_for(
        editor,
        f"vim.tbl_contains(vim.tbl_map(function(n) return n.msg end, _G.notifications), {line!r})",
    )
    assert notifications(editor).count(line) == 1, notifications(editor)
