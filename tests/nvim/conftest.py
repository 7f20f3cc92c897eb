"""Fixtures: a real headless Neovim per test with the plugin on 'runtimepath', XDG dirs in
tmp_path, and the real Python host started by the plugin itself (the checkout's `.venv`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from editor import isolate, spawn


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    (path / "a.py").write_text("one = 1\ntwo = 2\nthree = 3\n")
    (path / "b.py").write_text("print('b')\n")
    return path


@pytest.fixture
def launch(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., Any]]:
    """`launch(**spawn_kwargs)` starts an editor (closed at teardown)."""
    isolate(monkeypatch, tmp_path / "home")
    editors: list[Any] = []

    def start(**kwargs: Any) -> Any:
        editor = spawn(project, **kwargs)
        editors.append(editor)
        return editor

    yield start
    for editor in editors:
        editor.close()


@pytest.fixture
def nvim(launch: Callable[..., Any]) -> Any:
    """An editor with `setup()` done (defaults); the host is not running yet."""
    editor = launch()
    editor.exec_lua("require('bb7').setup()")
    return editor
