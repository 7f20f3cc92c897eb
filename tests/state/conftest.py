"""Shared fixtures: state tests get a real project directory and an isolated global store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bb7_cli import Bb7
from state_helpers import Project, make_project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    # The global store lives under XDG_DATA_HOME; keep it inside the test's temp dir.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    made = make_project(tmp_path / "proj")
    yield made
    made.store.close()


@pytest.fixture
def bb7(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Bb7:
    """An initialised project, with the shell's working directory in it."""
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(root)
    made = Bb7(root, capsys)
    made("init")
    return made
