"""A real project in a temp dir (`root`, its `store`) and a host serving it (`host`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from host_harness import Host

from bb7.state.store import Store, init_project


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    path = tmp_path / "proj"
    path.mkdir()
    (path / "a.py").write_text("one = 1\n")
    return path


@pytest.fixture
def store(root: Path) -> Store:
    return init_project(root)


@pytest.fixture
def host(root: Path, store: Store) -> Iterator[Host]:
    running = Host(root)
    yield running
    running.close()
