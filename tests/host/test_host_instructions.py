"""`edit_instructions` (`:BB7EditInstructions`): the file to open, created when missing, and
the one line naming the instruction files that apply (`context.instruction_files` included)."""

from __future__ import annotations

from pathlib import Path

import pytest
from host_harness import Host


def test_the_project_file_is_created_and_the_files_that_apply_are_named(
    host: Host, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (root / "AGENTS.md").write_text("Run make test.\n")
    got = host.call("edit_instructions", scope="")
    assert got == {
        "path": str(root / ".bb7" / "instructions"),
        "message": "instructions that apply: AGENTS.md",
    }
    assert (root / ".bb7" / "instructions").read_text() == ""
    host.call("open", root=str(root), settings={"context": {"instruction_files": []}})
    got = host.call("edit_instructions", scope="global")
    assert got == {
        "path": str(tmp_path / "cfg" / "bb7" / "instructions.md"),
        "message": "no instruction file applies yet",
    }
    assert (tmp_path / "cfg" / "bb7" / "instructions.md").exists()


def test_project_instructions_outside_a_project_say_to_run_init(tmp_path: Path) -> None:
    host = Host(tmp_path)
    error = host.refused("edit_instructions", scope="project")
    assert error["kind"] == "not_initialized" and ":BB7Init" in error["message"]
    host.close()
