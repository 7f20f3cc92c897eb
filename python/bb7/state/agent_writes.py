"""What an agent wrote to disk itself during a turn, made reviewable: each changed file becomes
an apply of the agent's (an undo record marked `by_agent`), which the inline review takes hunk
by hunk (`bb7.state.review`) and `undo_apply` merges back over the user's later edits
(`bb7.state.outputs`). A file the agent deleted gets its text from before the turn back as a
pending new file: applying it restores the file, discarding it accepts the deletion.

The texts before and after the turn come from the caller (`bb7.agent.disk` watches the disk);
this module only records them, in one transaction, and never touches a project file.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from bb7.files.fileid import entry_file_id, file_id
from bb7.state.records import WRITABLE, ContextEntry, Event, PendingOutput
from bb7.state.store import Store


class DiskChange(msgspec.Struct, frozen=True):
    """A project file an agent changed on disk during its turn: `before` its text at the
    start (None: it did not exist), `after` at the end (None: deleted)."""

    path: str
    before: str | None
    after: str | None


def record_disk_changes(store: Store, chat_id: str, changes: Sequence[DiskChange]) -> list[Event]:
    """Record `changes` as the agent's applies (see the module docstring); returns the events
    to show under the agent's answer (the caller stores them with it)."""
    events: list[Event] = []
    with store.transaction():
        for change in changes:
            if change.after is None:
                if change.before is not None:
                    events.append(_deleted(store, chat_id, change.path, change.before))
                continue
            events.append(_written(store, chat_id, change.path, change.before, change.after))
    return events


def _written(store: Store, chat_id: str, path: str, before: str | None, after: str) -> Event:
    entry = store.entry(chat_id, path)
    if entry is None and before is not None:
        # Not in the chat before: what undo restores is the file as the turn found it.
        blob = store.put_blob(before)
        entry = ContextEntry(
            path=path, kind=WRITABLE, blob=blob, file_id=entry_file_id(path, before)
        )
    written = store.put_blob(after)
    output = PendingOutput(
        path=path,
        blob=written,
        file_id=file_id(path, after),
        base_file_id="" if entry is None else entry.file_id,
        added=before is None,
    )
    store.push_undo(
        chat_id,
        path,
        prev_local=None if before is None else store.put_blob(before),
        written=written,
        prev_entry=entry,
        prev_output=output,
        by_agent=True,
    )
    taken = ContextEntry.taken(path, written, after, entry)
    store.put_entry(chat_id, taken)
    pending = store.output(chat_id, path)
    if pending is not None and store.blob(pending.blob) == after:
        # The agent sent this text through bb7 too, then wrote it itself (OpenCode does): the
        # disk already holds it, reviewed as the agent's apply.
        store.delete_output(chat_id, path)
    return Event.agent_wrote(taken, entry)


def _deleted(store: Store, chat_id: str, path: str, before: str) -> Event:
    store.delete_entry(chat_id, path)
    output = PendingOutput(
        path=path,
        blob=store.put_blob(before),
        file_id=file_id(path, before),
        base_file_id="",
        added=True,
    )
    store.put_output(chat_id, output)
    return Event.agent_deleted(output)
