"""Recovery at the next open settles only the intents of dead processes."""

from __future__ import annotations

import subprocess
import sys

from state_helpers import Project

from bb7.state import context
from bb7.state.context import Target
from bb7.state.lock import this_host
from bb7.state.records import Intent
from bb7.state.recovery import recover


def _intent(project: Project, pid: int) -> Intent:
    output = project.store.output(project.chat_id, "f.txt")
    assert output is not None
    with project.store.transaction():
        return project.store.put_intent(
            Intent(
                chat_id=project.chat_id,
                path="f.txt",
                prev_local=project.store.put_blob("old\n"),
                written=output.blob,
                prev_entry=project.store.entry(project.chat_id, "f.txt"),
                prev_output=output,
                pid=pid,
                host=this_host(),
            )
        )


def test_an_apply_in_progress_in_a_live_process_is_left_alone(project: Project) -> None:
    project.write("f.txt", "old\n")
    context.add(project.store, project.chat_id, Target("f.txt"))
    project.model_writes("f.txt", "new\n")
    (project.root / ".f.txt.abcd.bb7-tmp").write_text("new\n")  # its temp file, mid-write
    live = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=-1)
    try:
        _intent(project, live.pid)
        assert recover(project.store) == []
        assert project.store.has_intents()
        assert (project.root / ".f.txt.abcd.bb7-tmp").exists()
    finally:
        live.communicate(b"")
    # Its process is gone now: the file was not replaced, so the apply is rolled back.
    assert recover(project.store) == [
        "rolled back an interrupted apply of f.txt; its output is still pending"
    ]
    assert not project.store.has_intents()
    assert not (project.root / ".f.txt.abcd.bb7-tmp").exists()
    assert project.status("f.txt") == "M"
