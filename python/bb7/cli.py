"""The `bb7` command line: a static table of subcommands, so that `bb7 <command>` imports only
that command's module (and `bb7 --help` or `--version` none at all)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from bb7 import __version__

TYPE_CHECKING = False  # typing itself costs a tenth of the start-up time
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

VERSION = f"bb7 {__version__}"
DESCRIPTION = (
    "bb7 from a terminal: the project's chats, their context files and pending outputs, and "
    "applying a model response to files."
)

# name -> (module, help), in `--help` order. The module's `register(subparsers)` adds the parser
# of every command it serves (`subparsers.add_parser(name, description=...)`: a `Commands`, the
# help comes from here) and sets `func`: a callable taking the parsed namespace, returning the
# exit code.
COMMANDS: dict[str, tuple[str, str]] = {
    "apply": (
        "bb7.commands.apply",
        "apply a model response to the files under a directory, all or nothing",
    ),
    "init": ("bb7.commands.init", "create .bb7/ (chats and snapshots) in the project root"),
    "add": ("bb7.commands.context", "add files (or PATH:START-END sections) to the active chat"),
    "remove": ("bb7.commands.context", "remove a file or section from the active chat"),
    "update": ("bb7.commands.context", "re-snapshot context files from the files on disk"),
    "status": ("bb7.commands.status", "show the status of each file in the active chat"),
    "output": (
        "bb7.commands.output",
        "apply, discard, diff or undo the model's pending file changes",
    ),
    "check": (
        "bb7.commands.check",
        "run the project's checks on a throwaway copy with the pending outputs applied",
    ),
    "chats": ("bb7.commands.chats", "list, start, switch, rename, delete chats"),
    "chat": (
        "bb7.commands.chat",
        "send a message in the active chat and print the streamed answer",
    ),
    "agent": (
        "bb7.commands.agent",
        "send a message to an agent (ACP); its file changes wait in bb7's sandbox for review",
    ),
    "usage": (
        "bb7.commands.usage",
        "what today's requests cost, over every chat, and the OpenRouter key's credit left",
    ),
    "stats": (
        "bb7.commands.stats",
        "per model: answers with edits applied at the first try, after a repair, never",
    ),
    "eval-edits": (
        "bb7.corpus.commands",
        "apply every case of an edits corpus and print a per-category table",
    ),
    "eval-responses": (
        "bb7.corpus.commands",
        "run every case of a responses corpus through bb7 apply and print a table",
    ),
}


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout at the width it would pick, without its `import shutil` to pick it
    (shutil brings bz2, lzma and zlib: a twentieth of `bb7 status`, built with every parser)."""

    def __init__(self, prog: str) -> None:
        try:
            columns = int(os.environ.get("COLUMNS", "")) or os.get_terminal_size().columns
        except (ValueError, OSError):
            columns = 80
        super().__init__(prog, width=columns - 2)


class _Parser(argparse.ArgumentParser):
    """The parser of bb7 and of each command (sub-parsers are made of the same class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


class Commands:
    """What a command module's `register` gets: `add_parser` with the help from `COMMANDS`."""

    def __init__(self, subparsers: argparse._SubParsersAction[_Parser]) -> None:
        self._subparsers = subparsers

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        return self._subparsers.add_parser(name, help=COMMANDS[name][1], **kwargs)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser, complete for `command` (its module imported now); every other command is
    only listed with its help."""
    parser = _Parser(prog="bb7", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=VERSION)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = COMMANDS[command][0] if command in COMMANDS else None
    for name, (module, help_text) in COMMANDS.items():
        if module != chosen:
            subparsers.add_parser(name, help=help_text)
        elif name not in subparsers.choices:
            importlib.import_module(module).register(Commands(subparsers))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run `bb7 ARGV...` (default: the process's arguments); returns the exit code."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    if args_in == ["--version"]:
        # What tools probe: answered before argparse, which alone costs a bare start-up again.
        print(VERSION)
        return 0
    command = next((arg for arg in args_in if not arg.startswith("-")), None)
    from bb7.commands.terminal import Shown

    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Shown(out), Shown(err)
    try:
        parser = build_parser(command)
        args = parser.parse_args(args_in)
        if not hasattr(args, "func"):
            parser.print_help(sys.stderr)
            return 2
        code: int = args.func(args)
        return code
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = out, err


if __name__ == "__main__":
    sys.exit(main())
