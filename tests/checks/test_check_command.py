"""`bb7 check` on a real Python project with pytest and ruff from this suite's venv (the
project's `.venv`): an answer that breaks a test fails with the test's name and leaves the
project as it was; the verdict is kept with the chat and shown by `bb7 status`; an answer that
fixes it passes. Bad declarations and missing checks exit 2 with one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from checks_helpers import PROJECT, PYTEST, every_byte, link_venv, make_tree, write_checks

from bb7.checks import run as checks_run
from bb7.cli import main
from bb7.state.workspace import open_workspace
from model_answer import model_writes

CHECKS = f"""\
[[check]]
name = "tests"
run = "{PYTEST}"

[[check]]
name = "lint"
run = ["ruff", "check", "--no-cache", "--quiet", "."]
files = ["*.py"]
"""
BROKEN = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return b + a\n"


class Cli:
    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *args: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        code = main(list(args))
        out, err = self.capsys.readouterr()
        return code, out, err


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(checks_run._Isolation, "allowed", None)
    root = make_tree(tmp_path / "proj", PROJECT)
    link_venv(root)
    monkeypatch.chdir(root)
    return Cli(capsys)


def outside_bb7(root: Path) -> dict[str, tuple[bytes, int]]:
    return {k: v for k, v in every_byte(root).items() if not k.startswith(".bb7")}


def test_a_broken_answer_fails_with_the_test_name_and_a_fix_passes(cli: Cli) -> None:
    root = Path.cwd()
    write_checks(root, CHECKS)
    assert cli("init")[0] == 0 and cli("add", "calc.py")[0] == 0
    model_writes(root, {"calc.py": BROKEN})
    before = outside_bb7(root)

    code, out, err = cli("check")
    assert code == 1, (out, err)
    assert "checking 1 pending file" in out
    assert "FAILED  tests" in out and "test_add" in out and "assert -0 == 4" not in err
    assert " passed  lint" in out
    assert out.rstrip().endswith("1 of 2 checks did not pass")
    assert outside_bb7(root) == before

    code, out, _ = cli("status", "--json")
    check = json.loads(out)["check"]
    assert (check["state"], check["failed"], check["total"]) == ("failed", 1, 2)
    assert check["files"]["calc.py"] == {"state": "failed", "failed": 1, "total": 2,
                                          "message": check["message"]}  # fmt: skip
    assert "M  calc.py  [" in cli("status")[1] and "(checks failed 1)" in cli("status")[1]

    model_writes(root, {"calc.py": FIXED})
    assert json.loads(cli("status", "--json")[1])["check"]["state"] == "not_run"
    code, out, _ = cli("check", "calc.py", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"]["state"] == "passed" and report["recorded"]
    assert [o["name"] for o in report["run"]["outcomes"]] == ["tests", "lint"]
    assert report["run"]["scope"] == "calc.py"
    ws = open_workspace(root)
    try:
        found = ws.active()
        assert found is not None
        roles = [m.role for m in found[0].messages(found[1].id)]
        assert roles.count("check") == 2
    finally:
        ws.close()  # type: ignore[union-attr]


def test_checks_that_cannot_run_exit_2_with_one_line(cli: Cli) -> None:
    root = Path.cwd()
    code, _, err = cli("check")
    assert code == 2
    assert err == (
        "bb7: no checks declared: write .bb7/checks.toml (`bb7 check --suggest` prints one "
        "to start from)\n"
    )
    write_checks(root, '[[check]]\nname = "t"\nrun = [\n')
    code, _, err = cli("check")
    assert code == 2 and err.startswith("bb7: .bb7/checks.toml line ") and err.count("\n") == 1
    write_checks(root, '[[check]]\nname = "t"\nrun = ["no-such-checker"]\n')
    code, out, err = cli("check")
    assert code == 2 and "nothing pending: checking the project as it is" in out
    assert "`no-such-checker` not found" in out


def test_suggest_prints_a_checks_file_for_the_project_and_writes_nothing(cli: Cli) -> None:
    root = Path.cwd()
    (root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n[tool.pytest]\n")
    before = every_byte(root)
    code, out, _ = cli("check", "--suggest")
    assert code == 0 and '[[check]]\nname = "ruff"\nrun = ["ruff", "check", "."]' in out
    assert 'name = "tests"' in out
    assert every_byte(root) == before
