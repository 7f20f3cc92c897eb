"""`bb7 ...` run in a project directory the way a user types it, for the no-lost-work tests:
in-process (`bb7.cli.main`), or as a child process where a command could hang or must die."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bb7.cli import main
from model_answer import model_writes

BASE = "line 1\nline 2\nline 3\n"
LOCAL = "line 1\nline 2\nthe user's own edit\n"  # where the model adds a line
MODEL = "line 1\nline 2\nline 3\nthe model's line\n"


class Bb7:
    """`bb7 ...` in a project directory: in-process, or as a child process (`run`)."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.capsys = capsys

    def __call__(self, *args: str, ok: bool | None = True) -> tuple[str, str]:
        self.capsys.readouterr()
        code = main(list(args))
        out, err = self.capsys.readouterr()
        if ok is not None:
            _check(code, out, err, ok)
        return out, err

    def run(
        self,
        *args: str,
        ok: bool | None = True,
        env: dict[str, str] | None = None,
        preexec: Callable[[], None] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "bb7.cli", *args],
            cwd=self.root,
            env=dict(os.environ, **(env or {})),
            capture_output=True,
            text=True,
            timeout=30,
            preexec_fn=preexec,
        )
        if ok is not None:
            _check(done.returncode, done.stdout, done.stderr, ok)
        return done

    def model_writes(self, files: dict[str, str]) -> None:
        model_writes(self.root, files)

    def statuses(self) -> dict[str, str]:
        rows = json.loads(self("status", "--json")[0])["files"]
        return {r["path"]: r["status"] for r in rows}

    def write(self, path: str, text: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def read(self, path: str) -> str:
        return (self.root / path).read_text()

    def temp_files(self) -> list[str]:
        return sorted(str(p.relative_to(self.root)) for p in self.root.rglob("*.bb7-tmp"))


def _check(code: int, out: str, err: str, ok: bool) -> None:
    if ok:
        assert code == 0, err
    else:
        assert code != 0, out
        # One line on stderr, no traceback, and no success claimed on stdout.
        assert err.startswith("bb7: ") and err.count("\n") == 1, err
        assert "Traceback" not in err and "initialised" not in out and "applied" not in out


def local_edits_over_a_pending_output(bb7: Bb7) -> None:
    """f.txt added, a pending output for it, and local edits that overlap the output."""
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": MODEL})
    bb7.write("f.txt", LOCAL)
    assert bb7.statuses() == {"f.txt": "~M"}
