"""Chats as the user manages them: new, list, rename, delete, pin, drafts, search, and
appending messages. Going back in a chat's history (fork, edit a message) and moving a chat
between stores are `bb7.state.history`'s.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterable
from datetime import datetime

import msgspec

from bb7.refusal import Abort, Problem
from bb7.state import lock
from bb7.state.records import Chat, Message, OutputRef, SnapshotRef, TextPart
from bb7.state.store import Store


class SearchHit(msgspec.Struct, frozen=True):
    chat: Chat
    match: str  # "name" or "message"
    excerpt: str
    message_id: int = 0


_DEFAULT_NAME = re.compile(r"Chat \d{4}-\d\d-\d\d \d\d:\d\d")


def _default_name(now: float) -> str:
    return "Chat " + datetime.fromtimestamp(now).strftime("%Y-%m-%d %H:%M")


def has_default_name(chat: Chat) -> bool:
    """True while the chat still has the name it was created with (no title, no rename)."""
    return _DEFAULT_NAME.fullmatch(chat.name) is not None


def refuse_if_held(store: Store, chat_id: str) -> None:
    held = lock.holder(store, chat_id)
    if held is not None:
        raise Abort(
            Problem(
                "locked",
                f"chat {chat_id} is open in another bb7 process (pid {held.pid} on {held.host});"
                f" close it there or run `bb7 chats unlock {chat_id}`",
            )
        )


def chat_or_abort(store: Store, chat_id: str) -> Chat:
    chat = store.chat(chat_id)
    if chat is None:
        raise Abort(Problem("no_chat", f"no chat {chat_id}; `bb7 chats list` shows them"))
    return chat


def new_chat(
    store: Store,
    *,
    name: str = "",
    model: str = "",
    reasoning_effort: str = "",
    draft: str = "",
    agent: str = "",
) -> Chat:
    now = time.time()
    chat = Chat(
        id=secrets.token_hex(5),
        name=name or _default_name(now),
        created=now,
        updated=now,
        model=model,
        reasoning_effort=reasoning_effort,
        draft=draft,
        scope=store.scope,
        agent=agent,
    )
    with store.transaction():
        store.insert_chat(chat)
    return chat


def list_chats(stores: Iterable[Store]) -> list[Chat]:
    """Chats of every store, pinned first, then the most recently used."""
    chats = [chat for store in stores for chat in store.chats()]
    chats.sort(key=lambda c: (not c.pinned, -c.updated, c.id))
    return chats


def _update(store: Store, chat_id: str, **fields: object) -> Chat | Problem:
    try:
        with store.transaction():
            chat_or_abort(store, chat_id)
            store.update_chat(chat_id, **fields)
            chat = store.chat(chat_id)
            assert chat is not None
            return chat
    except Abort as abort:
        return abort.problem


def rename_chat(store: Store, chat_id: str, name: str) -> Chat | Problem:
    if not name.strip():
        return Problem("invalid_name", "a chat name cannot be empty")
    return _update(store, chat_id, name=name.strip())


def set_pinned(store: Store, chat_id: str, pinned: bool) -> Chat | Problem:
    return _update(store, chat_id, pinned=pinned)


def save_draft(store: Store, chat_id: str, draft: str) -> Chat | Problem:
    return _update(store, chat_id, draft=draft)


def save_settings(
    store: Store, chat_id: str, *, model: str, reasoning_effort: str
) -> Chat | Problem:
    return _update(store, chat_id, model=model, reasoning_effort=reasoning_effort)


def delete_chat(store: Store, chat_id: str) -> Chat | Problem:
    """Delete a chat with its messages, context and outputs (refused while another process has
    it open)."""
    try:
        with store.transaction():
            chat = chat_or_abort(store, chat_id)
            refuse_if_held(store, chat_id)
            store.delete_chat(chat_id)
            return chat
    except Abort as abort:
        return abort.problem


def search_chats(stores: Iterable[Store], query: str) -> list[SearchHit]:
    """Chats whose name or messages contain every word of `query` (as word prefixes)."""
    words = re.findall(r"\w+", query)
    if not words:
        return [SearchHit(chat, "name", chat.name) for chat in list_chats(stores)]
    fts = " ".join(f'"{w}"*' for w in words)
    hits: list[SearchHit] = []
    for store in stores:
        seen: set[str] = set()
        for chat_id, message_id, excerpt in store.search(fts):
            if chat_id in seen:
                continue
            chat = store.chat(chat_id)
            if chat is None:
                continue
            seen.add(chat_id)
            match = "name" if message_id == 0 else "message"
            hits.append(SearchHit(chat, match, " ".join(excerpt.split()), message_id))
    return hits


# -- messages --------------------------------------------------------------------------------


def append_user_message(store: Store, chat_id: str, text: str, *, model: str = "") -> Message:
    """Store a user message with the context and pending outputs it is sent with."""
    with store.transaction():
        snapshot = [SnapshotRef.of(e) for e in store.entries(chat_id)]
        outputs = [OutputRef.of(o) for o in store.outputs(chat_id)]
        message = Message(
            role="user",
            parts=[TextPart(text)],
            model=model,
            context_snapshot=snapshot,
            outputs_snapshot=outputs,
        )
        return store.append_message(chat_id, message)


def append_message(store: Store, chat_id: str, message: Message) -> Message:
    """Store an assistant or system message as it is."""
    with store.transaction():
        return store.append_message(chat_id, message)


def fresh(store: Store, chat_id: str) -> Chat:
    """The chat as stored now (after an action changed it)."""
    chat = store.chat(chat_id)
    assert chat is not None
    return chat
