"""Apply under a real crash: a child process applying an output is SIGKILLed mid-write.

The project file must be the old or the new text, never a mix, and the state must let the
user finish: either nothing happened (output still pending) or the file is new and applying
again is allowed without --force.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from state_helpers import Project

from bb7.refusal import Problem
from bb7.state import context, outputs
from bb7.state.context import Target

OLD = "old line\n" * 10
NEW = "new line, much longer than the old one\n" * 25_000  # ~1 MB: a wide write window

_APPLY = """
import sys
from pathlib import Path
from bb7.state.outputs import apply_output
from bb7.state.store import init_project
store = init_project(Path(sys.argv[1]))
print(apply_output(store, sys.argv[2], "f.txt"), flush=True)
"""


def _start_apply(project: Project) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", _APPLY, str(project.root), project.chat_id],
        stdout=subprocess.DEVNULL,
    )


def _temp_files(root: Path) -> list[Path]:
    return [p for p in root.iterdir() if p.name.endswith(".bb7-tmp")]


def _check_after_crash(project: Project) -> str:
    """Assert the invariants; return which side of the rename the crash landed on."""
    for leftover in _temp_files(project.root):
        leftover.unlink()
    data = project.read("f.txt")
    assert data in (OLD, NEW), f"partial file of {len(data)} chars"
    if data == OLD:
        assert project.status("f.txt") == "M"
        return "old"
    if project.store.output(project.chat_id, "f.txt") is not None:
        # Killed after the rename, before the commit: the file already holds the output, so
        # applying again cannot lose anything and needs no --force (the same change on both
        # sides rebases cleanly: M, where the status once said ~M).
        assert project.status("f.txt") in ("M", "~M")
        assert not isinstance(
            outputs.apply_output(project.store, project.chat_id, "f.txt"), Problem
        )
    assert project.status("f.txt") == ""
    return "new"


def _reset(project: Project) -> None:
    project.write("f.txt", OLD)
    assert not isinstance(context.update(project.store, project.chat_id, Target("f.txt")), Problem)
    project.model_writes("f.txt", NEW)


def test_kill_between_temp_write_and_rename_leaves_the_old_file(project: Project) -> None:
    project.write("f.txt", OLD)
    context.add(project.store, project.chat_id, Target("f.txt"))
    # The kill is sent the moment the temp file appears; on a busy machine the child may still
    # finish its write and rename first, so try until one kill lands inside the window.
    for _attempt in range(20):
        _reset(project)
        child = _start_apply(project)
        deadline = time.monotonic() + 30
        while not _temp_files(project.root) and child.poll() is None:
            assert time.monotonic() < deadline
        child.send_signal(signal.SIGKILL)
        child.wait()
        if _check_after_crash(project) == "old":
            break
    else:
        raise AssertionError("no kill landed between the temp write and the rename in 20 tries")
    assert project.read("f.txt") == OLD
    # The user can simply apply again.
    assert not isinstance(outputs.apply_output(project.store, project.chat_id, "f.txt"), Problem)
    assert project.read("f.txt") == NEW


def test_kills_at_random_moments_never_leave_a_partial_file(project: Project) -> None:
    project.write("f.txt", OLD)
    context.add(project.store, project.chat_id, Target("f.txt"))
    rng = random.Random(7)
    sides: list[str] = []
    for _ in range(12):
        _reset(project)
        child = _start_apply(project)
        time.sleep(rng.uniform(0.0, 0.6))
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
        child.wait()
        sides.append(_check_after_crash(project))
    assert project.store.integrity_problems() == []
    assert set(sides) <= {"old", "new"}
