"""The checks from the command line, on a real Python project with pytest and ruff from this
suite's venv (the project's `.venv`) and the scripted model: an answer that breaks a test fails
with the test's name and leaves the project as it was; the verdict is kept with the chat and
shown by `bb7 status`; `bb7 chat --fix-checks` carries the failures to the model, and the
answer that fixes it passes. `bb7 check` exits by the verdict; bad declarations and missing
checks exit 2 with one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bb7.checks import run as checks_run
from bb7.cli import main
from bb7.files.fileid import file_id
from checks_helpers import PROJECT, PYTEST, every_byte, link_venv, make_tree, write_checks
from llm_server import LLMServer, edits, finish, stream, text_chunk, tool_call
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


def answer(text: str, old: str, new: str, fid: str) -> dict[str, Any]:
    """The scripted model's answer: `text`, and one edit of calc.py."""
    call = tool_call("edit_file", edits(("calc.py", fid, old, new)))
    return stream(text_chunk(text), *call, finish("tool_calls"))


def test_an_answer_that_breaks_a_test_fails_and_the_fix_it_asks_for_passes(cli: Cli) -> None:
    root = Path.cwd()
    write_checks(root, CHECKS)
    assert cli("init")[0] == 0 and cli("add", "calc.py")[0] == 0
    broken = answer("Subtracting now.", "a + b", "a - b", file_id("calc.py", PROJECT["calc.py"]))
    fixed = answer("Adding again.", "a - b", "b + a", file_id("calc.py", BROKEN))
    with LLMServer([broken, fixed]) as server:
        chat = ("chat", "--base-url", server.base_url, "--model", "test/tools-model")
        before = outside_bb7(root)
        code, out, err = cli(*chat, "Make add subtract.")
        assert code == 0, err
        assert "checking 1 pending file of chat" in out
        assert "FAILED  tests" in out and "test_add" in out and " passed  lint" in out
        assert out.rstrip().endswith("1 of 2 checks did not pass")
        assert outside_bb7(root) == before  # the change and the checks: nothing touched

        status = json.loads(cli("status", "--json")[1])["check"]
        assert (status["state"], status["failed"], status["total"]) == ("failed", 1, 2)
        assert status["files"]["calc.py"]["state"] == "failed"
        assert "M  calc.py  [" in cli("status")[1] and "(checks failed 1)" in cli("status")[1]

        code, out, err = cli(*chat, "--fix-checks")
        assert code == 0, err
        latest = server.chat_requests()[-1]["json"]["messages"][1]["content"]
        carried = latest[latest.rindex("@checks") : latest.rindex("@end checks")]
        assert "verdict=failed failed=1 of=2" in carried and "- tests: failed (exit 1)" in carried
        assert "test_add" in carried and "- lint: passed" in carried
        assert "Make the checks pass." in latest[latest.rindex("@end checks") :]
        assert "all 2 checks passed" in out
    assert json.loads(cli("status", "--json")[1])["check"]["state"] == "passed"
    assert outside_bb7(root) == before
    code, _, err = cli("chat", "--fix-checks")
    assert (code, err) == (
        1,
        "bb7: the last checks passed: there is nothing to fix; `bb7 check` runs them\n",
    )


def test_bb7_check_exits_by_the_verdict_and_keeps_it_with_the_chat(cli: Cli) -> None:
    root = Path.cwd()
    write_checks(
        root,
        '[[check]]\nname = "grep"\nrun = "grep -n subtract calc.py && exit 1 || exit 0"\n'
        '[[check]]\nname = "docs"\nrun = ["true"]\nfiles = ["*.md"]\n',
    )
    assert cli("init")[0] == 0 and cli("add", "calc.py")[0] == 0
    model_writes(root, {"calc.py": "# subtract\n" + BROKEN})
    code, out, _ = cli("check", "--json")
    report = json.loads(out)
    assert code == 1
    assert report["verdict"] == {"state": "failed", "failed": 1, "total": 1, "message": 0}
    (outcome,) = report["run"]["outcomes"]
    assert (outcome["name"], outcome["output"], outcome["files"]) == (
        "grep",
        "1:# subtract\n",
        ["calc.py"],
    )
    assert report["recorded"] and report["run"]["paths"] == ["calc.py"]
    model_writes(root, {"calc.py": FIXED})
    code, out, _ = cli("check", "calc.py")
    assert code == 0 and "the check passed" in out
    assert cli("check", "README.md")[0] == 2


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
