"""The host's requests for the chat view (`lua/bb7/chat/`): open a chat's view, list, switch,
rename, delete, pin, search and fork chats, edit a message, keep drafts, and the files panel's
update, read-only and diff actions.

Each handler decodes its arguments, calls the core (`bb7.state`, `bb7.chatview`) and returns a
Struct from `bb7.protocol` or a `Problem`. Apply, discard, vimdiff, models and sending are the
plugin core's requests; the view calls those.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bb7.chatview import conversation, files
from bb7.host_registry import Context, Registry
from bb7.paths import project_path
from bb7.protocol import (
    BufferText,
    ChatIdArgs,
    ChatSummary,
    ChatView,
    ChatViewArgs,
    FileArgs,
    FileListArgs,
    MessageArgs,
    NewChatArgs,
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
from bb7.state.local import Buffers, LocalText
from bb7.state.outputs import output_diff
from bb7.state.records import Chat, ContextEntry
from bb7.state.records import Problem as StateProblem
from bb7.state.status import file_statuses
from bb7.state.store import Store
from bb7.state.workspace import Workspace, open_workspace

Found = tuple[Workspace, Store, Chat]


class Session:
    """The project the host serves: Neovim's working directory when the host started (bb7
    starts the host there). The workspace is opened on first use, and again after a failed
    open (`:BB7Init` may have created `.bb7/` since)."""

    def __init__(self, root: Callable[[], str] = os.getcwd) -> None:
        self._root = root
        self._workspace: Workspace | None = None

    def workspace(self) -> Workspace | Problem:
        if self._workspace is None:
            root = Path(self._root())
            opened = open_workspace(root)
            if isinstance(opened, StateProblem):
                return Problem(
                    "not_initialized", f"{root} is not a bb7 project yet; run :BB7Init there"
                )
            self._workspace = opened
        return self._workspace

    def active(self, *, create: bool = False) -> Found | Problem:
        """The active chat; with `create`, a project without one gets a new chat."""
        ws = self.workspace()
        if isinstance(ws, Problem):
            return ws
        found = ws.active()
        if found is None:
            if not create:
                return Problem("no_chat", "no active chat; start one with :BB7NewChat")
            store = ws.home()
            chat = chats.new_chat(store)
            ws.set_active(store, chat.id)
            return ws, store, chat
        return ws, found[0], found[1]

    def chat(self, chat_id: str) -> Found | Problem:
        ws = self.workspace()
        if isinstance(ws, Problem):
            return ws
        found = ws.find(chat_id)
        if isinstance(found, StateProblem):
            return _problem(found)
        return ws, found[0], found[1]


def _problem(problem: StateProblem) -> Problem:
    return Problem(problem.kind, problem.message)


def _root(ws: Workspace) -> str:
    return str(ws.root) if ws.root is not None else ""


def stored_path(store: Store, path: str) -> str:
    """How the store names an absolute path: relative inside the project, else absolute."""
    if store.root is not None:
        inside = project_path(store.root, path)
        if isinstance(inside, str):
            return inside
    return os.path.realpath(path)


def buffers_of(store: Store, texts: list[BufferText]) -> Buffers:
    """The editor's unsaved buffers (those sent with their lines), keyed as the store keys."""
    return {
        stored_path(store, b.path): LocalText("\n".join(b.lines) + "\n", b.changedtick)
        for b in texts
        if b.lines is not None
    }


def summary(ws: Workspace, chat: Chat) -> ChatSummary:
    active = ws.active()
    is_active = active is not None and active[1].id == chat.id
    return ChatSummary(
        id=chat.id,
        name=chat.name,
        scope=chat.scope,
        pinned=chat.pinned,
        updated=chat.updated,
        model=chat.model,
        active=is_active,
    )


def _panel(ws: Workspace, store: Store, chat_id: str, texts: list[BufferText]) -> files.Panel:
    rows = file_statuses(store, chat_id, buffers_of(store, texts))
    return files.panel(rows, _root(ws), os.path.expanduser("~"))


# -- handlers -----------------------------------------------------------------------------------

T = TypeVar("T")


def _within(
    found: Found | Problem, act: Callable[[Workspace, Store, Chat], T | StateProblem]
) -> T | Problem:
    """`act` on a chat that was found; a refusal (of the lookup or of `act`) as the Problem."""
    if isinstance(found, Problem):
        return found
    got = act(*found)
    return _problem(got) if isinstance(got, StateProblem) else got


def _path(entry: ContextEntry | StateProblem) -> str | StateProblem:
    return entry if isinstance(entry, StateProblem) else entry.path


class ChatHandlers:
    """The chat view's requests over one `Session`."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def active_chat(self, ctx: Context, args: NoArgs) -> ChatSummary | Problem:
        """The active chat (a new one when the project has none), for `:BB7Chat`."""
        return _within(self.session.active(create=True), lambda ws, _, chat: summary(ws, chat))

    def new_chat(self, ctx: Context, args: NewChatArgs) -> ChatSummary | Problem:
        """A new chat in the project (or global store), made active."""
        ws = self.session.workspace()
        if isinstance(ws, Problem):
            return ws
        store = ws.home()
        chat = chats.new_chat(store, name=args.name or "")
        ws.set_active(store, chat.id)
        return summary(ws, chat)

    def chat_view(self, ctx: Context, args: ChatViewArgs) -> ChatView | Problem:
        def view(ws: Workspace, store: Store, chat: Chat) -> ChatView:
            retry = bool(chat.retry_context)
            return ChatView(
                chat=summary(ws, chat),
                draft=chat.draft,
                retry=retry,
                conversation=conversation.render(store.messages(chat.id), retry=retry),
                files=_panel(ws, store, chat.id, args.buffers),
                root=_root(ws),
            )

        found = self.session.chat(args.chat_id) if args.chat_id else self.session.active()
        return _within(found, view)

    def file_list(self, ctx: Context, args: FileListArgs) -> files.Panel | Problem:
        return _within(
            self.session.active(),
            lambda ws, store, chat: _panel(ws, store, chat.id, args.buffers),
        )

    def chat_list(self, ctx: Context, args: NoArgs) -> list[ChatSummary] | Problem:
        """Every chat, pinned first, then the most recently used."""
        ws = self.session.workspace()
        if isinstance(ws, Problem):
            return ws
        return [summary(ws, chat) for chat in chats.list_chats(ws.stores())]

    def switch_chat(self, ctx: Context, args: ChatIdArgs) -> ChatSummary | Problem:
        def switch(ws: Workspace, store: Store, chat: Chat) -> ChatSummary:
            ws.set_active(store, chat.id)
            return summary(ws, chat)

        return _within(self.session.chat(args.chat_id), switch)

    def rename_chat(self, ctx: Context, args: RenameChatArgs) -> ChatSummary | Problem:
        def rename(ws: Workspace, store: Store, chat: Chat) -> ChatSummary | StateProblem:
            renamed = chats.rename_chat(store, chat.id, args.name)
            return renamed if isinstance(renamed, StateProblem) else summary(ws, renamed)

        return _within(self.session.chat(args.chat_id), rename)

    def pin_chat(self, ctx: Context, args: PinChatArgs) -> ChatSummary | Problem:
        def pin(ws: Workspace, store: Store, chat: Chat) -> ChatSummary | StateProblem:
            pinned = chats.set_pinned(store, chat.id, args.pinned)
            return pinned if isinstance(pinned, StateProblem) else summary(ws, pinned)

        return _within(self.session.chat(args.chat_id), pin)

    def delete_chat(self, ctx: Context, args: ChatIdArgs) -> ChatSummary | Problem | None:
        """Delete a chat; when it was the active one, the most recent other chat becomes
        active (returned), or none."""

        def delete(ws: Workspace, store: Store, chat: Chat) -> ChatSummary | StateProblem | None:
            active = ws.active()
            deleted = chats.delete_chat(store, chat.id)
            if isinstance(deleted, StateProblem):
                return deleted
            if active is not None and active[1].id != chat.id:
                return summary(ws, active[1])
            rest = chats.list_chats(ws.stores())
            if not rest:
                ws.set_active(ws.home(), None)
                return None
            following = ws.find(rest[0].id)
            assert not isinstance(following, StateProblem)
            ws.set_active(following[0], rest[0].id)
            return summary(ws, rest[0])

        return _within(self.session.chat(args.chat_id), delete)

    def search_chats(self, ctx: Context, args: SearchChatsArgs) -> list[SearchHit] | Problem:
        ws = self.session.workspace()
        if isinstance(ws, Problem):
            return ws
        return [
            SearchHit(summary(ws, hit.chat), hit.match, hit.excerpt)
            for hit in chats.search_chats(ws.stores(), args.query)
        ]

    def fork_chat(self, ctx: Context, args: MessageArgs) -> Restored | Problem:
        """A new chat with the history before the user message, made active."""

        def fork(ws: Workspace, store: Store, chat: Chat) -> Restored | StateProblem:
            buffers = buffers_of(store, args.buffers)
            forked = chats.fork_chat(store, chat.id, args.message_id, buffers=buffers)
            if isinstance(forked, StateProblem):
                return forked
            ws.set_active(store, forked.chat.id)
            return _restored(forked)

        return _within(self.session.active(), fork)

    def edit_message(self, ctx: Context, args: MessageArgs) -> Restored | Problem:
        """Truncate the active chat before the user message; its text becomes the draft."""

        def edit(ws: Workspace, store: Store, chat: Chat) -> Restored | StateProblem:
            buffers = buffers_of(store, args.buffers)
            edited = chats.edit_message(store, chat.id, args.message_id, buffers=buffers)
            return edited if isinstance(edited, StateProblem) else _restored(edited)

        return _within(self.session.active(), edit)

    def save_draft(self, ctx: Context, args: SaveDraftArgs) -> Problem | None:
        def save(ws: Workspace, store: Store, chat: Chat) -> StateProblem | None:
            if chat.draft == args.draft:
                return None
            saved = chats.save_draft(store, chat.id, args.draft)
            return saved if isinstance(saved, StateProblem) else None

        return _within(self.session.chat(args.chat_id), save)

    def update_file(self, ctx: Context, args: FileArgs) -> str | Problem:
        """Re-snapshot a file from its buffer (or disk); returns the stored path."""

        def update(ws: Workspace, store: Store, chat: Chat) -> str | StateProblem:
            target = _target(store, args.path, args.start_line, args.end_line)
            buffers = buffers_of(store, args.buffers)
            return _path(context.update(store, chat.id, target, buffers=buffers))

        return _within(self.session.active(), update)

    def update_all(self, ctx: Context, args: FileListArgs) -> Updated | Problem:
        def update(ws: Workspace, store: Store, chat: Chat) -> Updated:
            buffers = buffers_of(store, args.buffers)
            results = context.update_all(store, chat.id, buffers=buffers)
            return Updated(
                updated=[path for path, got in results if isinstance(got, ContextEntry)],
                problems=[got.message for _, got in results if isinstance(got, StateProblem)],
            )

        return _within(self.session.active(), update)

    def set_readonly(self, ctx: Context, args: SetReadonlyArgs) -> str | Problem:
        def toggle(ws: Workspace, store: Store, chat: Chat) -> str | StateProblem:
            target = _target(store, args.path, 0, 0)
            return _path(context.set_readonly(store, chat.id, target, args.readonly))

        return _within(self.session.active(), toggle)

    def file_diff(self, ctx: Context, args: FileArgs) -> str | Problem:
        """The pending change of a file as a unified diff (local text -> pending output)."""

        def diff(ws: Workspace, store: Store, chat: Chat) -> str | StateProblem:
            path = stored_path(store, args.path)
            return output_diff(store, chat.id, path, buffers_of(store, args.buffers))

        return _within(self.session.active(), diff)


def _target(store: Store, path: str, start: int, end: int) -> context.Target:
    return context.Target(stored_path(store, path), start, end)


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


def register(registry: Registry, session: Session | None = None) -> None:
    """Add the chat view's requests to the host's table."""
    h = ChatHandlers(session or Session())
    registry.request("active_chat", NoArgs, h.active_chat)
    registry.request("new_chat", NewChatArgs, h.new_chat)
    registry.request("chat_view", ChatViewArgs, h.chat_view)
    registry.request("file_list", FileListArgs, h.file_list)
    registry.request("chat_list", NoArgs, h.chat_list)
    registry.request("switch_chat", ChatIdArgs, h.switch_chat)
    registry.request("rename_chat", RenameChatArgs, h.rename_chat)
    registry.request("pin_chat", PinChatArgs, h.pin_chat)
    registry.request("delete_chat", ChatIdArgs, h.delete_chat)
    registry.request("search_chats", SearchChatsArgs, h.search_chats)
    registry.request("fork_chat", MessageArgs, h.fork_chat)
    registry.request("edit_message", MessageArgs, h.edit_message)
    registry.request("save_draft", SaveDraftArgs, h.save_draft)
    registry.request("update_file", FileArgs, h.update_file)
    registry.request("update_all", FileListArgs, h.update_all)
    registry.request("set_readonly", SetReadonlyArgs, h.set_readonly)
    registry.request("file_diff", FileArgs, h.file_diff)
