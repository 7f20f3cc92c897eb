"""Run whole-response corpus cases through `bb7 apply` on real directories and score them.

Each case's files are written to a fresh temporary project, the response to a file beside it,
and `bb7 apply --root ROOT --mode MODE --json RESPONSE` runs in-process. The tree afterwards is
compared with the expected one byte for byte; a refused response must leave every file as it
was, and nothing may appear next to the project.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

from bb7.cli import main
from bb7.corpus.jsonl import decode_lines


class Case(msgspec.Struct):
    id: str
    files: dict[str, str]
    mode: str
    response: str
    category: str = "uncategorised"
    expect_files: dict[str, str] | None = None
    expect_error: str | None = None


class CaseResult(msgspec.Struct, omit_defaults=False):
    id: str
    category: str
    verdict: str  # correct, wrong, missed
    ok: bool
    error_kinds: list[str]
    expect_error: str | None
    detail: str
    ms: float


_decode_case = msgspec.json.Decoder(Case)


def run_lines(lines: Iterable[str]) -> Iterator[CaseResult]:
    """One result per non-blank line; a line that is not a case counts as missed."""
    for number, case in decode_lines(lines, _decode_case):
        if isinstance(case, msgspec.DecodeError):
            yield CaseResult(f"line-{number}", "malformed", "missed", False, [], None, str(case), 0)
        else:
            yield run_case(case)


def run_case(case: Case) -> CaseResult:
    with tempfile.TemporaryDirectory(prefix="bb7-eval-") as scratch:
        base = Path(scratch)
        root = base / "project"
        root.mkdir()
        for path, content in case.files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content.encode("utf-8"))
        response = base / "response.txt"
        response.write_bytes(case.response.encode("utf-8"))
        argv = ["apply", "--root", str(root), "--mode", case.mode, "--json", str(response)]
        out, err = io.StringIO(), io.StringIO()
        started = time.perf_counter()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse refusing the arguments
                code = exc.code if isinstance(exc.code, int) else 2
        ms = round((time.perf_counter() - started) * 1000, 3)
        tree = _tree(root)
        stray = sorted(p.name for p in base.iterdir() if p.name not in ("project", "response.txt"))
    try:
        report = msgspec.json.decode(out.getvalue())
    except msgspec.DecodeError:
        report = {"ok": False, "errors": [{"kind": "crash", "message": err.getvalue()[-500:]}]}
    ok = bool(report.get("ok")) and code == 0
    kinds = [str(e.get("kind")) for e in report.get("errors", [])]
    verdict, detail = _verdict(case, ok, tree, stray)
    if not detail and not ok:
        detail = "; ".join(str(e.get("message", ""))[:200] for e in report.get("errors", [])[:2])
    return CaseResult(case.id, case.category, verdict, ok, kinds, case.expect_error, detail, ms)


def _verdict(case: Case, ok: bool, tree: dict[str, str], stray: list[str]) -> tuple[str, str]:
    """correct / wrong (a tree other than expected, or any change on a refusal) / missed."""
    if stray:
        return "wrong", f"files written outside the project: {stray}"
    if case.expect_files is None:
        if tree != case.files:
            return "wrong", "a refused response changed files"
        return ("correct", "") if not ok else ("wrong", "applied a response that must fail")
    if tree == case.expect_files:
        return "correct", ""
    if tree == case.files and not ok:
        return "missed", ""
    differing = sorted(
        p for p in set(tree) | set(case.expect_files) if tree.get(p) != case.expect_files.get(p)
    )
    return "wrong", f"differs from the expected tree: {differing[:5]}"


def _tree(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes().decode("utf-8", "surrogateescape")
        for path in sorted(root.rglob("*"))
        if path.is_file() or path.is_symlink()
    }
