"""Fixtures: a real headless Neovim per test with the plugin on 'runtimepath', XDG dirs in
tmp_path, and the real Python host started by the plugin itself (the checkout's `.venv`).

Every test that starts an editor runs once per supported Neovim version (`NVIMS`);
`BB7_NVIM=0.12 pytest tests/nvim` runs one version only. A test may pick its versions itself by
parametrizing `nvim_binary` indirectly with version names (`chat_view_helpers.on_every_screen`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from editor import NVIMS, VERSIONS, isolate, run, spawn, start_host, wait_for_status

if not VERSIONS:
    raise pytest.UsageError(f"BB7_NVIM should be one of {', '.join(NVIMS)}")


@pytest.fixture(params=VERSIONS)
def nvim_binary(request: pytest.FixtureRequest) -> Path:
    """The Neovim binary of one version of the matrix."""
    binary: Path = NVIMS[request.param]
    return binary


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    (path / "a.py").write_text("one = 1\ntwo = 2\nthree = 3\n")
    (path / "b.py").write_text("print('b')\n")
    return path


@pytest.fixture
def launch(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch, nvim_binary: Path
) -> Iterator[Callable[..., Any]]:
    """`launch(**spawn_kwargs)` starts an editor (closed at teardown)."""
    isolate(monkeypatch, tmp_path / "home")
    editors: list[Any] = []

    def start(**kwargs: Any) -> Any:
        editor = spawn(project, nvim=nvim_binary, **kwargs)
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
