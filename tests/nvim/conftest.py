"""Fixtures: a real headless Neovim per test with the plugin on 'runtimepath', XDG dirs in
tmp_path, and the real Python host started by the plugin itself (the checkout's `.venv`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from editor import isolate, run, spawn, start_host, wait_for_status


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


@pytest.fixture
def ready(launch: Callable[..., Any], project: Path) -> Any:
    """An editor with the host running in an initialised project (`:BB7Init`), a.py open and
    in the active chat (`:BB7Add`), b.py in the chat but not loaded."""
    editor = launch()
    editor.exec_lua("require('bb7').setup({ status = { debounce_ms = 20 } })")
    start_host(editor)
    run(editor, "BB7Init")
    run(editor, "BB7Add b.py")
    editor.command("edit a.py")
    run(editor, "BB7Add")
    wait_for_status(editor, project / "a.py", "")
    return editor
