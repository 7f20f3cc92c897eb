"""`bb7 stats`: per model, how its answers with edits landed in this project's chats (at the
first try, after a repair, never) and the kinds of failure (`bb7.stats`)."""

from __future__ import annotations

import argparse
from typing import Any

from bb7.commands.session import add_root_option, print_json, reported, workspace
from bb7.refusal import unwrap
from bb7.state.records import PROJECT
from bb7.stats import model_stats


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "stats",
        description="Print, per model, the answers with edits in this project's chats: how "
        "many applied at the first try, after a repair, never, and the kinds of failure.",
    )
    add_root_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


@reported
def run(args: argparse.Namespace) -> int:
    with workspace(args) as ws:
        store = unwrap(ws.store(PROJECT))
        stats = model_stats(store.messages(chat.id) for chat in store.chats())
    if args.json:
        print_json({"models": stats})
        return 0
    if not stats:
        print("no answers with edits in this project's chats yet")
        return 0
    width = max(len(s.model) for s in stats)
    for s in stats:
        print(f"{s.model:<{width}}  {s.line()}")
    return 0
