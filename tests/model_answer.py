"""What a model's answer leaves in a project made with the `bb7` command line: pending outputs
in its active chat, written with the real core (`bb7.state`), for tests that then drive `bb7`
or the editor."""

from __future__ import annotations

from pathlib import Path

from bb7.refusal import Problem
from bb7.state.responses import record_outputs
from bb7.state.workspace import open_workspace


def model_writes(root: Path, files: dict[str, str]) -> None:
    """`files` (path: new text) as pending outputs of the active chat of the project at `root`."""
    ws = open_workspace(root)
    assert not isinstance(ws, Problem), ws
    try:
        found = ws.active()
        assert found is not None, "no active chat"
        recorded = record_outputs(found[0], found[1].id, files)
        assert not isinstance(recorded, Problem), recorded
    finally:
        ws.close()
