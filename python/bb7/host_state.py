"""Host handlers for the project state: open/init, chats, context, statuses, apply, discard,
undo, diff and merge. Each is decode -> core call (`bb7.state`) -> encode, plus a
`status_changed` event for the files it touched.

Writes to a file that is loaded in Neovim go through its buffer (`bb7.buffer.replace` in Lua:
the lines are replaced as one undoable change, then written), so undo, marks and the
buffer's view stay; other files are written atomically by the core. The core re-checks the
local text right before writing; the Lua side re-checks the buffer's changedtick.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Protocol, TypeVar

from bb7.editor_text import to_lines
from bb7.fsio import atomic_write
from bb7.host_registry import Context
from bb7.host_session import Session
from bb7.protocol import (
    AddArgs,
    ApplyArgs,
    BuffersArgs,
    BufferText,
    DiffView,
    FileStatus,
    InitArgs,
    NewChatArgs,
    NoArgs,
    Notify,
    OpenArgs,
    Opened,
    PathArgs,
    Said,
    SetModelArgs,
    StatusChanged,
    StatusesArgs,
)
from bb7.state import context, outputs
from bb7.state.chats import save_settings
from bb7.state.local import Buffers, LocalView
from bb7.state.merge import finish_merge as core_finish_merge
from bb7.state.records import Chat, Problem
from bb7.state.status import file_statuses, pending_lines
from bb7.state.store import Store

T = TypeVar("T")

# Lua that writes one file through its loaded buffer; returns nil, or why it could not.
REPLACE = "return require('bb7.buffer').replace(...)"

# How the editor says what the core refused, naming the commands that resolve it.
APPLY_REFUSALS = {
    "conflict": "{path} has local changes (~M) that the pending change would overwrite; "
    ":BB7Apply! applies over them (undo with :BB7UndoApply), :BB7Diff merges by hand",
    "exists": "{path} now exists locally, but the model wrote it as a new file (!A); "
    ":BB7Apply! overwrites it (undo with :BB7UndoApply), :BB7Diff merges by hand",
}


# -- statuses ----------------------------------------------------------------------------------


def publish(
    ctx: Context,
    session: Session,
    store: Store,
    chat_id: str,
    buffers: Buffers,
    paths: Collection[str] | None = None,
) -> None:
    """Emit `status_changed` for `paths` of the chat (every file, replacing Lua's cache, when
    None); paths no longer in the chat are sent as removed."""
    if paths is not None and not paths:
        return
    files: dict[str, FileStatus] = {}
    shown: set[str] = set()
    for row in file_statuses(store, chat_id, buffers, paths=paths):
        if row.path in shown:
            continue  # a section of a file that is also whole: the whole file's status counts
        shown.add(row.path)
        lines = pending_lines(store, chat_id, row.path, buffers) if row.has_output else []
        files[session.editor_path(store, row.path)] = FileStatus(row.status, lines)
        session.seen[row.path] = LocalView(row.local_hash, row.changedtick)
    removed = [session.editor_path(store, p) for p in paths or () if p not in shown]
    ctx.emit("status_changed", StatusChanged(files=files, removed=removed, full=paths is None))


def publish_all(ctx: Context, session: Session, buffers: Iterable[BufferText] = ()) -> None:
    """Every status of the active chat (none without one)."""
    found = session.active()
    if found is None:
        ctx.emit("status_changed", StatusChanged(files={}, full=True))
        return
    store, chat = found
    publish(ctx, session, store, chat.id, session.buffers(store, buffers))


def statuses(session: Session, ctx: Context, args: StatusesArgs) -> int:
    """Recompute the statuses of the given buffers' files (all files with `all`)."""
    found = session.active()
    if found is None:
        if args.all:
            publish_all(ctx, session)
        return 0
    store, chat = found
    buffers = session.buffers(store, args.buffers)
    if args.all:
        publish(ctx, session, store, chat.id, buffers)
        return len(args.buffers)
    paths = [p for p in (session.path(store, b.path) for b in args.buffers) if isinstance(p, str)]
    publish(ctx, session, store, chat.id, buffers, paths)
    return len(paths)


# -- project and chats -------------------------------------------------------------------------


def open_project(session: Session, ctx: Context, args: OpenArgs) -> Opened:
    session.open(Path(args.root), args.settings)
    publish_all(ctx, session, args.buffers)
    found = session.active()
    return Opened(
        root=str(session.root),
        initialized=session.workspace is not None,
        chat=None if found is None else found[1].id,
    )


def init(session: Session, ctx: Context, args: InitArgs) -> Said | Problem:
    root = Path(args.root)
    if not root.is_dir():
        return Problem("invalid_root", f"{root} is not a directory")
    if root.resolve() == Path.home().resolve():
        return Problem("invalid_root", "refusing to use the home directory as a project root")
    state = session.init(root)
    publish_all(ctx, session)
    return Said(f"bb7 is ready in {root} (state in {state})")


def active_chat(session: Session, ctx: Context, args: NoArgs) -> Chat | Problem:
    """The active chat (a new one when there is none), held by this host."""
    found = session.chat(create=True)
    return found if isinstance(found, Problem) else found[1]


def new_chat(session: Session, ctx: Context, args: NewChatArgs) -> Said | Problem:
    found = session.new_chat(args.name)
    if isinstance(found, Problem):
        return found
    store, chat = found
    publish(ctx, session, store, chat.id, {})
    return Said(f"new chat: {chat.name}")


def set_model(session: Session, ctx: Context, args: SetModelArgs) -> Said | Problem:
    found = session.chat(create=True)
    if isinstance(found, Problem):
        return found
    store, chat = found
    saved = save_settings(store, chat.id, model=args.model, reasoning_effort=chat.reasoning_effort)
    return saved if isinstance(saved, Problem) else Said(f"model of {chat.name}: {args.model}")


# -- context -----------------------------------------------------------------------------------


def add(session: Session, ctx: Context, args: AddArgs) -> Said | Problem:
    found = session.chat(create=True)
    if isinstance(found, Problem):
        return found
    store, chat = found
    target = context.Target(args.path, args.start_line or 0, args.end_line or 0)
    buffers = session.buffers(store, args.buffers)
    path = session.path(store, args.path)
    # What the user sees: unsaved buffer text counts, for a section too.
    text = None if isinstance(path, Problem) else _text(buffers, path)
    entry = context.add(
        store, chat.id, target, readonly=args.readonly, text=text, base=session.root
    )
    if isinstance(entry, Problem):
        return entry
    publish(ctx, session, store, chat.id, buffers, [entry.path])
    return Said(f"added {entry.label()} to {chat.name} ({entry.kind})")


def _text(buffers: Buffers, path: str) -> str | None:
    local = buffers.get(path)
    return None if local is None else local.text


def remove(session: Session, ctx: Context, args: PathArgs) -> Said | Problem:
    found = session.chat()
    if isinstance(found, Problem):
        return found
    store, chat = found
    entry = context.remove(store, chat.id, context.Target(args.path), base=session.root)
    if isinstance(entry, Problem):
        return entry
    publish(ctx, session, store, chat.id, session.buffers(store, args.buffers), [entry.path])
    return Said(f"removed {entry.label()} from {chat.name}")


# -- pending outputs ---------------------------------------------------------------------------


class FileRequest(Protocol):
    """Arguments naming one file (absolute path) with the editor's buffers."""

    @property
    def path(self) -> str: ...

    @property
    def buffers(self) -> list[BufferText]: ...


def on_file(
    session: Session,
    ctx: Context,
    args: FileRequest,
    action: Callable[[Store, str, str, Buffers], T | Problem],
) -> T | Problem:
    """Run `action(store, chat_id, path, buffers)` on the file `args.path` of the held chat,
    then publish that file's status (whatever the outcome)."""
    found = session.chat()
    if isinstance(found, Problem):
        return found
    store, chat = found
    path = session.path(store, args.path)
    if isinstance(path, Problem):
        return path
    buffers = session.buffers(store, args.buffers)
    result = action(store, chat.id, path, buffers)
    publish(ctx, session, store, chat.id, buffers, [path])
    return result


def _writer(
    ctx: Context, session: Session, store: Store, buffers: Iterable[BufferText]
) -> outputs.Writer:
    """The core's `write` hook: through the loaded buffer of the target, else atomically."""
    loaded = {}
    for buffer in buffers:
        path = session.path(store, buffer.path)
        if isinstance(path, str) and buffer.buf:
            loaded[session.editor_path(store, path)] = buffer

    def write(target: Path, text: str) -> None:
        buffer = loaded.get(str(target))
        if buffer is None:
            atomic_write(target, text)
            return
        content = to_lines(text)
        problem = ctx.lua(REPLACE, buffer.buf, buffer.changedtick, content.lines, content.eol)
        if problem:
            raise OSError(problem)

    return write


def apply(session: Session, ctx: Context, args: ApplyArgs) -> Said | Problem:
    done = on_file(
        session,
        ctx,
        args,
        lambda store, chat_id, path, buffers: outputs.apply_output(
            store,
            chat_id,
            path,
            seen=session.seen.get(path),
            buffers=buffers,
            force=args.force,
            write=_writer(ctx, session, store, args.buffers),
        ),
    )
    if isinstance(done, Problem):
        hint = APPLY_REFUSALS.get(done.kind)
        return Problem(done.kind, hint.format(path=session.shown(args.path))) if hint else done
    if done.status == "~M":
        return Said(f"applied {done.path} over your local changes (undo with :BB7UndoApply)")
    return Said(f"applied {done.path}")


def apply_all(session: Session, ctx: Context, args: BuffersArgs) -> Said | Problem:
    found = session.chat()
    if isinstance(found, Problem):
        return found
    store, chat = found
    buffers = session.buffers(store, args.buffers)
    reports = outputs.apply_all(
        store, chat.id, buffers, write=_writer(ctx, session, store, args.buffers)
    )
    publish(ctx, session, store, chat.id, buffers)
    if not reports:
        return Problem("nothing_pending", f"{chat.name} has no pending changes")
    applied = sum(r.applied for r in reports)
    lines = [f"{r.status or ' ':>2} {r.path}: {r.message}" for r in reports]
    return Said(f"applied {applied} of {len(reports)} pending changes:\n" + "\n".join(lines))


def discard(session: Session, ctx: Context, args: PathArgs) -> Said | Problem:
    gone = on_file(
        session,
        ctx,
        args,
        lambda store, chat_id, path, _: outputs.discard_output(store, chat_id, path),
    )
    if isinstance(gone, Problem):
        return gone
    return Said(f"discarded the pending change of {gone.path}")


def undo_apply(session: Session, ctx: Context, args: PathArgs) -> Said | Problem:
    done = on_file(
        session,
        ctx,
        args,
        lambda store, chat_id, path, buffers: outputs.undo_apply(
            store, chat_id, path, buffers=buffers, write=_writer(ctx, session, store, args.buffers)
        ),
    )
    if isinstance(done, Problem):
        return done
    return Said(f"restored {done.path} as before the last apply; its change is pending again")


def reading_file(session: Session, raw: str) -> tuple[Store, Chat, str] | Problem:
    """The active chat (for reading: no lease needed) and the project path of `raw`."""
    found = session.reading()
    if isinstance(found, Problem):
        return found
    store, chat = found
    path = session.path(store, raw)
    return path if isinstance(path, Problem) else (store, chat, path)


def diff(session: Session, ctx: Context, args: PathArgs) -> DiffView | Problem:
    """The pending output of a file, for `:BB7Diff`."""
    found = reading_file(session, args.path)
    if isinstance(found, Problem):
        return found
    store, chat, path = found
    output = store.output(chat.id, path)
    if output is None:
        return Problem("no_output", f"{path} has no pending change to merge")
    content = to_lines(store.blob(output.blob))
    return DiffView(
        path=session.editor_path(store, path), name=path, lines=content.lines, eol=content.eol
    )


MERGE_OUTCOMES = {
    "full": "{path}: all of the pending change is merged",
    "partial": "{path}: part of the pending change is merged; :BB7Diff shows the rest",
    "none": "{path}: nothing merged; the change is still pending",
}


def finish_merge(session: Session, ctx: Context, args: PathArgs) -> Said | Problem:
    """The diff tab of `:BB7Diff` closed: record what the user took from the output."""
    outcome = on_file(session, ctx, args, core_finish_merge)
    if isinstance(outcome, Problem):
        return outcome
    return Said(MERGE_OUTCOMES[outcome.outcome].format(path=outcome.path))


def lease_lost(ctx: Context) -> Callable[[Problem], None]:
    """Tell the user when another bb7 took the chat over (from the lease keeper's thread)."""

    def lost(problem: Problem) -> None:
        ctx.emit("notify", Notify("warn", problem.message))

    return lost
