"""`bb7 chats`: list, start, switch, rename, delete, search, move and unlock chats."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

import msgspec

from bb7.commands.session import (
    add_root_option,
    print_json,
    reported,
    workspace,
)
from bb7.refusal import Abort, Problem, unwrap
from bb7.state import chats, history, lock
from bb7.state.records import GLOBAL, PROJECT, Chat
from bb7.state.workspace import Workspace


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "chats",
        description="Manage chats: project chats and global ones (read-only context).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser("list", help="list chats, pinned first (the default)")
    listing.add_argument("--json", action="store_true")
    new = actions.add_parser("new", help="start a chat and make it active")
    new.add_argument("name", nargs="?", default="")
    new.add_argument("--global", dest="global_", action="store_true", help="a global chat")
    switch = actions.add_parser("switch", help="make a chat the active one")
    switch.add_argument("id")
    rename = actions.add_parser("rename", help="rename a chat")
    rename.add_argument("id")
    rename.add_argument("name")
    delete = actions.add_parser("delete", help="delete a chat and its history")
    delete.add_argument("id")
    search = actions.add_parser("search", help="chats whose name or messages match")
    search.add_argument("query")
    move = actions.add_parser("move", help="move a chat between the project and global")
    move.add_argument("id")
    move.add_argument("--to", choices=[PROJECT, GLOBAL], required=True)
    unlock = actions.add_parser("unlock", help="force-unlock a chat another process holds")
    unlock.add_argument("id")
    pin = actions.add_parser("pin", help="keep a chat at the top of the list")
    pin.add_argument("id")
    unpin = actions.add_parser("unpin", help="stop keeping a chat at the top")
    unpin.add_argument("id")
    for sub in (parser, listing, new, switch, rename, delete, search, move, unlock, pin, unpin):
        add_root_option(sub)
    parser.set_defaults(func=run, action=None, json=False)


def held_by(ws: Workspace, chat: Chat) -> str:
    """The other live process holding `chat` (`pid 4242 in ~/p`), or ''."""
    store = ws.store(chat.scope)
    return "" if isinstance(store, Problem) else lock.held_by(store, chat.id)


@reported
def run(args: argparse.Namespace) -> int:
    with workspace(args) as ws:
        action = args.action or "list"
        if action == "list":
            active = ws.active()
            active_id = None if active is None else active[1].id
            rows = chats.list_chats(ws.stores())
            # Who else holds each chat (a live writer lease, as the editor's list marks it).
            held = {chat.id: held_by(ws, chat) for chat in rows}
            if args.json:
                listed = [msgspec.to_builtins(c) | {"held_by": held[c.id]} for c in rows]
                print_json({"active": active_id, "chats": listed})
                return 0
            for chat in rows:
                mark = "*" if chat.id == active_id else " "
                pin = "!" if chat.pinned else " "
                when = datetime.fromtimestamp(chat.updated).strftime("%Y-%m-%d %H:%M")
                note = f"  (held by {held[chat.id]})" if held[chat.id] else ""
                print(f"{mark}{pin} {chat.id}  {chat.scope:7} {when}  {chat.name}{note}")
            return 0
        if action == "new":
            store = unwrap(ws.store(GLOBAL if args.global_ else PROJECT))
            chat = chats.new_chat(store, name=args.name)
            ws.set_active(store, chat.id)
            print(f"new chat {chat.id} {chat.name}")
            return 0
        if action == "search":
            for hit in chats.search_chats(ws.stores(), args.query):
                print(f"{hit.chat.id}  {hit.match:7}  {hit.chat.name}: {hit.excerpt}")
            return 0
        store, chat = unwrap(ws.find(args.id))
        if action == "switch":
            ws.set_active(store, chat.id)
            print(f"switched to {chat.id} {chat.name}")
        elif action == "rename":
            renamed = unwrap(chats.rename_chat(store, chat.id, args.name))
            print(f"renamed {chat.id} to {renamed.name}")
        elif action == "delete":
            unwrap(chats.delete_chat(store, chat.id))
            active = ws.active()
            if active is None:
                ws.set_active(store, None)
            print(f"deleted {chat.id} {chat.name}")
        elif action == "move":
            target = unwrap(ws.store(args.to))
            if ws.root is None:
                raise Abort(Problem("not_initialized", "moving chats needs a project root"))
            moved = unwrap(history.move_chat(store, target, chat.id, ws.root))
            ws.set_active(target, moved.id)
            print(f"moved {chat.id} to {args.to}")
        elif action in ("pin", "unpin"):
            unwrap(chats.set_pinned(store, chat.id, action == "pin"))
            print(f"{action}ned {chat.id}")
        elif action == "unlock":
            lock.force_unlock(store, chat.id)
            print(f"unlocked {chat.id}")
    return 0
