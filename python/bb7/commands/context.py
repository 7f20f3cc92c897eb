"""`bb7 add`, `bb7 remove` and `bb7 update`: the active chat's context files."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from bb7 import live
from bb7.adding import ask
from bb7.adding.expand import expand, links_out_line
from bb7.commands.session import active_chat, add_root_option, reported
from bb7.refusal import Abort, Problem, advise, unwrap
from bb7.state import context
from bb7.state.context import parse_target
from bb7.text.tokens import estimate_tokens, format_tokens
from bb7.text.words import plural


def register(subparsers: Any) -> None:
    add = subparsers.add_parser(
        "add",
        description="Add files to the active chat's context (a new chat if none is active). "
        "PATH:START-END adds a read-only section; a file outside the project is added "
        "read-only; a directory or glob (quote it: 'src/**/*.py') adds its text files that "
        "are not git-ignored, hidden or in .bb7/ignore. All paths are added, or none. "
        "`bb7 add diff [REF]` (or --staged) adds the git diff as a live part, read again at "
        "each send (./diff names a file called diff).",
    )
    add.add_argument("paths", nargs="+", metavar="PATH[:START-END]|DIR|GLOB|diff [REF]")
    add.add_argument("--staged", action="store_true", help="with diff: the staged changes")
    add.add_argument("--readonly", action="store_true", help="the model may read, not edit")
    add.add_argument(
        "--allow-secrets",
        action="store_true",
        help="add files that look like secrets (.env, keys, tokens) instead of refusing",
    )
    add_root_option(add)
    add.set_defaults(func=run_add)

    remove = subparsers.add_parser(
        "remove",
        description="Remove a file (or PATH:START-END section) from the active chat's context.",
    )
    remove.add_argument("path", metavar="PATH[:START-END]")
    add_root_option(remove)
    remove.set_defaults(func=run_remove)

    update = subparsers.add_parser(
        "update",
        description="Replace context files' snapshots with their current content on disk "
        "(a pending change is carried over onto it).",
    )
    update.add_argument("paths", nargs="*", metavar="PATH")
    update.add_argument("--all", action="store_true", help="every file that is out of sync")
    add_root_option(update)
    update.set_defaults(func=run_update)


@reported
def run_add(args: argparse.Namespace) -> int:
    if live.is_live(args.paths[0]) or args.staged:
        return _add_part(args)
    with active_chat(args, create=True, brief=True) as (ws, store, chat):
        found = unwrap(expand(args.paths, Path.cwd(), store.root))
        if found.links_out:
            print(f"bb7: {links_out_line(found, _shown)}", file=sys.stderr)
        if not args.allow_secrets:
            unwrap(advise(ask.secret_problem(found, _shown) or found, SECRET))
        targets = [f.target for f in found.found]
        before = [context.existing(store, chat.id, t, ws.root) for t in targets]
        done = unwrap(
            context.add_many(
                store,
                chat.id,
                targets,
                readonly=args.readonly,
                base=ws.root,
                skippable=[not f.named for f in found.found],
            )
        )
        store.settle()  # said "added" only once every process sees it
        was = dict(zip(targets, before, strict=True))
        for target, entry in zip(done.kept, done.entries, strict=True):
            verb = context.added_verb(was[target], entry)
            print(f"{verb} {entry.label()} ({entry.kind}) to {chat.name}")
        for target, why in done.skipped:
            print(f"skipped {_shown(target.path)}: {why}", file=sys.stderr)
    return 0


def _add_part(args: argparse.Namespace) -> int:
    words = [*args.paths, *(["--staged"] if args.staged else [])]
    part = unwrap(live.parse(words))
    if part.kind != "diff":
        raise Abort(Problem("invalid_args", f"{part.kind} exists only in the editor (:BB7Add)"))
    with active_chat(args, create=True) as (_, store, chat):
        text = live.read(part, None, store.root, [])
        if not isinstance(text, str):
            raise Abort(text or Problem("live", f"{part.name} cannot be read"))
        entry = unwrap(context.add_part(store, chat.id, part.kind, part.name, text))
        tokens = format_tokens(estimate_tokens(text))
        print(f"added {entry.path} ({tokens} tokens, read again at each send) to {chat.name}")
    return 0


SECRET = {"secret": "--allow-secrets adds it anyway"}


def _shown(path: str) -> str:
    return os.path.relpath(path) if path.startswith(os.getcwd() + os.sep) else path


@reported
def run_remove(args: argparse.Namespace) -> int:
    with active_chat(args, brief=True) as (ws, store, chat):
        entry = unwrap(context.remove(store, chat.id, parse_target(args.path), base=ws.root))
        print(f"removed {entry.label()} from {chat.name}")
    return 0


# A pending output in the way of an update: where to see it.
UPDATE = {"conflict": "`bb7 output diff` shows it"}


@reported
def run_update(args: argparse.Namespace) -> int:
    if args.all == bool(args.paths):
        raise Abort(Problem("invalid_args", "give either PATH... or --all"))
    with active_chat(args, brief=True) as (ws, store, chat):
        if args.all:
            failed = 0
            for path, got in context.update_all(store, chat.id):
                if isinstance(got, Problem):
                    failed += 1
                    print(f"not updated {path}: {advise(got, UPDATE).message}")
                else:
                    print(f"updated {got.label()} ({got.file_id})")
            if failed:
                raise Abort(Problem("partial", f"{plural(failed, 'file')} could not be updated"))
            return 0
        for path in args.paths:
            updated = context.update(store, chat.id, parse_target(path), base=ws.root)
            entry = unwrap(advise(updated, UPDATE))
            print(f"updated {entry.label()} ({entry.file_id})")
    return 0
