"""Run corpus cases (see shared corpus README) through the engine and score them."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

import msgspec

from bb7.corpus.jsonl import decode_lines
from bb7.edits.replace import replace
from bb7.edits.types import Applied


class Case(msgspec.Struct):
    id: str
    file: str
    old: str
    new: str
    category: str = "uncategorised"
    replace_all: bool = False
    start_line: int | None = None
    expect: str | None = None
    expect_error: str | None = None


class Result(msgspec.Struct, omit_defaults=False):
    id: str
    ok: bool
    content: str | None
    error_kind: str | None
    error: str | None
    strategy: str | None
    ms: float


class Score(msgspec.Struct):
    correct: int = 0
    wrong: int = 0
    missed: int = 0


_decode_case = msgspec.json.Decoder(Case)


def run_lines(lines: Iterable[str]) -> Iterator[tuple[Case | None, Result]]:
    """One result per non-blank input line, in order; a malformed line gets an error result."""
    for number, case in decode_lines(lines, _decode_case):
        if isinstance(case, msgspec.DecodeError):
            yield None, Result(f"line-{number}", False, None, "malformed", str(case), None, 0.0)
        else:
            yield case, run_case(case)


def run_case(case: Case) -> Result:
    started = time.perf_counter()
    try:
        outcome = replace(
            case.file,
            case.old,
            case.new,
            replace_all=case.replace_all,
            start_line=case.start_line,
        )
    except Exception as exc:  # a bug must not end the run; it shows up as an error result
        ms = (time.perf_counter() - started) * 1000
        return Result(case.id, False, None, "crash", f"{type(exc).__name__}: {exc}", None, ms)
    ms = round((time.perf_counter() - started) * 1000, 3)
    if isinstance(outcome, Applied):
        return Result(case.id, True, outcome.content, None, None, outcome.strategy, ms)
    return Result(case.id, False, None, outcome.kind, outcome.message, None, ms)


def verdict(case: Case, result: Result) -> str:
    """'correct', 'wrong' (applied but not as expected, or applied where refusal was due) or
    'missed' (refused although the edit should apply)."""
    if result.ok:
        return "correct" if case.expect is not None and result.content == case.expect else "wrong"
    return "correct" if case.expect_error else "missed"
