"""The chat's context: add and remove files or sections, re-snapshot them from the editor
(`update_file`, `update_all`), make them read-only or writable. Each publishes the statuses of
the files it touched."""

from __future__ import annotations

from bb7.host.editor import project_path
from bb7.host.handlers.project import publish, publishing
from bb7.host.needs import Held
from bb7.host.protocol import (
    AddArgs,
    FileArgs,
    FileListArgs,
    PathArgs,
    Said,
    SetReadonlyArgs,
    Updated,
)
from bb7.refusal import advise, unwrap
from bb7.state import context
from bb7.state.records import ContextEntry, Problem


def add(h: Held, args: AddArgs) -> Said:
    target = context.Target(args.path, args.start_line or 0, args.end_line or 0)
    buffers = h.buffers(args.buffers).text
    # What the user sees: unsaved buffer text counts, for a section too.
    path = project_path(h.store, args.path)
    local = buffers.get(path) if isinstance(path, str) else None
    before = context.existing(h.store, h.chat.id, target, h.session.root)
    added = context.add(
        h.store,
        h.chat.id,
        target,
        readonly=args.readonly,
        text=None if local is None else local.text,
        base=h.session.root,
    )
    if isinstance(added, Problem):
        # The file as the user named it (relative inside the project), not the absolute path
        # the editor sends: the message must fit one line of the command area.
        added = Problem(added.kind, added.message.replace(args.path, h.shown(args.path)))
    entry = unwrap(added)
    publish(h, buffers, [entry.path])
    # The point first: a long chat name may be cut at the end of the command line.
    verb = context.added_verb(before, entry)
    return Said(f"{verb} {h.shown(entry.label())} ({entry.kind}) to {h.chat.name}")


def remove(h: Held, args: PathArgs) -> Said:
    target = context.Target(args.path)
    entry = unwrap(context.remove(h.store, h.chat.id, target, base=h.session.root))
    publish(h, h.buffers(args.buffers).text, [entry.path])
    return Said(f"removed {entry.label()} from {h.chat.name}")


# A pending output in the way of an update: where to see it.
UPDATE = {"conflict": ":BB7Diff shows it"}


def update_file(h: Held, args: FileArgs) -> str:
    """Re-snapshot a file (or section) from its buffer or disk; returns its project path."""
    path, buffers = h.path(args.path), h.buffers(args.buffers).text
    with publishing(h, buffers, [path]):
        target = context.Target(path, args.start_line, args.end_line)
        updated = context.update(h.store, h.chat.id, target, buffers=buffers)
        return unwrap(advise(updated, UPDATE)).path


def update_all(h: Held, args: FileListArgs) -> Updated:
    buffers = h.buffers(args.buffers).text
    results = context.update_all(h.store, h.chat.id, buffers=buffers)
    publish(h, buffers)
    return Updated(
        updated=[path for path, got in results if isinstance(got, ContextEntry)],
        problems=[advise(got, UPDATE).message for _, got in results if isinstance(got, Problem)],
    )


def set_readonly(h: Held, args: SetReadonlyArgs) -> str:
    path, buffers = h.path(args.path), h.buffers(args.buffers).text
    with publishing(h, buffers, [path]):
        target = context.Target(path)
        return unwrap(context.set_readonly(h.store, h.chat.id, target, args.readonly)).path
