"""Acting on pending outputs: apply (one or all), discard, diff and undo an apply.

Apply never loses local work: it refuses a conflict (`~M`), a deleted target and a read-only
file unless forced or merged, refuses when the local text changed since the caller looked (hash,
plus Neovim's changedtick), commits the user's text as an intent before touching the file,
writes atomically, and then records the apply; a crash in between is finished or rolled back at
the next open. Every apply keeps the previous local text as a blob, which `undo_apply` restores.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import msgspec

from bb7.files.fsio import (
    UNCHECKED,
    FileMoved,
    FileProblem,
    Unchecked,
    atomic_write,
    crash_point,
    is_read_only,
)
from bb7.files.paths import project_path
from bb7.process import identity
from bb7.refusal import Abort, Problem, ProblemKind, from_path
from bb7.state.choices import choosing
from bb7.state.local import (
    Buffers,
    LocalText,
    LocalView,
    exists,
    read_local,
    same_text,
    text_of,
    view_of,
)
from bb7.state.lock import this_host
from bb7.state.problems import StoreError
from bb7.state.records import (
    GLOBAL,
    ContextEntry,
    Event,
    Intent,
    PendingOutput,
    UndoRecord,
)
from bb7.state.status import (
    ADDED_EXISTS,
    CONFLICT,
    Status,
    StatusRow,
    applies_alone,
    file_statuses,
    status_of,
)
from bb7.state.store import Store
from bb7.text.diff import changed_lines, unified_diff
from bb7.text.merge import describe_lines, plan_merge

Writer = Callable[[str, str], bool]
"""The write hook: `write(path, text)` writes `text` to the project path `path` (as stored:
relative inside the root, absolute for an external file) and says True, or says False to leave
the write to the core (an atomic write to disk).

It is the one deliberate call from the core into the editor (`shared/style.md` otherwise rules
such callbacks out): a file loaded in Neovim must be written through its buffer (its undo,
marks and view stay), and that write must happen inside the apply it belongs to, between the
intent and the commit. The hook gets the path the core keeps, so the editor looks its buffer up
directly, with no path making a round trip through the disk's absolute form."""


def _write(
    write: Writer | None, path: str, target: Path, text: str, expect: str | Unchecked | None
) -> bool:
    """Write `text` to `path` through the hook, else atomically to `target` (its file), which
    must still hold `expect` right before it is replaced (`FileMoved` otherwise). True when
    another program's late write to the file was merged in (`atomic_write`)."""
    if write is None or not write(path, text):
        return atomic_write(target, text, expect=expect) is not None
    return False


class FileApplied(msgspec.Struct, frozen=True):
    path: str
    status: Status  # the status before applying ("" for an undo)
    merged: bool = False
    # Another program wrote the file while bb7 replaced it: its text was merged in and shows
    # as a local change.
    late: bool = False


# What an apply says of a late write it merged in (`FileApplied.late`).
LATE = "kept what another program wrote to it meanwhile (a local change now)"


class ApplyReport(msgspec.Struct, frozen=True):
    """One line of an apply-all: applied, or skipped/failed with the reason (`kind`: the
    refusal's, for a front end's advice)."""

    path: str
    status: Status
    applied: bool
    message: str
    kind: ProblemKind | Literal[""] = ""


def _target(store: Store, path: str) -> Path | Problem:
    """The on-disk file an output of `path` may be written to (path rules re-checked now)."""
    if store.scope == GLOBAL or store.root is None:
        return Problem("global", "global chats have no pending outputs to write")
    checked = project_path(store.root, path)
    if not isinstance(checked, str):
        return from_path(checked)
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
) -> FileApplied | Problem:
    """Write the pending output of `path` to the project and make it the new snapshot.

    `seen` is what the caller saw when deciding (from `StatusRow.local_hash`/`changedtick`);
    if the local text differs now, nothing happens. `buffers` gives the editor's current text.
    Local edits that do not touch the change's lines (`M`) are kept: the change is rebased onto
    them (three-way). A conflict (`~M`) is refused unless `force` (overwrite, undoable); `merge`
    only words that refusal for a three-way merge. `!A` (a new file whose path now exists), a
    file deleted since the model saw it and a read-only file on disk need `force`.
    `write` is the write hook (`Writer`: the editor writes a file it holds through its buffer).

    Three steps, so that no crash loses the user's text: (1) commit an `Intent` holding the
    local text and the text to write; (2) replace the file; (3) commit the apply (undo record,
    snapshot, event) and drop the intent. A process killed between them leaves the intent,
    which `bb7.state.recovery` finishes or rolls back at the next open.
    """
    done = _three_steps(
        store, lambda: _plan(store, chat_id, path, seen, buffers, force, merge), buffers, write
    )
    if isinstance(done, Problem):
        return done
    return FileApplied(path=path, status=done.status, merged=done.merged, late=done.late)


def _three_steps(
    store: Store, plan: Callable[[], _Plan], buffers: Buffers | None, write: Writer | None
) -> _Plan | Problem:
    """An apply's or undo's steps: `plan` commits the intent, then the file, then the record."""
    try:
        with store.transaction():
            planned = plan()
    except Abort as abort:
        return abort.problem
    replaced = _replace(store, planned, buffers, write)
    if isinstance(replaced, Problem):
        return replaced
    planned = msgspec.structs.replace(planned, late=replaced)
    unrecorded = _record(store, [planned])
    return planned if unrecorded is None else unrecorded[0]


class _Plan(msgspec.Struct, frozen=True):
    """An apply between its steps: the committed intent and what the checks saw."""

    intent: Intent
    target: Path
    local: LocalText | FileProblem
    status: Status
    merged: bool
    late: bool = False  # another program's write meanwhile was merged in (`_write`)


def _replace(
    store: Store, plan: _Plan, buffers: Buffers | None, write: Writer | None
) -> Problem | bool:
    """Step 2 of an apply (or undo): a last look at the disk, then the write (its intent is
    dropped when the file stays as it was). True when a late write was merged in."""
    path = plan.intent.path
    on_disk = buffers is None or path not in buffers
    # Last look at the disk, the instant before replacing it (and again right before the
    # rename, inside the write).
    if on_disk and view_of(read_local(store, path)) != view_of(plan.local):
        _drop(store, plan.intent)
        return Problem("changed", f"{path} changed just now; nothing was written")
    expect = text_of(plan.local) if on_disk else UNCHECKED
    try:
        if plan.intent.written is None:  # an undo of an apply that created the file
            with contextlib.suppress(FileNotFoundError):
                os.unlink(plan.target)
            return False
        return _write(write, path, plan.target, store.blob(plan.intent.written), expect)
    except FileMoved as exc:
        _drop(store, plan.intent)
        return Problem(
            "changed",
            f"{path} was {exc.strerror} while bb7 was writing it; nothing was written. Look "
            "at the status again, then apply",
        )
    except OSError as exc:
        _drop(store, plan.intent)
        return Problem(
            "write_failed", f"could not write {path}: {exc.strerror or exc}; nothing changed"
        )


def _record(store: Store, plans: list[_Plan]) -> list[Problem] | None:
    """Step 3 of an apply (or of several, in one commit): record them and drop their intents.
    When that fails, the files are put back; a file that cannot be put back keeps its intent,
    and the next open finishes its apply."""
    try:
        with store.transaction():
            for plan in plans:
                finish_apply(store, plan.intent)
            crash_point("before_commit")
    except StoreError as exc:
        refused: list[Problem] = []
        for plan in plans:
            intent, path = plan.intent, plan.intent.path
            previous = None if intent.prev_local is None else store.blob(intent.prev_local)
            if _restore(plan.target, previous):
                with contextlib.suppress(StoreError):
                    _drop(store, intent)
                refused.append(Problem("write_failed", f"{exc}; {path} was put back as it was"))
            else:
                refused.append(
                    Problem("write_failed", f"{exc}; {path} holds the output, undo stays possible")
                )
        return refused
    return None


def _plan(
    store: Store,
    chat_id: str,
    path: str,
    seen: LocalView | None,
    buffers: Buffers | None,
    force: bool,
    merge: bool,
) -> _Plan:
    """Step 1 of an apply, inside a transaction: every check, then the intent (or Abort)."""
    target = _target(store, path)
    if isinstance(target, Problem):
        raise Abort(target)
    output = store.output(chat_id, path)
    if output is None:
        raise Abort(Problem("no_output", f"{path} has no pending output"))
    waiting = choosing(store, chat_id, path)
    if waiting is not None:
        raise Abort(waiting)
    entry = store.entry(chat_id, path)
    if entry is not None and not entry.facts.writable:
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
    if local_text is not None and not force and is_read_only(target):
        raise Abort(
            Problem(
                "read_only_file",
                f"{path} is read-only on disk; nothing was written",
            )
        )
    snapshot = None if entry is None else store.blob(entry.blob)
    out_text = store.blob(output.blob)
    status = status_of(
        None if entry is None else entry.kind, snapshot, out_text, local_text, exists(local)
    )
    text, merged = _text_to_write(path, snapshot, local_text, exists(local), out_text, force, merge)
    intent = store.put_intent(
        Intent(
            chat_id=chat_id,
            path=path,
            prev_local=None if local_text is None else store.put_blob(local_text),
            written=store.put_blob(text),
            prev_entry=entry,
            prev_output=output,
            pid=os.getpid(),
            host=this_host(),
            started=identity(),
        )
    )
    return _Plan(intent=intent, target=target, local=local, status=status, merged=merged)


def _drop(store: Store, intent: Intent) -> None:
    with store.transaction():
        store.delete_intent(intent.id)


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
                    f"{path} now exists locally, but the model wrote it as a new file; "
                    "nothing was written",
                )
            )
        return output, False
    if not local_exists and not force:
        raise Abort(
            Problem(
                "gone",
                f"{path} is gone: it was deleted or renamed since the model read it",
            )
        )
    if same_text(local, snapshot) or force:
        return output, False
    if local is not None:
        # The pending change rebases onto the user's edits when they touch other lines (`M`).
        merged = plan_merge(snapshot, local, output)
        if not merged.overlaps:
            return merged.local, True
        where = describe_lines(merged.overlaps)
        if merge:
            raise Abort(
                Problem(
                    "conflict",
                    f"{path}: your local edits and the pending output both change {where}",
                )
            )
    else:
        where = "all lines"
    raise Abort(
        Problem(
            "conflict",
            f"{path}: your local edits conflict with the pending output ({where}), "
            "which would overwrite them",
        )
    )


def finish_apply(store: Store, intent: Intent) -> bool:
    """Step 3 of an apply (or of an undo, for an undo's intent), inside a transaction: record
    it (undo record, new snapshot, event) and drop its intent. False, with nothing done, when
    the intent is gone already (another process finished or rolled it back)."""
    if intent.undo is not None or intent.written is None:
        return _finish_undo(store, intent)
    if not store.delete_intent(intent.id):
        return False
    chat_id, path, entry = intent.chat_id, intent.path, intent.prev_entry
    text = store.blob(intent.written)
    store.push_undo(
        chat_id,
        path,
        prev_local=intent.prev_local,
        written=intent.written,
        prev_entry=entry,
        prev_output=intent.prev_output,
    )
    new_entry = ContextEntry.taken(path, intent.written, text, entry)
    store.put_entry(chat_id, new_entry)
    current = store.output(chat_id, path)
    if current is not None and current.blob == intent.prev_output.blob:
        store.delete_output(chat_id, path)  # a newer output (an intent settled late) stays
    store.append_event(chat_id, Event.applied(new_entry, entry))
    return True


def _restore(target: Path, previous: str | None) -> bool:
    try:
        if previous is None:
            os.unlink(target)
        else:
            atomic_write(target, previous)
    except OSError:
        return False
    return True


def apply_all(
    store: Store, chat_id: str, buffers: Buffers | None = None, *, write: Writer | None = None
) -> list[ApplyReport]:
    """Apply every output whose status `applies_alone` (`M`, `A`); skip those that need force
    (conflicts `~M`, `!A`), and say why. `write` is
    `apply_output`'s hook. The steps of `apply_output` run for all files together: one commit
    of every intent, the writes, one commit of every apply."""
    reports: dict[str, ApplyReport] = {}
    rows = [row for row in file_statuses(store, chat_id, buffers) if row.has_output]
    plans: list[_Plan] = []
    with store.transaction():
        for row in rows:
            if not applies_alone(row.status):
                skipped = _skipped(row)
                reports[row.path] = _refused(row.path, row.status, skipped)
                continue
            seen = LocalView(row.local_hash, row.changedtick)
            try:
                with store.savepoint():
                    plans.append(_plan(store, chat_id, row.path, seen, buffers, False, False))
            except Abort as abort:
                reports[row.path] = _refused(row.path, row.status, abort.problem)
    written: list[_Plan] = []
    for plan in plans:
        replaced = _replace(store, plan, buffers, write)
        if isinstance(replaced, Problem):
            reports[plan.intent.path] = _refused(plan.intent.path, plan.status, replaced)
        else:
            written.append(msgspec.structs.replace(plan, late=replaced))
    failed = _record(store, written) if written else None
    for number, plan in enumerate(written):
        path = plan.intent.path
        if failed is None:
            said = f"applied; {LATE}" if plan.late else "applied"
            reports[path] = ApplyReport(path, plan.status, True, said)
        else:
            reports[path] = _refused(path, plan.status, failed[number])
    return [reports[row.path] for row in rows]


def _refused(path: str, status: Status, problem: Problem) -> ApplyReport:
    return ApplyReport(path, status, False, problem.message, problem.kind)


def _skipped(row: StatusRow) -> Problem:
    """Why apply-all leaves a file for the user to decide, by itself."""
    if row.status == CONFLICT and not row.local_hash:
        return Problem("gone", "skipped: the file is gone (deleted or renamed)")
    if row.status == CONFLICT:
        return Problem("conflict", "skipped: local changes conflict")
    if row.status == ADDED_EXISTS:
        return Problem("exists", "skipped: the file now exists locally")
    return Problem("nothing_pending", "skipped: nothing to apply")


def discard_output(store: Store, chat_id: str, path: str) -> PendingOutput | Problem:
    """Drop a pending output (its content stays in the history as a blob)."""
    with store.transaction():
        output = store.output(chat_id, path)
        if output is None:
            return Problem("no_output", f"{path} has no pending output")
        store.delete_output(chat_id, path)
        store.append_event(chat_id, Event.discarded(output))
        return output


def over_local(
    store: Store, chat_id: str, path: str, buffers: Buffers | None = None
) -> tuple[str | None, str] | Problem:
    """The local text and the pending output over it: rebased onto the user's edits when
    they made some (at lines both changed, the model's version), so that showing the change
    never shows the user's own edits as undone (`bb7 output diff`, `:BB7Diff`)."""
    output = store.output(chat_id, path)
    if output is None:
        return Problem("no_output", f"{path} has no pending output")
    local = text_of(read_local(store, path, buffers))
    text = store.blob(output.blob)
    entry = store.entry(chat_id, path)
    if entry is None or local is None:
        return local, text
    snapshot = store.blob(entry.blob)
    if same_text(local, snapshot):
        return local, text
    return local, plan_merge(snapshot, local, text).output


def own_lines(store: Store, chat_id: str, path: str, local: str | None) -> list[int]:
    """The 1-based lines of `local` the user changed since the snapshot of `path` (none for a
    file new in the chat): shown apart in `:BB7Diff`, where taking the output undoes them."""
    entry = store.entry(chat_id, path)
    if entry is None or local is None:
        return []
    return changed_lines(store.blob(entry.blob), local)


def output_diff(
    store: Store, chat_id: str, path: str, buffers: Buffers | None = None
) -> str | Problem:
    """A unified diff from the local text to the pending output over it: what applying would
    do (at lines both changed, what a forced apply would do). Without a pending output, the
    change of an agent's own write still under review: from before its turn to what it wrote."""
    found = over_local(store, chat_id, path, buffers)
    if isinstance(found, Problem):
        record = store.last_undo(chat_id, path)
        if record is None or not record.by_agent or record.prev_local == record.written:
            return found
        before = None if record.prev_local is None else store.blob(record.prev_local)
        return unified_diff(path, before, store.blob(record.written))
    return unified_diff(path, *found)


def undo_apply(
    store: Store,
    chat_id: str,
    path: str,
    *,
    buffers: Buffers | None = None,
    force: bool = False,
    write: Writer | None = None,
) -> FileApplied | Problem:
    """Undo the last apply of `path`: the local file, snapshot and pending output as before.

    Refused when the file changed since the apply (unless `force`) or when a newer output is
    pending for the path. The steps of an apply, with the same intent: commit it (the text on
    disk now and the text to put back), put the file back, record the undo; a crash in
    between is settled by `bb7.state.recovery` at the next open.
    """
    done = _three_steps(
        store, lambda: _plan_undo(store, chat_id, path, buffers, force), buffers, write
    )
    return done if isinstance(done, Problem) else FileApplied(path=path, status="")


def _plan_undo(
    store: Store, chat_id: str, path: str, buffers: Buffers | None, force: bool
) -> _Plan:
    """Step 1 of an undo, inside a transaction: the checks, then the intent (or Abort)."""
    target = _target(store, path)
    if isinstance(target, Problem):
        raise Abort(target)
    record = store.last_undo(chat_id, path)
    if record is None:
        raise Abort(Problem("nothing_to_undo", f"no apply of {path} to undo"))
    local = read_local(store, path, buffers)
    local_text = text_of(local)
    if record.by_agent:
        written = _merged_back(store, record, local_text, force)
    else:
        written = record.prev_local
        if not force and not same_text(local_text, store.blob(record.written)):
            raise Abort(
                Problem(
                    "changed",
                    f"{path} changed since the apply; undo would overwrite those edits",
                )
            )
    if store.output(chat_id, path) is not None:
        raise Abort(
            Problem(
                "pending_output",
                f"{path} has a newer pending output; apply or discard it before undoing",
            )
        )
    intent = store.put_intent(
        Intent(
            chat_id=chat_id,
            path=path,
            prev_local=None if local_text is None else store.put_blob(local_text),
            written=written,
            prev_entry=record.prev_entry,
            prev_output=record.prev_output,
            pid=os.getpid(),
            host=this_host(),
            started=identity(),
            undo=record.id,
        )
    )
    return _Plan(intent=intent, target=target, local=local, status="", merged=False)


def _merged_back(store: Store, record: UndoRecord, local: str | None, force: bool) -> str | None:
    """The text undoing an agent's own write leaves (its blob; None deletes the file): the
    lines from before its turn merged back over the local text, so the user's edits made
    meanwhile stay (the diff3 of `:BB7Merge`). Lines both changed are refused unless `force`,
    which puts the lines from before there."""
    path, after = record.path, store.blob(record.written)
    if record.prev_local == record.written:
        raise Abort(
            Problem(
                "nothing_to_undo",
                f"{path}: every hunk the agent wrote was kept or rejected; nothing to undo",
            )
        )
    if local is None:
        raise Abort(Problem("gone", f"{path} is gone: nothing to undo"))
    if record.prev_local is None:  # the agent created the file
        if not force and not same_text(local, after):
            raise Abort(
                Problem(
                    "changed",
                    f"{path} changed since the agent created it; undo would delete those edits",
                )
            )
        return None
    merged = plan_merge(after, local, store.blob(record.prev_local))
    if merged.overlaps and not force:
        where = describe_lines(merged.overlaps)
        raise Abort(
            Problem(
                "conflict",
                f"{path}: your edits changed lines the agent wrote ({where}); undo would "
                "overwrite them",
            )
        )
    return store.put_blob(merged.output if force else merged.local)


def _finish_undo(store: Store, intent: Intent) -> bool:
    """Step 3 of an undo, inside a transaction: the chat as before the apply, the undo record
    dropped, with the intent. False when the intent is gone already."""
    if not store.delete_intent(intent.id):
        return False
    chat_id, path = intent.chat_id, intent.path
    record = store.last_undo(chat_id, path)
    if record is None or record.id != intent.undo:
        return True  # undone meanwhile by another process: nothing left to record
    if record.prev_entry is None:
        store.delete_entry(chat_id, path)
    else:
        store.put_entry(chat_id, record.prev_entry)
    store.put_output(chat_id, record.prev_output)
    store.delete_undo(record.id)
    store.append_event(chat_id, Event.undid_apply(record.prev_output))
    return True
