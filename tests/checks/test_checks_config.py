"""`.bb7/checks.toml` and `setup()`'s checks: what is read, what is refused (one line, with the
line of the file), and what `bb7 check --suggest` proposes from a project's own files."""

from __future__ import annotations

import json
from pathlib import Path

from bb7.checks.config import (
    Check,
    load_checks,
    merge_checks,
    on_answer,
    parse_checks,
    selected,
)
from bb7.checks.options import ChecksOptions, CheckSpec
from bb7.checks.suggest import suggest
from bb7.refusal import Problem

GOOD = """\
[[check]]
name = "lint"
run = ["ruff", "check", "."]
files = ["*.py"]

[[check]]
name = "tests"
run = "pytest -q"
timeout = 30
"""


def test_checks_are_read_in_order_with_their_defaults(tmp_path: Path) -> None:
    (tmp_path / ".bb7").mkdir()
    (tmp_path / ".bb7" / "checks.toml").write_text(GOOD)
    lint, tests = load_checks(tmp_path)  # type: ignore[misc]
    assert lint == Check(name="lint", run=["ruff", "check", "."], files=("*.py",))
    assert lint.timeout == 120 and lint.argv() == ["ruff", "check", "."]
    assert tests.argv() == ["sh", "-c", "pytest -q"] and tests.timeout == 30
    assert load_checks(tmp_path / "none") == []


def test_a_file_that_does_not_parse_is_one_line_with_its_line() -> None:
    broken = GOOD.replace('name = "tests"', "name tests")
    problem = parse_checks(broken)
    assert isinstance(problem, Problem) and problem.kind == "bad_checks"
    assert problem.message.startswith(".bb7/checks.toml line 7: ")
    assert "\n" not in problem.message


def test_a_wrong_field_names_the_check_its_line_and_what_it_should_be() -> None:
    problem = parse_checks(GOOD.replace("timeout = 30", "timeout = -1"))
    assert problem == Problem(
        "bad_checks",
        ".bb7/checks.toml line 6: check 'tests': `timeout` should be a number of seconds > 0, "
        "got -1",
    )
    unknown = parse_checks(GOOD.replace('files = ["*.py"]', 'globs = ["*.py"]'))
    assert isinstance(unknown, Problem) and "line 1: check 'lint': `globs` should be left out" in (
        unknown.message
    )
    no_run = parse_checks('[[check]]\nname = "x"\n')
    assert isinstance(no_run, Problem) and "`run` should be an argv list" in no_run.message
    twice = parse_checks(GOOD.replace('"tests"', '"lint"'))
    assert twice == Problem("bad_checks", ".bb7/checks.toml line 6: a second check named 'lint'")
    table = parse_checks('[check]\nname = "x"\n')
    assert isinstance(table, Problem) and "[[check]] tables" in table.message


def test_setup_checks_add_and_override_the_projects_by_name() -> None:
    project = parse_checks(GOOD)
    assert not isinstance(project, Problem)
    machine = [
        CheckSpec(name="tests", timeout=300),  # only this machine's time limit
        CheckSpec(name="lint", enabled=False),
        CheckSpec(name="types", run=["mypy", "."]),
    ]
    tests, types = merge_checks(project, machine)  # type: ignore[misc]
    assert (tests.run, tests.timeout) == ("pytest -q", 300)
    assert types.argv() == ["mypy", "."]
    missing = merge_checks(project, [CheckSpec(name="new")])
    assert isinstance(missing, Problem) and "check 'new' has no `run`" in missing.message


def test_files_globs_choose_the_checks_a_pending_change_calls_for() -> None:
    lint, tests = parse_checks(GOOD)  # type: ignore[misc]
    checks = merge_checks([lint, tests], [])
    assert not isinstance(checks, Problem)
    assert [c.name for c in selected(checks, ["src/deep/mod.py"])] == ["lint", "tests"]
    assert [c.name for c in selected(checks, ["README.md"])] == ["tests"]
    assert [c.name for c in selected(checks, [])] == ["lint", "tests"]  # the project as it is
    assert on_answer(ChecksOptions(), checks) and not on_answer(ChecksOptions(), [])
    assert not on_answer(ChecksOptions(on_answer=False), checks)


def test_suggest_reads_pyproject_package_json_cargo_go_and_make(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\n[project.optional-dependencies]\ntest = ["pytest>=8", "ruff"]\n'
        "[tool.mypy]\nstrict = true\n"
    )
    scripts = {"test": "vitest run", "lint": "eslint ."}
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}))
    (tmp_path / "pnpm-lock.yaml").write_text("")
    (tmp_path / "Cargo.toml").write_text("[package]\n")
    (tmp_path / "go.mod").write_text("module x\n")
    (tmp_path / "Makefile").write_text("VAR := 1\ntest: build\n\tgo test\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    text = suggest(tmp_path)
    checks = parse_checks(text)
    assert not isinstance(checks, Problem), checks
    runs = {c.name: c.run for c in checks}
    assert runs["ruff"] == ["ruff", "check", "."] and runs["mypy"] == ["mypy", "."]
    assert runs["tests"] == ["pytest", "-q", "-x"]
    assert runs["lint"] == ["pnpm", "run", "lint"] and runs["test"] == ["pnpm", "run", "test"]
    assert runs["cargo-test"] == ["cargo", "test", "--quiet"]
    assert runs["go-test"] == ["go", "test", "./..."]
    assert runs["make-test"] == ["make", "test"]  # `test` was taken by package.json's
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_suggest_for_a_bare_project_is_a_commented_example_that_parses(tmp_path: Path) -> None:
    npm_default = {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}
    (tmp_path / "package.json").write_text(json.dumps(npm_default))
    text = suggest(tmp_path)
    assert "# [[check]]" in text and parse_checks(text) == []
