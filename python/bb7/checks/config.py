"""Which checks a project has: `.bb7/checks.toml` (one `[[check]]` table per check), with one
machine's additions and overrides from `setup()`'s `checks`. Reading and checking the
declarations only; running them is `bb7.checks.run`'s job.

    [[check]]
    name = "tests"
    run = ["pytest", "-q"]      # an argv list, or a string run by `sh -c`
    files = ["*.py"]            # run when a pending file matches (gitignore globs; default all)
    timeout = 120               # seconds

A declaration that cannot be used is one line naming the file, the line and what to change.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from bb7.checks import CHECKS_FILE
from bb7.checks.options import ChecksOptions, CheckSpec
from bb7.files.fsio import FileProblem, load_text
from bb7.files.ignore import IgnoreRules, parse_ignore
from bb7.refusal import Problem

DEFAULT_TIMEOUT = 120.0
# `[[check]]` starts a check's table; its line locates what is wrong with that check.
_HEADER = re.compile(r"^\s*\[\[\s*check\s*\]\]")
_AT_LINE = re.compile(r"\s*\(at line (\d+), column \d+\)$")
_AT_END = re.compile(r"\s*\(at end of document\)$")
FIELDS = ("name", "run", "files", "timeout", "enabled")


class Check(msgspec.Struct, frozen=True, kw_only=True):
    """A check ready to run."""

    name: str
    run: list[str] | str
    files: tuple[str, ...] = ()
    timeout: float = DEFAULT_TIMEOUT

    def argv(self) -> list[str]:
        return ["sh", "-c", self.run] if isinstance(self.run, str) else list(self.run)

    def command(self) -> str:
        """The program it starts, as the user wrote it (what 'not found' names)."""
        return "sh" if isinstance(self.run, str) else self.run[0]

    def applies(self, path: str) -> bool:
        """Whether a pending change of `path` (root-relative) is this check's business."""
        return not self.files or _globs(self.files).ignores(path)


@functools.lru_cache(maxsize=64)
def _globs(patterns: tuple[str, ...]) -> IgnoreRules:
    return parse_ignore("\n".join(patterns))


def load_checks(root: Path, options: ChecksOptions | None = None) -> list[Check] | Problem:
    """The project's checks (none when it has no `.bb7/checks.toml`), with `options`' checks
    over them, in the file's order and then the added ones."""
    path = root / CHECKS_FILE
    declared: list[CheckSpec] = []
    if path.exists():
        text = load_text(path)
        if isinstance(text, FileProblem):
            return Problem("bad_checks", f"{CHECKS_FILE}: {text.message}")
        parsed = parse_checks(text)
        if isinstance(parsed, Problem):
            return parsed
        declared = parsed
    return merge_checks(declared, [] if options is None else options.checks)


def read_toml(text: str, where: str) -> dict[str, Any] | Problem:
    """A TOML document, or where and why it does not parse (`FILE line N: why`)."""
    # Imported here: the host imports this module's shapes at start, and no TOML until read.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same parser from PyPI
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _AT_LINE.search(message)
        line = f" line {found.group(1)}" if found else ""
        if _AT_END.search(message):
            line = f" line {len(text.splitlines()) or 1}"
        reason = _AT_END.sub("", _AT_LINE.sub("", message))
        return Problem("bad_checks", f"{where}{line}: {reason[:1].lower()}{reason[1:]}")
    return data


def parse_checks(text: str, where: str = CHECKS_FILE) -> list[CheckSpec] | Problem:
    """The `[[check]]` tables of a checks file, each one checked (one line when wrong)."""
    data = read_toml(text, where)
    if isinstance(data, Problem):
        return data
    unknown = sorted(set(data) - {"check"})
    if unknown:
        return Problem(
            "bad_checks", f"{where}: unknown table or key `{unknown[0]}` (checks are [[check]])"
        )
    tables = data.get("check", [])
    if not isinstance(tables, list):
        return Problem("bad_checks", f"{where}: `check` should be [[check]] tables")
    lines = [n for n, line in enumerate(text.splitlines(), 1) if _HEADER.match(line)]
    specs: list[CheckSpec] = []
    for number, table in enumerate(tables):
        at = f"{where} line {lines[number]}" if number < len(lines) else where
        spec = check_spec(table, at, partial=False)
        if isinstance(spec, Problem):
            return spec
        if any(s.name == spec.name for s in specs):
            return Problem("bad_checks", f"{at}: a second check named '{spec.name}'")
        specs.append(spec)
    return specs


def check_spec(table: object, where: str, *, partial: bool) -> CheckSpec | Problem:
    """One declared check, its fields checked; `partial` (from `setup()`): only `name` is
    needed."""

    def bad(field: str, expect: str, got: object) -> Problem:
        label = f"check '{name}'" if isinstance(name, str) and name else "a check"
        return Problem("bad_checks", f"{where}: {label}: `{field}` should be {expect}, got {got!r}")

    if not isinstance(table, dict):
        return Problem("bad_checks", f"{where}: a check should be a table, got {table!r}")
    name: Any = table.get("name")
    unknown = sorted(set(table) - set(FIELDS))
    if unknown:
        return bad(unknown[0], "left out (fields: " + ", ".join(FIELDS) + ")", table[unknown[0]])
    if not isinstance(name, str) or not name.strip():
        return bad("name", "a non-empty string", name)
    run = table.get("run")
    if run is None and not partial:
        return bad("run", "an argv list or a shell command string", None)
    if run is not None and not (
        (isinstance(run, str) and run.strip())
        or (
            isinstance(run, list)
            and run
            and all(isinstance(a, str) for a in run)
            and run[0].strip()
        )
    ):
        return bad("run", "an argv list or a shell command string", run)
    files = table.get("files")
    if files is not None and not (
        isinstance(files, list) and all(isinstance(f, str) and f.strip() for f in files)
    ):
        return bad("files", "a list of globs", files)
    timeout = table.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0
    ):
        return bad("timeout", "a number of seconds > 0", timeout)
    enabled = table.get("enabled")
    if enabled is not None and not isinstance(enabled, bool):
        return bad("enabled", "true or false", enabled)
    return CheckSpec(
        name=name.strip(),
        run=run,
        files=files,
        timeout=None if timeout is None else float(timeout),
        enabled=enabled,
    )


def merge_checks(
    project: Sequence[CheckSpec], machine: Sequence[CheckSpec]
) -> list[Check] | Problem:
    """The project's checks with this machine's over them (by name, field by field)."""
    merged: dict[str, CheckSpec] = {spec.name: spec for spec in project}
    for spec in machine:
        base = merged.get(spec.name)
        if base is None:
            merged[spec.name] = spec
            continue
        changed = {f: getattr(spec, f) for f in FIELDS if getattr(spec, f) is not None}
        merged[spec.name] = msgspec.structs.replace(base, **changed)
    checks: list[Check] = []
    for spec in merged.values():
        if spec.enabled is False:
            continue
        if spec.run is None:
            return Problem(
                "bad_checks",
                f"setup() checks: check '{spec.name}' has no `run` (and no check of that name in "
                f"{CHECKS_FILE})",
            )
        checks.append(
            Check(
                name=spec.name,
                run=spec.run,
                files=tuple(spec.files or ()),
                timeout=spec.timeout or DEFAULT_TIMEOUT,
            )
        )
    return checks


def selected(checks: Sequence[Check], paths: Sequence[str]) -> list[Check]:
    """The checks a pending change of `paths` calls for (all of them when nothing is
    pending: then the project is checked as it is)."""
    if not paths:
        return list(checks)
    return [check for check in checks if any(check.applies(path) for path in paths)]


def on_answer(options: ChecksOptions, checks: Sequence[Check]) -> bool:
    """Whether an answer that leaves pending outputs starts the checks by itself."""
    return bool(checks) if options.on_answer is None else options.on_answer and bool(checks)
