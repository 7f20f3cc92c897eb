"""The host's requests for the chat view (`lua/bb7/chat/`): a chat's whole view, the files
panel, the chat list (switch, rename, delete, pin, search), fork and edit from a message,
drafts, and the files panel's update, read-only and diff actions.

Each handler decodes its arguments, calls the core (`bb7.state`, `bb7.chatview`) and returns a
Struct from `bb7.protocol` or a `Problem`; a change of the active chat publishes its statuses
(signs, statusline). The active chat, new chats, apply, discard, vimdiff, models and sending
are `bb7.host_state`'s and `bb7.host_send`'s requests; the view calls those.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import TypeVar

import msgspec

from bb7.chatview import conversation, files
from bb7.host_registry import Context, Registry
from bb7.host_session import Session
from bb7.host_state import on_file, publish_all, reading_file
from bb7.protocol import (
    ChatIdArgs,
    ChatSummary,
    ChatView,
    ChatViewArgs,
    FileArgs,
    FileListArgs,
    MessageArgs,
    NoArgs,
    PinChatArgs,
    Problem,
    RenameChatArgs,
    Restored,
    SaveDraftArgs,
    SearchChatsArgs,
    SearchHit,
    SetReadonlyArgs,
    Updated,
)
from bb7.state import chats, context
from bb7.state.local import Buffers
from bb7.state.outputs import output_diff
from bb7.state.records import Chat, ContextEntry
from bb7.state.status import file_statuses
from bb7.state.store import Store
from bb7.state.workspace import Workspace

T = TypeVar("T")


def summary(ws: Workspace, chat: Chat) -> ChatSummary:
    active = ws.active()
    return ChatSummary(
        id=chat.id,
        name=chat.name,
        scope=chat.scope,
        pinned=chat.pinned,
        updated=chat.updated,
        model=chat.model,
        active=active is not None and active[1].id == chat.id,
    )


def view_summary(session: Session, ws: Workspace, chat: Chat) -> ChatSummary:
    """A chat for the view's title: its `model` is the one its next send uses."""
    return msgspec.structs.replace(summary(ws, chat), model=session.model(chat))


def _by_id(session: Session, chat_id: str) -> tuple[Workspace, Store, Chat] | Problem:
    ws = session.project()
    if isinstance(ws, Problem):
        return ws
    found = ws.find(chat_id)
    return found if isinstance(found, Problem) else (ws, *found)


def _panel(store: Store, chat_id: str, buffers: Buffers) -> files.Panel:
    rows = file_statuses(store, chat_id, buffers)
    return files.panel(rows, functools.partial(Session.editor_path, store), os.path.expanduser("~"))


def _active(session: Session, create: bool) -> tuple[Workspace, Store, Chat] | Problem:
    ws = session.project()
    if isinstance(ws, Problem):
        return ws
    found = session.chat(create=True) if create else session.reading()
    return found if isinstance(found, Problem) else (ws, *found)


def chat_view(session: Session, ctx: Context, args: ChatViewArgs) -> ChatView | Problem:
    """The active chat's view (or the chat `chat_id`'s)."""
    found = _by_id(session, args.chat_id) if args.chat_id else _active(session, args.create)
    if isinstance(found, Problem):
        return found
    ws, store, chat = found
    retry = bool(chat.retry_context)
    return ChatView(
        chat=view_summary(session, ws, chat),
        draft=chat.draft,
        retry=retry,
        conversation=conversation.render(store.messages(chat.id), retry=retry),
        files=_panel(store, chat.id, session.buffers(store, args.buffers)),
    )


def file_list(session: Session, ctx: Context, args: FileListArgs) -> files.Panel | Problem:
    found = session.reading()
    if isinstance(found, Problem):
        return found
    store, chat = found
    return _panel(store, chat.id, session.buffers(store, args.buffers))


def chat_list(session: Session, ctx: Context, args: NoArgs) -> list[ChatSummary] | Problem:
    """Every chat, pinned first, then the most recently used."""
    ws = session.project()
    if isinstance(ws, Problem):
        return ws
    return [summary(ws, chat) for chat in chats.list_chats(ws.stores())]


def _activate(
    session: Session, ctx: Context, ws: Workspace, store: Store, chat: Chat
) -> ChatSummary | Problem:
    """Make `chat` the active one, held by this host, and show its files' statuses."""
    ws.set_active(store, chat.id)
    held = session.chat()
    if isinstance(held, Problem):
        return held
    publish_all(ctx, session)
    return summary(ws, chat)


def switch_chat(session: Session, ctx: Context, args: ChatIdArgs) -> ChatSummary | Problem:
    found = _by_id(session, args.chat_id)
    return found if isinstance(found, Problem) else _activate(session, ctx, *found)


def _on_chat(
    session: Session, chat_id: str, act: Callable[[Store, str], Chat | Problem]
) -> ChatSummary | Problem:
    found = _by_id(session, chat_id)
    if isinstance(found, Problem):
        return found
    ws, store, chat = found
    changed = act(store, chat.id)
    return changed if isinstance(changed, Problem) else summary(ws, changed)


def rename_chat(session: Session, ctx: Context, args: RenameChatArgs) -> ChatSummary | Problem:
    return _on_chat(session, args.chat_id, lambda s, i: chats.rename_chat(s, i, args.name))


def pin_chat(session: Session, ctx: Context, args: PinChatArgs) -> ChatSummary | Problem:
    return _on_chat(session, args.chat_id, lambda s, i: chats.set_pinned(s, i, args.pinned))


def delete_chat(session: Session, ctx: Context, args: ChatIdArgs) -> ChatSummary | Problem | None:
    """Delete a chat; when it was the active one, the most recent other chat becomes active
    (returned), or none."""
    found = _by_id(session, args.chat_id)
    if isinstance(found, Problem):
        return found
    ws, store, chat = found
    active = ws.active()
    deleted = chats.delete_chat(store, chat.id)
    if isinstance(deleted, Problem):
        return deleted
    if active is not None and active[1].id != chat.id:
        return summary(ws, active[1])
    rest = chats.list_chats(ws.stores())
    if not rest:
        ws.set_active(ws.home(), None)
        publish_all(ctx, session)
        return None
    following = _by_id(session, rest[0].id)
    return following if isinstance(following, Problem) else _activate(session, ctx, *following)


def search_chats(
    session: Session, ctx: Context, args: SearchChatsArgs
) -> list[SearchHit] | Problem:
    ws = session.project()
    if isinstance(ws, Problem):
        return ws
    return [
        SearchHit(summary(ws, hit.chat), hit.match, hit.excerpt)
        for hit in chats.search_chats(ws.stores(), args.query)
    ]


def _restored(restored: chats.Restored) -> Restored:
    return Restored(
        chat_id=restored.chat.id,
        draft=restored.draft,
        warnings=[
            f"{w.path} was {w.issue} since that message was sent; the chat has the file as it "
            "was then"
            for w in restored.warnings
        ],
    )


def _restore(
    session: Session,
    ctx: Context,
    args: MessageArgs,
    restore: Callable[..., chats.Restored | Problem],
) -> Restored | Problem:
    """Fork or edit from a user message of the active chat; the chat it leaves active (the
    fork, or the cut chat) shows its files' statuses."""
    found = session.chat()
    if isinstance(found, Problem):
        return found
    store, chat = found
    buffers = session.buffers(store, args.buffers)
    restored = restore(store, chat.id, args.message_id, buffers=buffers)
    if isinstance(restored, Problem):
        return restored
    ws = session.project()
    assert not isinstance(ws, Problem)
    activated = _activate(session, ctx, ws, store, restored.chat)
    return activated if isinstance(activated, Problem) else _restored(restored)


def fork_chat(session: Session, ctx: Context, args: MessageArgs) -> Restored | Problem:
    """A new chat with the history before a user message of the active chat, made active."""
    return _restore(session, ctx, args, chats.fork_chat)


def edit_message(session: Session, ctx: Context, args: MessageArgs) -> Restored | Problem:
    """Cut the active chat before a user message; its text becomes the draft."""
    return _restore(session, ctx, args, chats.edit_message)


def save_draft(session: Session, ctx: Context, args: SaveDraftArgs) -> Problem | None:
    found = _by_id(session, args.chat_id)
    if isinstance(found, Problem):
        return found
    _, store, chat = found
    if chat.draft == args.draft:
        return None
    saved = chats.save_draft(store, chat.id, args.draft)
    return saved if isinstance(saved, Problem) else None


def _entry_path(entry: ContextEntry | Problem) -> str | Problem:
    return entry if isinstance(entry, Problem) else entry.path


def update_file(session: Session, ctx: Context, args: FileArgs) -> str | Problem:
    """Re-snapshot a file (or section) from its buffer or disk; returns its project path."""

    def update(store: Store, chat_id: str, path: str, buffers: Buffers) -> str | Problem:
        target = context.Target(path, args.start_line, args.end_line)
        return _entry_path(context.update(store, chat_id, target, buffers=buffers))

    return on_file(session, ctx, args, update)


def update_all(session: Session, ctx: Context, args: FileListArgs) -> Updated | Problem:
    found = session.chat()
    if isinstance(found, Problem):
        return found
    store, chat = found
    results = context.update_all(store, chat.id, buffers=session.buffers(store, args.buffers))
    publish_all(ctx, session, args.buffers)
    return Updated(
        updated=[path for path, got in results if isinstance(got, ContextEntry)],
        problems=[got.message for _, got in results if isinstance(got, Problem)],
    )


def set_readonly(session: Session, ctx: Context, args: SetReadonlyArgs) -> str | Problem:
    def toggle(store: Store, chat_id: str, path: str, buffers: Buffers) -> str | Problem:
        target = context.Target(path)
        return _entry_path(context.set_readonly(store, chat_id, target, args.readonly))

    return on_file(session, ctx, args, toggle)


def file_diff(session: Session, ctx: Context, args: FileArgs) -> str | Problem:
    """The pending change of a file as a unified diff (local text -> pending output)."""
    found = reading_file(session, args.path)
    if isinstance(found, Problem):
        return found
    store, chat, path = found
    return output_diff(store, chat.id, path, session.buffers(store, args.buffers))


def register(registry: Registry, session: Session) -> None:
    """Add the chat view's requests to the host's table."""

    def request(name: str, args_type: type[T], fn: Callable[[Session, Context, T], object]) -> None:
        registry.request(name, args_type, functools.partial(fn, session))

    request("chat_view", ChatViewArgs, chat_view)
    request("file_list", FileListArgs, file_list)
    request("chat_list", NoArgs, chat_list)
    request("switch_chat", ChatIdArgs, switch_chat)
    request("rename_chat", RenameChatArgs, rename_chat)
    request("pin_chat", PinChatArgs, pin_chat)
    request("delete_chat", ChatIdArgs, delete_chat)
    request("search_chats", SearchChatsArgs, search_chats)
    request("fork_chat", MessageArgs, fork_chat)
    request("edit_message", MessageArgs, edit_message)
    request("save_draft", SaveDraftArgs, save_draft)
    request("update_file", FileArgs, update_file)
    request("update_all", FileListArgs, update_all)
    request("set_readonly", SetReadonlyArgs, set_readonly)
    request("file_diff", FileArgs, file_diff)
