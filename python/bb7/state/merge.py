"""Merges that change a chat's state: `:BB7Merge` (`merge_output`), finishing a vimdiff merge
(`finish_merge`), carrying a pending output over to a new snapshot (`rebase_output`), and the
events that tell the model what the user took of a proposal (`taken_events`).

The merging itself is pure and lives in `bb7.text.merge` (the line diff3 and its merges).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import msgspec

from bb7.files.fileid import entry_file_id
from bb7.refusal import Problem
from bb7.state.choices import choosing
from bb7.state.local import Buffers, read_local, same_text, text_of
from bb7.state.records import ContextEntry, Event, PendingOutput
from bb7.state.store import Store
from bb7.text.merge import line_change, merge3, outcomes, plan_merge
from bb7.text.words import plural


class MergeOutcome(msgspec.Struct, frozen=True):
    """How a manual merge ended: `none` (nothing taken), `full` (all taken) or `partial`."""

    path: str
    outcome: str


def taken_events(
    output: PendingOutput,
    proposal: str,
    entry: ContextEntry | None,
    base: str,
    taken: str,
    *,
    amended: bool = True,
) -> list[Event]:
    """What the user took of a proposal (`output`, whose text is `proposal`, over the snapshot
    `base` of `entry`) into the new snapshot `taken`, for the model: one event per hunk taken
    as proposed or (with `amended`) amended; none when all of it was taken as proposed (the
    apply says so). Without `amended`, a hunk taken differently is one left pending (a
    merge keeps the model's version of such lines pending)."""
    found = outcomes(base, proposal, taken)
    if all(o.kind == "taken" for o in found):
        return []
    events = []
    for o in found:
        if o.kind == "left" or (o.kind == "amended" and not amended):
            continue
        named = output.file_id if o.in_output or entry is None else entry.file_id
        diff = line_change(o.proposed, o.taken) if o.kind == "amended" else ""
        events.append(Event.taken_hunk(output.path, named, o.lines[0], o.lines[1], diff))
    return events


class Merged(msgspec.Struct, frozen=True):
    """A `merge_output`: `overlaps` (1-based local lines) stay pending, the rest is merged."""

    path: str
    overlaps: list[tuple[int, int]]


def merge_output(
    store: Store,
    chat_id: str,
    path: str,
    buffers: Buffers | None,
    write: Callable[[str], object],
) -> Merged | Problem:
    """Merge the pending output of `path` into the local text (`write` puts it where the user
    sees it: the buffer, or the file for the CLI; an OSError undoes everything). The snapshot
    and pending output move on with it, so what stays pending is exactly the overlaps."""
    try:
        return _merge_output(store, chat_id, path, buffers, write)
    except OSError as exc:
        return Problem("write_failed", f"could not merge {path}: {exc.strerror or exc}")


def _merge_output(
    store: Store, chat_id: str, path: str, buffers: Buffers | None, write: Callable[[str], object]
) -> Merged | Problem:
    with store.transaction():
        output = store.output(chat_id, path)
        if output is None:
            return Problem("no_output", f"{path} has no pending change to merge")
        waiting = choosing(store, chat_id, path)
        if waiting is not None:
            return waiting
        entry = store.entry(chat_id, path)
        if entry is None:
            return Problem("new_file", f"{path} is a new file: nothing to merge it with")
        if not entry.facts.writable:
            return Problem("readonly", f"{path} is read-only in this chat")
        local = text_of(read_local(store, path, buffers))
        if local is None:
            return Problem("missing", f"{path} is missing locally: nothing to merge into")
        base, proposal = store.blob(entry.blob), store.blob(output.blob)
        plan = plan_merge(base, local, proposal)
        new_entry = msgspec.structs.replace(
            entry, blob=store.put_blob(plan.base), file_id=entry_file_id(path, plan.base)
        )
        store.put_entry(chat_id, new_entry)
        if same_text(plan.output, plan.base):
            store.delete_output(chat_id, path)
        else:
            store.put_output(
                chat_id,
                msgspec.structs.replace(
                    output,
                    blob=store.put_blob(plan.output),
                    file_id=entry_file_id(path, plan.output),
                    base_file_id=new_entry.file_id,
                ),
            )
        store.append_event(
            chat_id,
            Event.applied(new_entry, entry, partly=bool(plan.overlaps)),
        )
        for event in taken_events(output, proposal, entry, base, plan.base):
            store.append_event(chat_id, event)
        if not same_text(plan.local, local):
            store.push_undo(
                chat_id,
                path,
                prev_local=store.put_blob(local),
                written=store.put_blob(plan.local),
                prev_entry=entry,
                prev_output=output,
            )
            write(plan.local)
        return Merged(path, plan.overlaps)


def rebase_output(
    store: Store,
    chat_id: str,
    output: PendingOutput,
    old_base: str,
    new_entry: ContextEntry,
    *,
    prefer_output: bool,
) -> Problem | None:
    """Carry a pending output over to a new snapshot (the user's local text) so applying it
    later cannot revert the local edits the new snapshot contains. Refuses on conflicts unless
    `prefer_output`. Runs inside the caller's transaction."""
    new_base = store.blob(new_entry.blob)
    merged = merge3(old_base, new_base, store.blob(output.blob), prefer_output=prefer_output)
    if merged.conflicts:
        return Problem(
            "conflict",
            f"{output.path}: the pending output and your local edits change the same lines "
            f"({plural(merged.conflicts, 'region')}); merge them first or discard the output",
        )
    moved = PendingOutput(
        path=output.path,
        blob=store.put_blob(merged.text),
        file_id=entry_file_id(output.path, merged.text),
        base_file_id=new_entry.file_id,
        added=False,
        created=output.created,
    )
    if not (same_text(merged.text, new_base) and store.settle_output(chat_id, moved)):
        store.put_output(chat_id, moved)
    return None


def _partly(event: Event) -> Event:
    return msgspec.structs.replace(event, action="user_partially_applied")


def finish_merge(
    store: Store, chat_id: str, path: str, buffers: Buffers | None = None
) -> MergeOutcome | Problem:
    """Record the end of a vimdiff merge of `path` from the local text the user left.

    Like the original BB-7: local equal to the output → `full` (applied); holding none of the
    output's hunks (equal to the snapshot, or only the user's own edits) → `none`, nothing
    recorded; otherwise `partial`: the snapshot becomes the local text and the output
    keeps only the hunks not taken, so reopening the diff shows just those. Unlike the
    original, the local edits are carried into the remaining output instead of being shown
    (and applied) as hunks that would revert them.
    """
    with store.transaction():
        output = store.output(chat_id, path)
        if output is None:
            return Problem("no_output", f"{path} has no pending output to merge")
        local = text_of(read_local(store, path, buffers))
        if local is None:
            return MergeOutcome(path, "none")
        entry = store.entry(chat_id, path)
        if entry is not None and not entry.facts.writable:
            return Problem("readonly", f"{path} is read-only in this chat")
        out_text = store.blob(output.blob)
        snapshot = None if entry is None else store.blob(entry.blob)
        new_entry = ContextEntry.taken(path, store.put_blob(local), local, entry)
        event = Event.applied(new_entry, entry)
        if same_text(local, out_text):
            store.put_entry(chat_id, new_entry)
            moved = msgspec.structs.replace(output, base_file_id=new_entry.file_id)
            settled = store.settle_output(chat_id, moved)
            store.append_event(chat_id, event if settled else _partly(event))
            return MergeOutcome(path, "full" if settled else "partial")
        if snapshot is not None and not any(
            o.kind == "taken" for o in outcomes(snapshot, out_text, local)
        ):
            # None of the model's hunks is in the local text: whatever differs from the
            # snapshot is the user's own (a ~M stays ~M, its edits are not a merge).
            return MergeOutcome(path, "none")
        store.put_entry(chat_id, new_entry)
        if snapshot is None:
            # A new file: nothing to diff against, the output stays as the model wrote it.
            store.put_output(
                chat_id,
                msgspec.structs.replace(
                    output, base_file_id=new_entry.file_id, added=False, created=time.time()
                ),
            )
        else:
            rebase_output(store, chat_id, output, snapshot, new_entry, prefer_output=True)
        full = store.output(chat_id, path) is None
        if not full:
            event = _partly(event)
        store.append_event(chat_id, event)
        if snapshot is not None:
            for taken in taken_events(output, out_text, entry, snapshot, local, amended=False):
                store.append_event(chat_id, taken)
        return MergeOutcome(path, "full" if full else "partial")
