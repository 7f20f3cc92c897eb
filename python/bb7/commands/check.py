"""`bb7 check [PATH]`: run the project's checks on a throwaway copy with the active chat's pending
outputs applied (or PATH's alone), print each verdict and the end of what failed, keep the
verdict with the chat. Exit 0 when every check passed, 1 when one failed or timed out, 2 when
they could not run. `--suggest` prints a starting `.bb7/checks.toml` instead.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import Any

import msgspec

from bb7.checks import CHECKS_FILE
from bb7.checks.config import Check, load_checks
from bb7.checks.process import Cancel
from bb7.checks.run import check_chat, run_checks
from bb7.checks.suggest import suggest
from bb7.checks.verdict import Verdict, last_lines, record, verdict_of
from bb7.commands.session import add_root_option, print_json, root_of
from bb7.refusal import Abort, Problem
from bb7.state.problems import StoreError
from bb7.state.records import CheckOutcome, CheckRun
from bb7.state.store import Store
from bb7.state.workspace import open_workspace
from bb7.text.words import plural

PASSED, FAILED, COULD_NOT_RUN = 0, 1, 2
# The end of a failing check's output the terminal shows (all of it: `--json`).
SHOWN_LINES, SHOWN_CHARS = 40, 8000


class CheckReport(msgspec.Struct):
    """`bb7 check --json`: the verdict, the run (every outcome with its output's end), and
    whether the verdict was kept with the chat."""

    verdict: Verdict
    run: CheckRun
    recorded: bool


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "check",
        description=f"Run the checks of {CHECKS_FILE} on a throwaway copy of the project with "
        "the active chat's pending outputs applied (only PATH's when given); the project is "
        "never touched. Exit 0: every check passed; 1: one failed or timed out; 2: the checks "
        "could not run.",
    )
    parser.add_argument("path", nargs="?", metavar="PATH", help="check only this pending file")
    parser.add_argument("--json", action="store_true", help="print the verdict and outcomes")
    parser.add_argument(
        "--suggest",
        action="store_true",
        help=f"print a starting {CHECKS_FILE} from what the project has (writes nothing)",
    )
    add_root_option(parser)
    parser.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"bb7: {message}", file=sys.stderr)
    return COULD_NOT_RUN


def run(args: argparse.Namespace) -> int:
    root = root_of(args)
    if not root.is_dir():
        return _fail(f"{root} is not a directory")
    if args.suggest:
        sys.stdout.write(suggest(root))
        return PASSED
    checks = load_checks(root)
    if isinstance(checks, Problem):
        return _fail(checks.message)
    if not checks:
        return _fail(
            f"no checks declared: write {CHECKS_FILE} (`bb7 check --suggest` prints one to "
            "start from)"
        )
    try:
        return _check(args, root, checks)
    except (Abort, StoreError) as exc:
        return _fail(str(exc))
    except sqlite3.DatabaseError as exc:
        return _fail(f"the chat database could not be read: {exc}")


def _check(args: argparse.Namespace, root: Path, checks: list[Check]) -> int:
    ws = open_workspace(root)
    found = None if isinstance(ws, Problem) else ws.active()
    try:
        if found is None or not found[0].outputs(found[1].id):
            if args.path:
                return _fail(f"{args.path} has no pending output")
            if not args.json:
                print("nothing pending: checking the project as it is")
            show = None if args.json else print_outcome
            done = run_checks(root, checks, [], Cancel(), on_outcome=show)
            if done is None:
                return COULD_NOT_RUN
            run = CheckRun(outcomes=done[0], isolation=done[1])
            return report(run, recorded=False, as_json=args.json)
        store, chat = found
        scope = args.path or ""
        return check_and_report(store, chat.id, root, checks, scope=scope, as_json=args.json)
    finally:
        if not isinstance(ws, Problem):
            ws.close()


def check_and_report(
    store: Store,
    chat_id: str,
    root: Path,
    checks: list[Check],
    *,
    scope: str = "",
    as_json: bool = False,
    held: bool = False,
) -> int:
    """Check the chat's pending change (`scope`'s alone), printing each check as it ends,
    keep the verdict with the chat (`held`: this process holds the chat already) and report
    it; the exit code."""
    if not as_json:
        count = 1 if scope else len(store.outputs(chat_id))
        print(f"checking {plural(count, 'pending file')} of chat {chat_id}")
    show = None if as_json else print_outcome
    checked = check_chat(store, chat_id, root, checks, Cancel(), scope=scope, on_outcome=show)
    if isinstance(checked, Problem):
        return _fail(checked.message)
    if checked is None:
        return COULD_NOT_RUN
    if held:
        record(store, chat_id, checked)
    return report(checked, recorded=held or _record(store, chat_id, checked), as_json=as_json)


def check_answer(store: Store, chat_id: str) -> None:
    """After `bb7 chat` or `bb7 agent` left pending outputs: the project's checks on them, when
    it declares some (this process holds the chat); the answer's exit code stands whatever they
    say."""
    assert store.root is not None
    checks = load_checks(store.root)
    if isinstance(checks, Problem):
        print(f"bb7: the checks did not run: {checks.message}", file=sys.stderr)
    elif checks:
        check_and_report(store, chat_id, store.root, checks, held=True)


def _record(store: Store, chat_id: str, run: CheckRun) -> bool:
    """Keep the verdict with the chat, when no other process has it open (then say so)."""
    from bb7.state import lock

    held = lock.acquire(store, chat_id)
    if isinstance(held, Problem):
        print(f"bb7: the verdict is not kept with the chat: {held.message}", file=sys.stderr)
        return False
    try:
        record(store, chat_id, run)
    finally:
        lock.release(store, held)
    return True


def print_outcome(outcome: CheckOutcome) -> None:
    """One check's verdict, and the end of what it printed when it did not pass."""
    label = {"passed": "passed", "failed": "FAILED", "timed_out": "TIMEOUT", "error": "ERROR"}
    detail = f" (exit {outcome.exit_code})" if outcome.state == "failed" else ""
    print(f"{label[outcome.state]:>7}  {outcome.name}  {outcome.seconds:.2f} s{detail}")
    if outcome.message:
        print(f"         {outcome.message}")
    if outcome.state != "passed" and outcome.output.strip():
        for line in last_lines(outcome.output, SHOWN_LINES, SHOWN_CHARS).splitlines():
            print(f"    {line}")
    sys.stdout.flush()


def report(run: CheckRun, *, recorded: bool, as_json: bool = False) -> int:
    """The verdict (the run with it in JSON); the exit code."""
    verdict = verdict_of(run.outcomes)
    if as_json:
        print_json(CheckReport(verdict=verdict, run=run, recorded=recorded))
    elif not verdict.total:
        print("no check covers the pending files (their `files` globs)")
    elif verdict.state == "passed":
        print(f"all {verdict.total} checks passed" if verdict.total != 1 else "the check passed")
    else:
        print(f"{verdict.failed} of {verdict.total} checks did not pass")
    if verdict.state == "passed":
        return PASSED
    return COULD_NOT_RUN if verdict.state == "error" else FAILED
