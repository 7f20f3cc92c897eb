"""`bb7 usage`: what today's requests cost over every chat and project (the usage log), what the
active chat cost (in a project), and what is left of the OpenRouter key's credit when the key
may read it (`GET /key`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from bb7.chatview.conversation import total_usage
from bb7.commands.session import active_chat, add_provider_options, add_root_option, print_json
from bb7.provider.provider import provider_config
from bb7.refusal import Abort
from bb7.state.store import StoreError
from bb7.usage.log import day_spend, usage_log_path
from bb7.usage.report import credit_line, day_line, log_note, read_credit


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "usage",
        description="Print what today's requests cost over every chat and project (from the "
        "usage log, stdpath('data')/bb7/usage.csv) and, for OpenRouter, what is left of the "
        "API key's credit.",
    )
    add_provider_options(parser)
    parser.add_argument(
        "--no-credit", action="store_true", help="only the usage log: ask the provider nothing"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_root_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    spend = day_spend(usage_log_path())
    note = log_note(spend)
    if note:
        print(f"bb7: {note}", file=sys.stderr)
    credit = None
    if not args.no_credit:
        provider = provider_config(args.provider, args.base_url, api=args.api)
        if isinstance(provider, str):
            print(f"bb7: {provider}", file=sys.stderr)
            return 2
        credit = read_credit(provider, args.api_key, cwd=Path(os.getcwd()))
        if isinstance(credit, str) and not (args.provider or args.base_url or args.api_key):
            # No provider named and no OpenRouter key: the user's server may be another one
            # (the editor's setup is not read here), so OpenRouter's credit is not asked about.
            credit = None
    chat = _active_chat(args)
    if args.json:
        print_json({"today": spend, "chat": chat, "credit": credit})
        return 0
    print(day_line(spend))
    if chat is not None:
        name, totals = chat
        print(f"active chat {name!r}: {totals or 'nothing spent yet'}")
    if credit is not None:
        print(credit_line(credit))
    return 0


def _active_chat(args: argparse.Namespace) -> tuple[str, str] | None:
    """The active chat's name and totals, when there is a project with one."""
    try:
        with active_chat(args, lease=False) as (_ws, store, chat):
            return chat.name, total_usage(store.messages(chat.id))
    except (Abort, StoreError):
        return None
