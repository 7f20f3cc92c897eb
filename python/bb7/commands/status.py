"""`bb7 status`: the status of every file in the active chat."""

from __future__ import annotations

import argparse
from typing import Any

import msgspec

from bb7.checks import CHECKS_FILE
from bb7.checks.verdict import CheckStatus, checks_now
from bb7.commands.session import add_root_option, print_json, reported, workspace
from bb7.state.records import Chat
from bb7.state.status import StatusRow, file_statuses
from bb7.state.store import Store


class StatusReport(msgspec.Struct):
    files: list[StatusRow]
    # The checks' verdict on the pending change (None: no checks declared, or nothing pending).
    check: CheckStatus | None = None


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "status",
        description="Statuses: blank in sync, M pending change, A pending new file, !A new "
        "file whose path exists, ~ local differs from the snapshot, ~M conflict, R read-only, "
        "S section; `choose`: an edit of the change matches several places and waits for "
        "`bb7 output choose`; `agent`: an agent changed the file on disk itself (`bb7 "
        "output diff` shows it, `bb7 output undo` undoes it). Tokens are a fast estimate "
        "(about 4 characters of code or English, or one CJK character, a token).",
    )
    parser.add_argument("--json", action="store_true", help='print {"files": [...]}')
    add_root_option(parser)
    parser.set_defaults(func=run)


@reported
def run(args: argparse.Namespace) -> int:
    with workspace(args) as ws:
        found = ws.active()
        rows = [] if found is None else file_statuses(found[0], found[1].id)
        check = None if found is None else _check(found[0], found[1].id)
        if args.json:
            print_json(StatusReport(rows, check))
            return 0
        if found is None:
            print("no active chat; `bb7 chats new` or `bb7 add PATH` starts one")
            return 0
        print_statuses(found[1], rows, check)
    return 0


def _check(store: Store, chat_id: str) -> CheckStatus | None:
    """The checks' verdict, when the project declares checks."""
    if store.root is None or not (store.root / CHECKS_FILE).is_file():
        return None
    return checks_now(store, chat_id)


def print_statuses(chat: Chat, rows: list[StatusRow], check: CheckStatus | None = None) -> None:
    """The chat and one line per file: status, path (or section), estimated tokens, and the
    checks' verdict on its pending change; then the verdict on the whole change."""
    print(f"chat {chat.id} {chat.name}")
    for row in rows:
        label = f"{row.path}:{row.start_line}-{row.end_line}" if row.start_line else row.path
        choose = "  choose" if row.choose else ""
        choose += "  agent" if row.agent else ""
        verdict = None if check is None or row.start_line else check.files.get(row.path)
        after = "" if verdict is None else f"  ({verdict.label()})"
        print(f"{row.status:>2}  {label}  [{row.tokens}]{choose}{after}")
    if check is not None:
        counted = f" ({check.failed} of {check.total})" if check.failed else ""
        print(f"{check.label()}{counted}")
