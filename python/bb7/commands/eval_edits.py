"""`bb7 eval-edits`: score the edit engine on a corpus of single edits."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from bb7.edits.evaluate import Score, run_lines, verdict


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "eval-edits",
        help="apply every case of an edits corpus and print a per-category table",
        description="Apply every case of an edits corpus (JSON lines) and print a table.",
    )
    add_corpus_arguments(parser)
    parser.set_defaults(func=run)


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every corpus evaluation takes: the corpus, --results, --show."""
    parser.add_argument("corpus", help="JSON-lines file of cases")
    parser.add_argument("--results", help="write one JSON result per case here")
    parser.add_argument("--show", choices=["wrong", "missed", "all"], help="list such cases")


def run(args: argparse.Namespace) -> int:
    scores: dict[str, Score] = {}
    out = open(args.results, "wb") if args.results else None  # noqa: SIM115
    encoder = msgspec.json.Encoder()
    try:
        with open(args.corpus, encoding="utf-8") as corpus:
            for case, result in run_lines(corpus):
                if out is not None:
                    out.write(encoder.encode(result) + b"\n")
                category = case.category if case else "malformed"
                outcome = verdict(case, result) if case else "missed"
                score = scores.setdefault(category, Score())
                setattr(score, outcome, getattr(score, outcome) + 1)
                if (args.show and outcome != "correct") or args.show == "all":
                    detail = result.strategy if result.ok else f"{result.error_kind}"
                    print(f"{outcome:8} {result.id} [{detail}]", file=sys.stderr)
    finally:
        if out is not None:
            out.close()
    print_table(scores)
    return 0


def print_table(scores: dict[str, Score]) -> None:
    """Correct / wrong / missed per category, and the total with its share of correct."""
    total = Score()
    w = max([24, *map(len, scores)])
    print(f"{'category':{w}} {'correct':>8} {'wrong':>6} {'missed':>7}")
    for name in sorted(scores):
        s = scores[name]
        print(f"{name:{w}} {s.correct:8} {s.wrong:6} {s.missed:7}")
        total.correct += s.correct
        total.wrong += s.wrong
        total.missed += s.missed
    count = total.correct + total.wrong + total.missed
    pct = 100 * total.correct / count if count else 0.0
    print(f"{'total':{w}} {total.correct:8} {total.wrong:6} {total.missed:7}   {pct:.1f}% correct")
