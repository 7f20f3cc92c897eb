"""`bb7 check --suggest`: a starting `.bb7/checks.toml` from what the project has (pyproject with
ruff, mypy or pytest; Cargo.toml; package.json scripts; go.mod; a Makefile `test` target).
Reads a few files at the root and returns text; writes nothing, runs nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec

from bb7.checks import CHECKS_FILE
from bb7.checks.config import read_toml
from bb7.files.fsio import FileProblem, load_text

PYTHON_FILES = ["*.py", "*.pyi", "pyproject.toml"]
# What `npm init` writes as the test script: no tests.
_NPM_NO_TEST = "no test specified"
_MAKE_TARGET = re.compile(r"^(test|check|lint)\s*:(?!=)", re.MULTILINE)


class Suggested(msgspec.Struct, frozen=True):
    """One suggested check and what in the project called for it."""

    name: str
    run: list[str]
    why: str
    files: list[str] = []


def _read(root: Path, name: str) -> str | None:
    text = load_text(root / name)
    return None if isinstance(text, FileProblem) else text


def _toml(root: Path, name: str) -> dict[str, Any] | None:
    text = _read(root, name)
    data = None if text is None else read_toml(text, name)
    return data if isinstance(data, dict) else None


def _python_tools(pyproject: dict[str, Any]) -> set[str]:
    """The tools a pyproject configures ([tool.X]) or depends on (any dependency list)."""
    tools = set(pyproject.get("tool", {}))
    lists: list[Any] = [pyproject.get("project", {}).get("dependencies", [])]
    lists += list(pyproject.get("project", {}).get("optional-dependencies", {}).values())
    lists += list(pyproject.get("dependency-groups", {}).values())
    lists.append(pyproject.get("tool", {}).get("uv", {}).get("dev-dependencies", []))
    for deps in lists:
        for dep in deps if isinstance(deps, list) else []:
            if isinstance(dep, str):
                found = re.match(r"[A-Za-z0-9_.-]+", dep.strip())
                if found:
                    tools.add(found.group(0).lower().replace("_", "-"))
    return tools


def _python(root: Path) -> list[Suggested]:
    pyproject = _toml(root, "pyproject.toml")
    tools = set() if pyproject is None else _python_tools(pyproject)
    out: list[Suggested] = []
    if "ruff" in tools or (root / "ruff.toml").exists() or (root / ".ruff.toml").exists():
        out.append(Suggested("ruff", ["ruff", "check", "."], "ruff is configured", PYTHON_FILES))
    if "mypy" in tools or (root / "mypy.ini").exists():
        mypy = pyproject.get("tool", {}).get("mypy", {}) if pyproject else {}
        run = ["mypy"] if isinstance(mypy, dict) and mypy.get("files") else ["mypy", "."]
        out.append(Suggested("mypy", run, "mypy is configured", PYTHON_FILES))
    if (
        "pytest" in tools
        or (root / "pytest.ini").exists()
        or (root / "conftest.py").exists()
        or "[tool:pytest]" in (_read(root, "setup.cfg") or "")
    ):
        out.append(Suggested("tests", ["pytest", "-q", "-x"], "pytest is configured"))
    return out


def _node(root: Path) -> list[Suggested]:
    text = _read(root, "package.json")
    if text is None:
        return []
    try:
        scripts = json.loads(text).get("scripts", {})
    except (ValueError, AttributeError):
        return []
    if not isinstance(scripts, dict):
        return []
    runner = "npm"
    for lock, name in (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun")):
        if (root / lock).exists():
            runner = name
    out: list[Suggested] = []
    for script in ("lint", "typecheck", "type-check", "test"):
        body = scripts.get(script)
        if isinstance(body, str) and body.strip() and _NPM_NO_TEST not in body:
            why = f"package.json has a `{script}` script"
            out.append(Suggested(script, [runner, "run", script], why))
    return out


def _cargo(root: Path) -> list[Suggested]:
    if not (root / "Cargo.toml").exists():
        return []
    return [Suggested("cargo-test", ["cargo", "test", "--quiet"], "Cargo.toml")]


def _go(root: Path) -> list[Suggested]:
    if not (root / "go.mod").exists():
        return []
    return [
        Suggested("go-vet", ["go", "vet", "./..."], "go.mod"),
        Suggested("go-test", ["go", "test", "./..."], "go.mod"),
    ]


def _make(root: Path, taken: set[str]) -> list[Suggested]:
    text = _read(root, "Makefile") or _read(root, "makefile") or _read(root, "GNUmakefile")
    if text is None:
        return []
    out: list[Suggested] = []
    for target in dict.fromkeys(_MAKE_TARGET.findall(text)):
        name = f"make-{target}" if target in taken else target
        out.append(Suggested(name, ["make", target], f"the Makefile has a `{target}` target"))
    return out


def suggestions(root: Path) -> list[Suggested]:
    """The checks the project's own files call for, in the order they are suggested."""
    out = _python(root) + _node(root) + _cargo(root) + _go(root)
    return out + _make(root, {s.name for s in out})


def suggest(root: Path) -> str:
    """A `.bb7/checks.toml` to start from: the suggested checks, or a commented example."""
    found = suggestions(root)
    lines = [
        f"# {CHECKS_FILE}: the project's checks, run by bb7 on a throwaway copy of the",
        "# pending change (:help bb7-checks). `run`: an argv list, or a string for `sh -c`;",
        "# `files`: globs, the check runs when a pending file matches (default: all);",
        "# `timeout`: seconds (default 120).",
    ]
    if not found:
        lines += [
            "# Nothing here says how the project is checked; an example:",
            "#",
            "# [[check]]",
            '# name = "tests"',
            '# run = ["make", "test"]',
        ]
    for check in found:
        lines += ["", f"# {check.why}", "[[check]]", f"name = {json.dumps(check.name)}"]
        lines.append("run = [" + ", ".join(json.dumps(arg) for arg in check.run) + "]")
        if check.files:
            lines.append("files = [" + ", ".join(json.dumps(f) for f in check.files) + "]")
    return "\n".join(lines) + "\n"
