"""`bb7 eval-edits` and `bb7 eval-responses`: score the edit engine (single edits) and whole
responses (through `bb7 apply`) on a JSON-lines corpus, and print a per-category table."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

import msgspec

from bb7.corpus.edits import Score, verdict
from bb7.corpus.edits import run_lines as run_edit_lines
from bb7.corpus.responses import run_lines as run_response_lines


def register(subparsers: Any) -> None:
    edits: argparse.ArgumentParser = subparsers.add_parser(
        "eval-edits",
        description="Apply every case of an edits corpus (JSON lines) and print a table.",
    )
    _add_corpus_arguments(edits)
    edits.set_defaults(func=_reported("eval-edits", run_edits))
    responses: argparse.ArgumentParser = subparsers.add_parser(
        "eval-responses",
        description=(
            "For each case (JSON lines: files, mode, response, expect_files, expect_error), "
            "write the files to a temporary project, run bb7 apply --json on the response and "
            "compare the resulting tree with the expected one."
        ),
    )
    _add_corpus_arguments(responses)
    responses.set_defaults(func=_reported("eval-responses", run_responses))


def _add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every corpus evaluation takes: the corpus, --results, --show."""
    parser.add_argument("corpus", help="JSON-lines file of cases")
    parser.add_argument("--results", help="write one JSON result per case here")
    parser.add_argument("--show", choices=["wrong", "missed", "all"], help="list such cases")


class _Unusable(Exception):
    """The corpus cannot be read or the results cannot be written: one line, exit 1."""


@contextlib.contextmanager
def _corpus_and_results(
    args: argparse.Namespace,
) -> Iterator[tuple[IO[str], Callable[[object], None]]]:
    """The corpus to read and a writer of one JSON result per line (to --results, or nowhere).
    The corpus is read whole first: one that cannot be read leaves an earlier --results file
    as it was, and fails before any table."""
    try:
        with open(args.corpus, encoding="utf-8") as file:
            corpus = io.StringIO(file.read())
    except UnicodeDecodeError:
        raise _Unusable(f"cannot read the corpus {args.corpus}: it is not UTF-8") from None
    except OSError as exc:
        raise _Unusable(f"cannot read the corpus {args.corpus}: {exc.strerror}") from None
    encoder = msgspec.json.Encoder()
    try:
        out = open(args.results, "wb") if args.results else None  # noqa: SIM115
    except OSError as exc:
        raise _Unusable(f"cannot write the results to {args.results}: {exc.strerror}") from None
    with out or contextlib.nullcontext():

        def write(result: object) -> None:
            if out is not None:
                out.write(encoder.encode(result) + b"\n")

        yield corpus, write


def _reported(
    command: str, run: Callable[[argparse.Namespace], int]
) -> Callable[[argparse.Namespace], int]:
    def reported(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except _Unusable as exc:
            print(f"bb7 {command}: {exc}", file=sys.stderr)
            return 1

    return reported


def run_edits(args: argparse.Namespace) -> int:
    scores: dict[str, Score] = {}
    with _corpus_and_results(args) as (corpus, write):
        for case, result in run_edit_lines(corpus):
            write(result)
            category = case.category if case else "malformed"
            outcome = verdict(case, result) if case else "missed"
            _count(scores, category, outcome)
            if (args.show and outcome != "correct") or args.show == "all":
                detail = result.strategy if result.ok else f"{result.error_kind}"
                print(f"{outcome:8} {result.id} [{detail}]", file=sys.stderr)
    _print_table(scores)
    return 0


def run_responses(args: argparse.Namespace) -> int:
    scores: dict[str, Score] = {}
    refusals = matched = 0
    with _corpus_and_results(args) as (corpus, write):
        for result in run_response_lines(corpus):
            write(result)
            _count(scores, result.category, result.verdict)
            if result.expect_error and result.verdict == "correct":
                refusals += 1
                matched += result.expect_error in result.error_kinds
            if args.show == "all" or (args.show and result.verdict == args.show):
                kinds = ",".join(result.error_kinds) or "applied"
                line = f"{result.verdict:8} {result.id} [{kinds}] {result.detail}"
                print(line, file=sys.stderr)
    _print_table(scores)
    print(f"refusals naming the expected error kind: {matched}/{refusals}")
    return 0


def _count(scores: dict[str, Score], category: str, outcome: str) -> None:
    score = scores.setdefault(category, Score())
    setattr(score, outcome, getattr(score, outcome) + 1)


def _print_table(scores: dict[str, Score]) -> None:
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
