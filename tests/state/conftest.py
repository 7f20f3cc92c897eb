"""Shared fixtures: state tests get a real project directory and an isolated global store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from state_helpers import Project, make_project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    # The global store lives under XDG_DATA_HOME; keep it inside the test's temp dir.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    made = make_project(tmp_path / "proj")
    yield made
    made.store.close()
