"""`bb7 add` with a directory, a glob and a secret (in-process, see tests/cli_runner.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    for name in ("src/a.py", "src/pkg/b.py", "src/.env", "docs/x.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"{name}\n")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(root)
    return root


def paths(capsys: pytest.CaptureFixture[str]) -> list[str]:
    done = run_cli(capsys, "status", "--json")
    return [row["path"] for row in json.loads(done.stdout)["files"]]


def test_a_glob_and_a_directory_add_their_files(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(capsys, "init").returncode == 0
    done = run_cli(capsys, "add", "src/**/*.py", "docs")
    assert done.returncode == 0, done.stderr
    assert paths(capsys) == ["docs/x.md", "src/a.py", "src/pkg/b.py"]


def test_a_secret_is_refused_in_one_line_unless_allowed(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cli(capsys, "init")
    done = run_cli(capsys, "add", "src/a.py", "src/.env")
    assert (done.returncode, done.stderr) == (
        1,
        "bb7: src/.env looks like a secret (an .env file); nothing added; "
        "--allow-secrets adds it anyway\n",
    )
    assert paths(capsys) == []
    assert run_cli(capsys, "add", "--allow-secrets", "src/a.py", "src/.env").returncode == 0
    assert paths(capsys) == ["src/.env", "src/a.py"]
