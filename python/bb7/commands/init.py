"""`bb7 init`: create the project's `.bb7/` state (database and `.gitignore`)."""

from __future__ import annotations

import argparse
from typing import Any

from bb7.commands.session import add_root_option, reported, root_of
from bb7.refusal import Abort, Problem
from bb7.state.store import init_project


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "init",
        description="Create .bb7/ with the project's bb7 database; safe to run again.",
    )
    add_root_option(parser)
    parser.set_defaults(func=run)


@reported
def run(args: argparse.Namespace) -> int:
    root = root_of(args)
    if not root.is_dir():
        raise Abort(Problem("invalid_root", f"{root} is not a directory"))
    if root == root.home():
        raise Abort(Problem("invalid_root", "refusing to use the home directory as a project root"))
    with init_project(root) as store:
        print(f"initialised {store.path.parent} (schema {store.schema_version()})")
    return 0
