"""Acting on pending outputs: apply (one or all), discard, diff and undo an apply.

Apply never loses local work silently: it refuses a conflict (`~M`) unless forced or merged,
refuses when the local text changed since the caller looked (hash, plus Neovim's changedtick),
writes atomically, and commits the new snapshot and the cleared output in the same transaction
as the write, so a failed write leaves everything as it was. Every apply keeps the previous
local text as a blob, which `undo_apply` restores.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import msgspec

from bb7.fsio import FileProblem, atomic_write
from bb7.paths import project_path
from bb7.state.local import (
    Buffers,
    LocalView,
    exists,
    read_local,
    same_text,
    text_of,
    view_of,
)
from bb7.state.merge import merge3
from bb7.state.records import GLOBAL, WRITABLE, ContextEntry, Event, PendingOutput, Problem
from bb7.state.status import ADDED, ADDED_EXISTS, CONFLICT, MODIFIED, file_statuses, status_of
from bb7.state.store import Abort, Store, entry_file_id
from bb7.text.diff import unified_diff

Writer = Callable[[Path, str], None]


class Applied(msgspec.Struct, frozen=True):
    path: str
    status: str  # the status before applying
    merged: bool = False


class ApplyReport(msgspec.Struct, frozen=True):
    """One line of an apply-all: applied, or skipped/failed with the reason."""

    path: str
    status: str
    applied: bool
    message: str


def _target(store: Store, path: str) -> Path | Problem:
    """The on-disk file an output of `path` may be written to (path rules re-checked now)."""
    if store.scope == GLOBAL or store.root is None:
        return Problem("global", "global chats have no pending outputs to write")
    checked = project_path(store.root, path)
    if not isinstance(checked, str):
        return Problem(checked.kind, checked.message)
    return store.root / checked


def apply_output(
    store: Store,
    chat_id: str,
    path: str,
    *,
    seen: LocalView | None = None,
    buffers: Buffers | None = None,
    force: bool = False,
    merge: bool = False,
    write: Writer | None = None,
) -> Applied | Problem:
    """Write the pending output of `path` to the project and make it the new snapshot.

    `seen` is what the caller saw when deciding (from `FileStatus.local_hash`/`changedtick`);
    if the local text differs now, nothing happens. `buffers` gives the editor's current text.
    A conflict (`~M`) is refused unless `force` (overwrite, undoable) or `merge` (three-way,
    refused if the changes overlap); `!A` (a new file whose path now exists) needs `force`.
    `write` replaces the atomic disk write (the editor writes through its buffer).
    """
    target = _target(store, path)
    if isinstance(target, Problem):
        return target
    local_text: str | None = None
    wrote = False
    try:
        with store.transaction():
            output = store.output(chat_id, path)
            if output is None:
                raise Abort(Problem("no_output", f"{path} has no pending output"))
            entry = store.entry(chat_id, path)
            if entry is not None and entry.kind != WRITABLE:
                raise Abort(Problem("readonly", f"{path} is read-only in this chat"))
            local = read_local(store, path, buffers)
            if seen is not None and not _matches(seen, view_of(local)):
                raise Abort(
                    Problem(
                        "changed",
                        f"{path} changed since its status was shown; nothing was written. "
                        "Look at the status again, then apply",
                    )
                )
            if isinstance(local, FileProblem) and local.kind != "missing":
                raise Abort(Problem("unreadable", f"{local.message}; nothing was written"))
            local_text = text_of(local)
            snapshot = None if entry is None else store.blob(entry.blob)
            out_text = store.blob(output.blob)
            status = status_of(
                None if entry is None else entry.kind,
                snapshot,
                out_text,
                local_text,
                exists(local),
            )
            text, merged = _text_to_write(
                path, snapshot, local_text, exists(local), out_text, force, merge
            )
            _commit_apply(store, chat_id, path, entry, output, local_text, text)
            # Last look at the disk, the instant before replacing it.
            on_disk = buffers is None or path not in buffers
            if on_disk and view_of(read_local(store, path)) != view_of(local):
                raise Abort(Problem("changed", f"{path} changed just now; nothing was written"))
            (write or atomic_write)(target, text)
            wrote = True
    except Abort as abort:
        return abort.problem
    except OSError as exc:
        return Problem(
            "write_failed", f"could not write {path}: {exc.strerror or exc}; nothing changed"
        )
    except sqlite3.Error:
        if wrote:
            # The file was written but the state could not be saved: put the old text back.
            _restore(target, local_text)
        raise
    return Applied(path=path, status=status, merged=merged)


def _matches(seen: LocalView, now: LocalView) -> bool:
    if seen.hash != now.hash:
        return False
    return (
        seen.changedtick is None or now.changedtick is None or seen.changedtick == now.changedtick
    )


def _text_to_write(
    path: str,
    snapshot: str | None,
    local: str | None,
    local_exists: bool,
    output: str,
    force: bool,
    merge: bool,
) -> tuple[str, bool]:
    """The text to write, or Abort when it would replace local text the user has not seen in
    the snapshot or the output (their own edits, or a file created meanwhile)."""
    if same_text(local, output):
        return output, False
    if snapshot is None:
        if local_exists and not force:
            raise Abort(
                Problem(
                    "exists",
                    f"{path} now exists locally, but the model wrote it as a new file; apply "
                    "with --force to overwrite it (undo with `bb7 output undo`), or discard "
                    "the output",
                )
            )
        return output, False
    if same_text(local, snapshot) or force:
        return output, False
    if merge and local is not None:
        merged = merge3(snapshot, local, output)
        if merged.conflicts:
            raise Abort(
                Problem(
                    "conflict",
                    f"{path}: your local edits and the pending output change the same "
                    f"lines ({merged.conflicts} region(s)); merge by hand (bb7 output diff, "
                    ":BB7Diff) or apply with --force to overwrite",
                )
            )
        return merged.text, True
    raise Abort(
        Problem(
            "conflict",
            f"{path}: your local changes conflict with the pending output, which would "
            "overwrite them; apply with --merge (or :BB7Diff) to keep both, or --force "
            "(:BB7Apply!) to overwrite (undo with `bb7 output undo`)",
        )
    )


def _commit_apply(
    store: Store,
    chat_id: str,
    path: str,
    entry: ContextEntry | None,
    output: PendingOutput,
    local_text: str | None,
    text: str,
) -> None:
    written = store.put_blob(text)
    store.push_undo(
        chat_id,
        path,
        prev_local=None if local_text is None else store.put_blob(local_text),
        written=written,
        prev_entry=entry,
        prev_output=output,
    )
    new_entry = ContextEntry(
        path=path,
        kind=WRITABLE,
        blob=written,
        file_id=entry_file_id(path, text),
        added=entry.added if entry is not None else True,
    )
    store.put_entry(chat_id, new_entry)
    store.delete_output(chat_id, path)
    store.append_event(
        chat_id,
        Event(
            action="user_applied",
            path=path,
            file_id=new_entry.file_id,
            prev_file_id="" if entry is None else entry.file_id,
            blob=written,
            added=entry is None,
        ),
    )


def _restore(target: Path, previous: str | None) -> None:
    with contextlib.suppress(OSError):
        if previous is None:
            os.unlink(target)
        else:
            atomic_write(target, previous)


def apply_all(
    store: Store, chat_id: str, buffers: Buffers | None = None, *, write: Writer | None = None
) -> list[ApplyReport]:
    """Apply every `M` and `A` output; skip conflicts (`~M`) and `!A`, and say why. `write` is
    `apply_output`'s hook."""
    reports: list[ApplyReport] = []
    for row in file_statuses(store, chat_id, buffers):
        if not row.has_output:
            continue
        if row.status not in (MODIFIED, ADDED):
            why = {
                CONFLICT: "skipped: local changes conflict; merge or apply it alone with --force",
                ADDED_EXISTS: "skipped: the file now exists locally; apply it alone with --force",
            }.get(row.status, "skipped: nothing to apply")
            reports.append(ApplyReport(row.path, row.status, False, why))
            continue
        seen = LocalView(row.local_hash, row.changedtick)
        done = apply_output(store, chat_id, row.path, seen=seen, buffers=buffers, write=write)
        if isinstance(done, Problem):
            reports.append(ApplyReport(row.path, row.status, False, done.message))
        else:
            reports.append(ApplyReport(row.path, row.status, True, "applied"))
    return reports


def discard_output(store: Store, chat_id: str, path: str) -> PendingOutput | Problem:
    """Drop a pending output (its content stays in the history as a blob)."""
    with store.transaction():
        output = store.output(chat_id, path)
        if output is None:
            return Problem("no_output", f"{path} has no pending output")
        store.delete_output(chat_id, path)
        store.append_event(
            chat_id,
            Event(
                action="user_discarded",
                path=path,
                file_id=output.file_id,
                prev_file_id=output.base_file_id,
                blob=output.blob,
                added=output.added,
            ),
        )
        return output


def output_diff(
    store: Store, chat_id: str, path: str, buffers: Buffers | None = None
) -> str | Problem:
    """A unified diff from the local text to the pending output: what applying would do."""
    output = store.output(chat_id, path)
    if output is None:
        return Problem("no_output", f"{path} has no pending output")
    local = text_of(read_local(store, path, buffers))
    return unified_diff(path, local, store.blob(output.blob))


def undo_apply(
    store: Store,
    chat_id: str,
    path: str,
    *,
    buffers: Buffers | None = None,
    force: bool = False,
    write: Writer | None = None,
) -> Applied | Problem:
    """Undo the last apply of `path`: the local file, snapshot and pending output as before.

    Refused when the file changed since the apply (unless `force`) or when a newer output is
    pending for the path.
    """
    target = _target(store, path)
    if isinstance(target, Problem):
        return target
    try:
        with store.transaction():
            record = store.last_undo(chat_id, path)
            if record is None:
                raise Abort(Problem("nothing_to_undo", f"no apply of {path} to undo"))
            local_text = text_of(read_local(store, path, buffers))
            if not force and not same_text(local_text, store.blob(record.written)):
                raise Abort(
                    Problem(
                        "changed",
                        f"{path} changed since the apply; undo would overwrite those edits "
                        "(use --force to undo anyway)",
                    )
                )
            if store.output(chat_id, path) is not None:
                raise Abort(
                    Problem(
                        "pending_output",
                        f"{path} has a newer pending output; apply or discard it before undoing",
                    )
                )
            if record.prev_entry is None:
                store.delete_entry(chat_id, path)
            else:
                store.put_entry(chat_id, record.prev_entry)
            store.put_output(chat_id, record.prev_output)
            store.delete_undo(record.id)
            store.append_event(
                chat_id,
                Event(action="user_undid_apply", path=path, file_id=record.prev_output.file_id),
            )
            if record.prev_local is None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(target)
            else:
                (write or atomic_write)(target, store.blob(record.prev_local))
    except Abort as abort:
        return abort.problem
    except OSError as exc:
        return Problem("write_failed", f"could not restore {path}: {exc.strerror or exc}")
    return Applied(path=path, status="")
