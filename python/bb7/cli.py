"""The `bb7` command line: one subcommand per module under `bb7.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from bb7 import __version__

# Each module defines `register(subparsers)`, which adds its parser and sets `func`
# (a callable taking the parsed namespace and returning the exit code).
COMMAND_MODULES = (
    "bb7.commands.eval_edits",
    "bb7.commands.apply",
    "bb7.commands.eval_responses",
    "bb7.commands.init",
    "bb7.commands.context",
    "bb7.commands.status",
    "bb7.commands.output",
    "bb7.commands.chats",
    "bb7.commands.chat",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bb7", description=__doc__)
    parser.add_argument("--version", action="version", version=f"bb7 {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help(sys.stderr)
        return 2
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
