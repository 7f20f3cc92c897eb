"""`bb7 status`: the status of every file in the active chat."""

from __future__ import annotations

import argparse
from typing import Any

import msgspec

from bb7.commands.session import add_root_option, print_json, reported, workspace
from bb7.state.records import Chat
from bb7.state.status import StatusRow, file_statuses


class StatusReport(msgspec.Struct):
    files: list[StatusRow]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "status",
        description="Statuses: blank in sync, M pending change, A pending new file, !A new "
        "file whose path exists, ~ local differs from the snapshot, ~M conflict, R read-only, "
        "S section; `choose`: an edit of the change matches several places and waits for "
        "`bb7 output choose`. Tokens are a fast estimate (about 4 characters of code or "
        "English, or one CJK character, a token).",
    )
    parser.add_argument("--json", action="store_true", help='print {"files": [...]}')
    add_root_option(parser)
    parser.set_defaults(func=run)


@reported
def run(args: argparse.Namespace) -> int:
    with workspace(args) as ws:
        found = ws.active()
        rows = [] if found is None else file_statuses(found[0], found[1].id)
        if args.json:
            print_json(StatusReport(rows))
            return 0
        if found is None:
            print("no active chat; `bb7 chats new` or `bb7 add PATH` starts one")
            return 0
        print_statuses(found[1], rows)
    return 0


def print_statuses(chat: Chat, rows: list[StatusRow]) -> None:
    """The chat and one line per file: status, path (or section), estimated tokens."""
    print(f"chat {chat.id} {chat.name}")
    for row in rows:
        label = f"{row.path}:{row.start_line}-{row.end_line}" if row.start_line else row.path
        choose = "  choose" if row.choose else ""
        print(f"{row.status:>2}  {label}  [{row.tokens}]{choose}")
