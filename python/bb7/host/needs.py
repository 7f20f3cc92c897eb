"""What a route needs before its handler runs, resolved once per call (see `bb7.host.handlers`).

- `Call`: every route gets at least this: events to Lua, the loop, the host's `Session`.
- `Project`: the project's workspace; refused when it has no `.bb7/` or its database is unusable.
- `Reading`: the active chat, to read (no lease); refused when there is none.
- `Held`: the active chat, held by this host (a lease); `held_or_new` starts one when there
  is none (what `:BB7Chat`, `:BB7Add` and a first send do); `held_or_global` (`:BB7Add`) also
  serves the global chats outside any project.

Each is built from the one below, so a handler that needs more than its route gave (the chat
view, a chat by id) asks for it with the same methods. A refusal raises `Abort`, which the
registry turns into the reply's Problem: handler bodies are only the core call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bb7.host import editor
from bb7.host.editor import EditorBuffers
from bb7.host.protocol import BufferText
from bb7.host.registry import Context
from bb7.host.session import Session
from bb7.refusal import Abort, Problem, unwrap
from bb7.state import chats, lock
from bb7.state.local import LocalView
from bb7.state.outputs import Writer
from bb7.state.records import Chat
from bb7.state.store import Store
from bb7.state.workspace import Workspace

NO_CHAT = "no active chat: :BB7NewChat starts one (so does :BB7Add)"
TAKE = ":BB7Chat! takes it over"


def held_elsewhere(store: Store, chat: Chat) -> str:
    """Who else holds `chat` (`lock.held_by`), '' when no other live process does."""
    return lock.held_by(store, chat.id)


def held_by_another(store: Store, chat_id: str) -> Problem:
    """The refusal of a change to a chat another live bb7 holds, in one line (where that one
    runs is on the view's read-only banner)."""
    lease = lock.holder(store, chat_id)
    by = "another bb7"
    if lease is not None:
        by = f"pid {lease.pid}" + ("" if lease.host == lock.this_host() else f" on {lease.host}")
    return Problem("locked", f"held by {by}: {TAKE} (read-only here)")


# Lua that writes one file through its loaded buffer; returns nil, or why it could not.
REPLACE = "return require('bb7.buffer').replace(...)"


@dataclass(frozen=True)
class Call:
    """One call of a route: the host around it."""

    ctx: Context
    session: Session

    def emit(self, name: str, payload: object = None) -> None:
        self.ctx.emit(name, payload)

    def project(self) -> Project:
        return Project(self.ctx, self.session, unwrap(self.session.project()))

    def active(self) -> Reading | None:
        """The active chat to read, or None (no project, no chat): for routes that then have
        nothing to do rather than something to refuse."""
        ws = self.session.workspace
        found = None if ws is None else ws.active()
        if ws is None or found is None:
            return None
        return Reading(self.ctx, self.session, ws, *found)


@dataclass(frozen=True)
class Project(Call):
    """A call in a project with bb7 state (its stores: `ws`)."""

    ws: Workspace

    def find(self, chat_id: str) -> tuple[Store, Chat]:
        """A chat of the project or the global store, by id (or a unique id prefix)."""
        return unwrap(self.ws.find(chat_id))

    def reading(self) -> Reading:
        """The active chat, to read."""
        found = self.ws.active()
        if found is None:
            raise Abort(Problem("no_chat", NO_CHAT))
        return Reading(self.ctx, self.session, self.ws, *found)

    def held(self, *, create: bool = False) -> Held:
        """The active chat, held by this host; with `create`, a new one when there is none."""
        found = self.ws.active()
        if found is None:
            if not create:
                raise Abort(Problem("no_chat", NO_CHAT))
            return self.new_chat(None)
        return self.hold(*found)

    def held_or_read(self, *, create: bool = False) -> Reading:
        """`held`, or only to read while another bb7 holds the chat (shown read-only)."""
        try:
            return self.held(create=create)
        except Abort as refused:
            if refused.problem.kind != "locked":
                raise
            return self.reading()

    def new_chat(self, name: str | None) -> Held:
        """A new chat in the project, made the active one and held by this host."""
        store = self.ws.home()
        chat = chats.new_chat(store, name=name or "")
        self.ws.set_active(store, chat.id)
        return self.hold(store, chat)

    def hold(self, store: Store, chat: Chat) -> Held:
        """`chat` held by this host (refused when another bb7 holds it: the chat view shows it
        read-only, and `:BB7Chat!` takes it over)."""
        problem = self.session.hold(store, chat)
        if problem is not None:
            raise Abort(held_by_another(store, chat.id) if problem.kind == "locked" else problem)
        return Held(self.ctx, self.session, self.ws, store, chat)


@dataclass(frozen=True)
class Reading(Project):
    """A call on the active chat (`store`, `chat`), to read it."""

    store: Store
    chat: Chat

    def path(self, raw: str) -> str:
        """The project path of the editor's path `raw` (refused when no file of the chat's
        store can be there)."""
        return unwrap(editor.project_path(self.store, raw))

    def editor_path(self, path: str) -> str:
        """The absolute path the editor knows the project path `path` by."""
        return editor.editor_path(self.store, path)

    def shown(self, raw: str) -> str:
        """The editor's path `raw` as messages name it (relative to the root inside it)."""
        return editor.shown(self.session.root, raw)

    def buffers(self, buffers: Iterable[BufferText]) -> EditorBuffers:
        """The editor's buffers by project path: their unsaved text, their buffer numbers."""
        return editor.editor_buffers(self.store, buffers)

    def seen(self, path: str) -> LocalView | None:
        """The local text the last status shown for `path` was computed from."""
        return self.session.seen.get(path)


@dataclass(frozen=True)
class Held(Reading):
    """A call on the active chat, held by this host (it may change the chat)."""

    def writer(self, buffers: EditorBuffers) -> Writer:
        """The core's write hook (`bb7.state.outputs.Writer`): a file loaded in Neovim is written
        through its buffer (its undo, marks and view stay), any other is left to the core's
        atomic write. The hook gets project paths, the keys of `buffers.loaded`: no path is
        mapped back. `bb7.buffer.replace` re-checks the buffer's changedtick."""

        def write(path: str, text: str) -> bool:
            buffer = buffers.loaded.get(path)
            if buffer is None:
                return False
            content = editor.to_lines(text)
            problem = self.ctx.lua(
                REPLACE, buffer.buf, buffer.changedtick, content.lines, content.eol
            )
            if problem:
                raise OSError(problem)
            return True

        return write


# What a route needs, as the route table names it: each builds its value for one call.


def call(ctx: Context, session: Session) -> Call:
    return Call(ctx, session)


def project(ctx: Context, session: Session) -> Project:
    return Call(ctx, session).project()


def reading(ctx: Context, session: Session) -> Reading:
    return project(ctx, session).reading()


def held(ctx: Context, session: Session) -> Held:
    return project(ctx, session).held()


def held_or_new(ctx: Context, session: Session) -> Held:
    """`held`, but a new chat is started when the project has no active one."""
    return project(ctx, session).held(create=True)


def held_or_global(ctx: Context, session: Session) -> Held:
    """`held_or_new`, and outside any bb7 project a global chat (as `:BB7Chat` opens there)."""
    session.serve_global()
    return held_or_new(ctx, session)
