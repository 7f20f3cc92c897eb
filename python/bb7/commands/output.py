"""`bb7 output apply|discard|reject|choose|diff|undo`: act on the model's pending outputs in the
active chat."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from bb7.commands.session import active_chat, add_root_option, reported
from bb7.files.fsio import atomic_write, load_text
from bb7.refusal import Abort, Problem, advise, unwrap
from bb7.state import choices, outputs
from bb7.state.context import resolve
from bb7.state.local import local_file
from bb7.state.merge import merge_output
from bb7.state.review import reject_hunks
from bb7.state.store import Store
from bb7.text.merge import describe_lines

if TYPE_CHECKING:
    from bb7.edits.types import Candidate


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "output",
        description="Act on a pending output of the active chat.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    apply = actions.add_parser("apply", help="write a pending output to the project")
    apply.add_argument("path", nargs="?", metavar="PATH")
    apply.add_argument("--all", action="store_true", help="apply every M and A file")
    apply.add_argument(
        "--force", action="store_true", help="overwrite local changes (~M) or a file (!A)"
    )
    apply.add_argument(
        "--merge", action="store_true", help="three-way merge with local changes (~M)"
    )
    apply.set_defaults(func=run_apply)

    discard = actions.add_parser("discard", help="drop a pending output")
    discard.add_argument("path", metavar="PATH")
    discard.set_defaults(func=run_discard)

    reject = actions.add_parser(
        "reject", help="reject every hunk of a pending output; the next request tells the model"
    )
    reject.add_argument("path", metavar="PATH")
    reject.add_argument("--reason", default="", metavar="TEXT", help="why, for the model")
    reject.set_defaults(func=run_reject)

    choose = actions.add_parser(
        "choose",
        help="an edit matching several places: list them, take place N, or --refuse it",
    )
    choose.add_argument("path", metavar="PATH")
    choose.add_argument("place", nargs="?", type=int, metavar="N", help="the place to take")
    choose.add_argument(
        "--refuse", action="store_true", help="take none; the next request tells the model"
    )
    choose.add_argument("--reason", default="", metavar="TEXT", help="why, for the model")
    choose.set_defaults(func=run_choose)

    diff = actions.add_parser("diff", help="unified diff from the local file to the output")
    diff.add_argument("path", metavar="PATH")
    diff.set_defaults(func=run_diff)

    undo = actions.add_parser("undo", help="restore the file as it was before the last apply")
    undo.add_argument("path", metavar="PATH")
    undo.add_argument("--force", action="store_true", help="even if the file changed since")
    undo.set_defaults(func=run_undo)

    for sub in (apply, discard, reject, choose, diff, undo):
        add_root_option(sub)


# What to do about a refused apply, in this command's flags (the core words what is wrong).
APPLY = {
    "read_only_file": "apply with --force to overwrite it; it stays read-only",
    "exists": "apply with --force to overwrite it (undo with `bb7 output undo`), or discard "
    "the output",
    "gone": "apply with --force to write it again, or discard the output",
    "conflict": "--merge takes the rest and leaves those pending, --force overwrites them (undo "
    "with `bb7 output undo`)",
    "choose": "`bb7 output choose PATH` lists the places",
}
# Why `apply --all` left a file, and how to apply it alone.
SKIPPED = {
    "gone": "apply it alone with --force",
    "conflict": "merge or apply it alone with --force",
    "exists": "apply it alone with --force",
    "choose": "`bb7 output choose PATH` lists the places",
}
UNDO = {"changed": "use --force to undo anyway", "conflict": "use --force to undo anyway"}


def _path(store: Any, raw: str) -> str:
    return unwrap(resolve(store, raw)).path


@reported
def run_apply(args: argparse.Namespace) -> int:
    if args.all == bool(args.path):
        raise Abort(Problem("invalid_args", "give either PATH or --all"))
    with active_chat(args) as (_, store, chat):
        if args.all:
            reports = outputs.apply_all(store, chat.id)
            for report in reports:
                advice = SKIPPED.get(report.kind)
                said = f"{report.message}; {advice}" if advice else report.message
                print(f"{report.status:>2}  {report.path}: {said}")
            failed = sum(not r.applied for r in reports)
            if failed:
                said = f"{failed} of {len(reports)} pending outputs were not applied"
                raise Abort(Problem("partial", said))
            return 0
        path = _path(store, args.path)
        if args.merge and not args.force:
            return _merge(store, chat.id, path)
        done = unwrap(advise(outputs.apply_output(store, chat.id, path, force=args.force), APPLY))
        how = "merged and applied" if done.merged else "applied"
        print(f"{how} {done.path}" + (f"; {outputs.LATE}" if done.late else ""))
    return 0


def _merge(store: Store, chat_id: str, path: str) -> int:
    """The editor's `:BB7Merge`, on the file: overlaps stay pending and fail the command."""
    target = local_file(store, path)
    # The text the merge starts from is looked at again right before the write: another
    # program's write meanwhile refuses the merge instead of being overwritten.
    seen = load_text(target)
    expect = seen if isinstance(seen, str) else None
    merged = unwrap(
        merge_output(
            store, chat_id, path, None, lambda text: atomic_write(target, text, expect=expect)
        )
    )
    if merged.overlaps:
        raise Abort(
            Problem(
                "conflict",
                f"merged {path} except {describe_lines(merged.overlaps)}: they overlap your "
                "local edits and stay pending (bb7 output diff shows them)",
            )
        )
    print(f"merged and applied {path}")
    return 0


@reported
def run_discard(args: argparse.Namespace) -> int:
    with active_chat(args) as (_, store, chat):
        gone = unwrap(outputs.discard_output(store, chat.id, _path(store, args.path)))
        print(f"discarded the pending output of {gone.path}")
    return 0


@reported
def run_reject(args: argparse.Namespace) -> int:
    if "\n" in args.reason.strip():
        raise Abort(Problem("invalid_args", "--reason should be one line"))
    with active_chat(args) as (_, store, chat):
        path = _path(store, args.path)
        target = local_file(store, path)

        def put(text: str) -> None:
            # An agent's own write: rejecting it puts the lines from before its turn on disk.
            atomic_write(target, text)

        unwrap(
            reject_hunks(
                store,
                chat.id,
                path,
                None,
                None,
                reason=args.reason,
                put=put,
            )
        )
        said = f" ({' '.join(args.reason.split())})" if args.reason.strip() else ""
        print(f"rejected the pending change of {path}{said}")
    return 0


@reported
def run_choose(args: argparse.Namespace) -> int:
    if args.refuse and args.place is not None:
        raise Abort(Problem("invalid_args", "give either N or --refuse"))
    if "\n" in args.reason.strip():
        raise Abort(Problem("invalid_args", "--reason should be one line"))
    with active_chat(args) as (_, store, chat):
        path = _path(store, args.path)
        if args.refuse:
            left = unwrap(choices.refuse(store, chat.id, path, reason=args.reason))
            print(f"refused the edit of {path}; the next request tells the model{_left(left)}")
            return 0
        if args.place is not None:
            chosen = unwrap(choices.choose(store, chat.id, path, args.place))
            print(
                f"{path}: took place {args.place} ({_lines(chosen.place)}); `bb7 output apply "
                f"{path}` writes the change{_left(chosen.left)}"
            )
            return 0
        _list_places(store, chat.id, path)
    return 0


def _list_places(store: Store, chat_id: str, path: str) -> None:
    """The first waiting edit of `path` and its places, each with its lines as they are."""
    waiting = store.choices(chat_id, path)
    choice = unwrap(choices.first_choice(store, chat_id, path))
    found = unwrap(choices.places(store, chat_id, choice))
    more = f" (1 of {len(waiting)} waiting)" if len(waiting) > 1 else ""
    print(f"{path}: an edit matches {len(found.places)} places{more}:")
    lines = found.base.splitlines()
    for number, place in enumerate(found.places, 1):
        print(f"{number:>3}: {_lines(place)}")
        for line in lines[place.start_line - 1 : min(place.end_line, place.start_line + 2)]:
            print(f"       {line}")
    print(f"`bb7 output choose {path} N` takes place N; --refuse takes none")


def _lines(place: Candidate) -> str:
    if place.start_line == place.end_line:
        return f"line {place.start_line}"
    return f"lines {place.start_line}-{place.end_line}"


def _left(left: int) -> str:
    if not left:
        return ""
    return f"; {left} more edit{'s' if left > 1 else ''} of it wait{'s' if left == 1 else ''}"


@reported
def run_diff(args: argparse.Namespace) -> int:
    with active_chat(args, lease=False) as (_, store, chat):
        sys.stdout.write(unwrap(outputs.output_diff(store, chat.id, _path(store, args.path))))
    return 0


@reported
def run_undo(args: argparse.Namespace) -> int:
    with active_chat(args) as (_, store, chat):
        undone = outputs.undo_apply(store, chat.id, _path(store, args.path), force=args.force)
        done = unwrap(advise(undone, UNDO))
        print(f"restored {done.path} as it was before the last apply")
    return 0
