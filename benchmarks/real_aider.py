"""Score what real models sent: `real-aider-responses.jsonl` through `bb7 apply`.

Each case's files go to a fresh temporary project, the raw answer through `bb7 apply --json`
(text SEARCH/REPLACE blocks), and the tree afterwards is compared with the committed one byte for
byte (see the shared corpus README). `--edits` instead runs `real-aider.jsonl` straight through
the engine, each case's edits in order on one content, as tool-call edits (`old` taken
literally): without the text-block rules (the layout blank line before a marker, whole-line
SEARCH, a leaked fence, skipping no-op blocks), so its wrong cases are what those rules fix.

Run: .venv/bin/python benchmarks/real_aider.py [CORPUS] [--edits] [--show wrong|missed|all]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import msgspec

from bb7.corpus.jsonl import decode_lines
from bb7.corpus.responses import Case, run_case
from bb7.edits import Applied, LineIndex, replace

# The shared corpus sits beside the checkout (../shared from the main repo, further up from a
# worktree): the nearest ancestor holding one.
CORPUS = next(
    (
        p / "shared" / "corpus"
        for p in Path(__file__).resolve().parents
        if (p / "shared" / "corpus").is_dir()
    ),
    Path("../shared/corpus"),
)
MODE = "search_replace_blocks"


T = TypeVar("T")


class AiderResponse(msgspec.Struct):
    id: str
    files: dict[str, str]
    response: str
    category: str = "uncategorised"
    expect_files: dict[str, str] | None = None
    expect_error: str | bool | None = None  # True: any refusal


class AiderEdit(msgspec.Struct):
    old: str
    new: str


class AiderEdits(msgspec.Struct):
    id: str
    file: str
    edits: list[AiderEdit]
    category: str = "uncategorised"
    expect: str | None = None
    expect_error: str | bool | None = None  # True: any refusal


def score_responses(path: Path, show: str) -> Counter[str]:
    totals: Counter[str] = Counter()
    by_category: dict[str, Counter[str]] = {}
    with path.open(encoding="utf-8") as corpus:
        for row in _rows(corpus, AiderResponse):
            case = Case(
                id=row.id,
                files=row.files,
                mode=MODE,
                response=row.response,
                category=row.category,
                expect_files=row.expect_files,
                expect_error=_error_kind(row.expect_error),
            )
            result = run_case(case)
            totals[result.verdict] += 1
            by_category.setdefault(row.category, Counter())[result.verdict] += 1
            if show == "all" or result.verdict == show:
                kinds = ",".join(result.error_kinds) or "applied"
                print(
                    f"{result.verdict:8} {row.id} [{kinds}] {result.detail[:300]}", file=sys.stderr
                )
    _table(by_category, totals)
    return totals


def score_edits(path: Path, show: str) -> Counter[str]:
    totals: Counter[str] = Counter()
    by_category: dict[str, Counter[str]] = {}
    with path.open(encoding="utf-8") as corpus:
        for row in _rows(corpus, AiderEdits):
            content: str | None = row.file
            problem = ""
            index = LineIndex(content)
            for number, edit in enumerate(row.edits, 1):
                outcome = replace(content, edit.old, edit.new, index=index)
                if not isinstance(outcome, Applied):
                    problem = f"edit {number}: {outcome.kind}: {outcome.message[:200]}"
                    content = None
                    break
                content = outcome.content
                index = LineIndex(content)
            if content is None:
                verdict = "correct" if row.expect_error else "missed"
            else:
                verdict = "correct" if row.expect is not None and content == row.expect else "wrong"
            totals[verdict] += 1
            by_category.setdefault(row.category, Counter())[verdict] += 1
            if show == "all" or verdict == show:
                print(f"{verdict:8} {row.id} {problem}", file=sys.stderr)
    _table(by_category, totals)
    return totals


def _rows(lines: Iterable[str], kind: type[T]) -> Iterator[T]:
    """The corpus's records; a line that does not decode stops the benchmark, naming it."""
    for number, row in decode_lines(lines, msgspec.json.Decoder(kind)):
        if isinstance(row, msgspec.DecodeError):
            raise SystemExit(f"line {number} of the corpus: {row}")
        yield row


def _error_kind(expect_error: str | bool | None) -> str | None:
    if expect_error is True:
        return "any"
    return expect_error or None


def _table(by_category: dict[str, Counter[str]], totals: Counter[str]) -> None:
    print(f"{'category':14} {'cases':>6} {'correct':>8} {'wrong':>6} {'missed':>7}")
    for name, counts in sorted(by_category.items()):
        n = sum(counts.values())
        print(f"{name:14} {n:6} {counts['correct']:8} {counts['wrong']:6} {counts['missed']:7}")
    n = sum(totals.values())
    pct = 100 * totals["correct"] / n if n else 0.0
    print(
        f"{'total':14} {n:6} {totals['correct']:8} {totals['wrong']:6} {totals['missed']:7}"
        f"   ({pct:.1f}% correct)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", nargs="?", help="JSON-lines corpus (default: the shared one)")
    parser.add_argument("--edits", action="store_true", help="real-aider.jsonl via the engine")
    parser.add_argument("--show", default="", help="print cases with this verdict (or all)")
    args = parser.parse_args()
    name = "real-aider.jsonl" if args.edits else "real-aider-responses.jsonl"
    path = Path(args.corpus) if args.corpus else CORPUS / name
    if not path.exists():
        print(f"{path} does not exist", file=sys.stderr)
        return 2
    started = time.perf_counter()
    totals = score_edits(path, args.show) if args.edits else score_responses(path, args.show)
    print(f"{time.perf_counter() - started:.1f} s")
    return 0 if totals["wrong"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
