"""`bb7 eval-responses`: score whole-response application on a corpus, through `bb7 apply`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from bb7.commands.eval_edits import add_corpus_arguments, print_table
from bb7.edits.evaluate import Score
from bb7.formats.evaluate import run_lines


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "eval-responses",
        help="run every case of a responses corpus through bb7 apply and print a table",
        description=(
            "For each case (JSON lines: files, mode, response, expect_files, expect_error), "
            "write the files to a temporary project, run bb7 apply --json on the response and "
            "compare the resulting tree with the expected one."
        ),
    )
    add_corpus_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    scores: dict[str, Score] = {}
    refusals = matched = 0
    out = open(args.results, "wb") if args.results else None  # noqa: SIM115
    encoder = msgspec.json.Encoder()
    try:
        with open(args.corpus, encoding="utf-8") as corpus:
            for result in run_lines(corpus):
                if out is not None:
                    out.write(encoder.encode(result) + b"\n")
                score = scores.setdefault(result.category, Score())
                setattr(score, result.verdict, getattr(score, result.verdict) + 1)
                if result.expect_error and result.verdict == "correct":
                    refusals += 1
                    matched += result.expect_error in result.error_kinds
                if args.show == "all" or (args.show and result.verdict == args.show):
                    kinds = ",".join(result.error_kinds) or "applied"
                    line = f"{result.verdict:8} {result.id} [{kinds}] {result.detail}"
                    print(line, file=sys.stderr)
    finally:
        if out is not None:
            out.close()
    print_table(scores)
    print(f"refusals naming the expected error kind: {matched}/{refusals}")
    return 0
