"""File statuses: the one place they are computed, from snapshot, pending output and local text.

| status | meaning |
|---|---|
| ``''`` | in sync: local text equals the snapshot, nothing pending; marked `agent`
  (`StatusRow.agent`) while an agent's own write of it to disk waits for its review |
| ``M`` | the model's pending change to a writable file (the user's own edits, if any, touch
  other lines: the change is rebased onto them); marked `choose` (`StatusRow.choose`) while an
  edit of it waits for the user's choice of place (`bb7.state.choices`) |
| ``A`` | the model's pending new file |
| ``!A`` | a pending new file, but the path now exists locally |
| ``~`` | the local text differs from the snapshot (or the file is gone) |
| ``~M`` | the user's edits and the pending change touch the same lines (or the file is gone):
  a conflict |
| ``R`` | read-only (or external) file, in sync |
| ``~R`` | read-only (or external) file whose local text differs from the snapshot: the chat
  has an older copy (`:BB7Add` or `U` brings it up to date) |
| ``S`` | a section (line range, read-only) |

Local text is the editor's buffer (unsaved edits included) when supplied, else the disk. Line
endings and trailing newlines alone never put a file out of sync.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

import msgspec

from bb7.files.images import data_url_tokens
from bb7.state.local import Buffers, LocalView, exists, read_local, same_text, text_of, view_of
from bb7.state.records import ENTRY_KINDS, EntryKind
from bb7.state.store import Store
from bb7.text.tokens import estimate_tokens

Status = Literal["", "M", "A", "!A", "~", "~M", "R", "~R", "S"]
IN_SYNC: Status = ""
MODIFIED: Status = "M"
ADDED: Status = "A"
ADDED_EXISTS: Status = "!A"
OUT_OF_SYNC: Status = "~"
CONFLICT: Status = "~M"
READ_ONLY: Status = "R"
STALE_READ_ONLY: Status = "~R"
SECTION_STATUS: Status = "S"


class StatusFacts(msgspec.Struct, frozen=True):
    """What bb7 decides about a status, which the core, the host and Lua act on: `pending` the
    model's change waits (apply, discard, review and merge offer the file; a review ends when it
    goes); `needs_force` apply refuses without `force` (the editor asks first; apply-all skips
    it); `new_file` the pending change creates the file; `meaning` for the help and the option
    docs."""

    status: Status
    pending: bool
    needs_force: bool
    new_file: bool
    meaning: str


# Every status a file can show (in sync, '', shows none), in documentation order. Declared here,
# beside `status_of` that decides them: `apply_all`, the host's wording and the generated
# `lua/bb7/vocab.lua` read these facts instead of comparing letters.
STATUSES = (
    StatusFacts(MODIFIED, True, False, False, "a pending change"),
    StatusFacts(ADDED, True, False, True, "a pending new file"),
    StatusFacts(ADDED_EXISTS, True, True, True, "pending new file, path now exists"),
    StatusFacts(OUT_OF_SYNC, False, False, False, "local file differs from the snapshot"),
    StatusFacts(CONFLICT, True, True, False, "local edits overlap a pending change"),
    StatusFacts(READ_ONLY, False, False, False, "read-only context file"),
    StatusFacts(STALE_READ_ONLY, False, False, False, "read-only file, local copy is newer"),
    StatusFacts(SECTION_STATUS, False, False, False, "a section of the file is in context"),
)
_IN_SYNC_FACTS = StatusFacts(IN_SYNC, False, False, False, "in sync")
FACTS: dict[Status, StatusFacts] = {facts.status: facts for facts in STATUSES}


def facts_of(status: Status) -> StatusFacts:
    """The facts of a status ('' included: in sync, nothing pending)."""
    return FACTS.get(status, _IN_SYNC_FACTS)


def applies_alone(status: Status) -> bool:
    """Whether apply-all takes a file of this status: its change is pending and needs no force."""
    facts = facts_of(status)
    return facts.pending and not facts.needs_force


def status_of(
    kind: EntryKind | None,
    snapshot: str | None,
    output: str | None,
    local: str | None,
    local_exists: bool,
    choosing: bool = False,
) -> Status:
    """The status of one entry; `kind` None means the path is only a pending output.
    `choosing`: an edit of the output waits for a choice of place (pending, though the output
    may equal the snapshot yet)."""
    if kind is None:
        return ADDED_EXISTS if local_exists else ADDED
    facts = ENTRY_KINDS[kind]
    if not facts.drifts:
        return facts.in_sync
    out_of_sync = not same_text(local, snapshot)
    if not facts.writable:
        if not out_of_sync:
            return facts.in_sync
        return STALE_READ_ONLY if facts.in_sync == READ_ONLY else OUT_OF_SYNC
    if output is not None and (choosing or not same_text(output, snapshot)):
        if not out_of_sync:
            return MODIFIED
        # The user edited the file too: the change is rebased onto their text (the diff3 of
        # `:BB7Merge`) unless both changed the same lines. Imported here: `bb7 status` of files
        # in sync should not pay for the diff3's import at start.
        from bb7.text.merge import overlapping

        if local is None or snapshot is None or overlapping(snapshot, local, output):
            return CONFLICT
        return MODIFIED
    return OUT_OF_SYNC if out_of_sync else facts.in_sync


class StatusRow(msgspec.Struct, kw_only=True):
    """One row of `bb7 status --json` and of the editor's files panel.

    `local_hash`/`changedtick` describe the local text this status was computed from; hand
    them back to apply so it can refuse if the file changed in between.
    """

    path: str
    status: Status
    readonly: bool
    tokens: int
    kind: EntryKind | Literal[""]  # '' for a pending new file
    start_line: int = 0
    end_line: int = 0
    has_output: bool = False
    # Edits of the pending change waiting for the user's choice of place (`choose`).
    choose: int = 0
    # An agent changed the file on disk itself and its review is not over (`agent`): its
    # last apply is the agent's (`:BB7Review` shows it, `:BB7UndoApply` undoes it).
    agent: bool = False
    original_tokens: int = 0
    output_tokens: int = 0
    local_hash: str = ""
    changedtick: int | None = None


def file_statuses(
    store: Store,
    chat_id: str,
    buffers: Buffers | None = None,
    *,
    paths: Collection[str] | None = None,
) -> list[StatusRow]:
    """Every context entry and pending output of the chat with its status, sorted by path;
    only those of `paths` when given (an editor refreshing a few buffers)."""
    outputs = {o.path: o for o in store.outputs(chat_id) if paths is None or o.path in paths}
    waiting: dict[str, int] = {}
    for choice in store.choices(chat_id):
        waiting[choice.path] = waiting.get(choice.path, 0) + 1
    reviewing = store.agent_reviews(chat_id)
    rows: list[StatusRow] = []
    seen_paths: set[str] = set()
    for entry, snapshot in store.entries_with_text(chat_id):
        if paths is not None and entry.path not in paths:
            continue
        facts = entry.facts
        output = outputs.get(entry.path) if facts.writable else None
        output_text = None if output is None else store.blob(output.blob)
        if facts.writable:
            seen_paths.add(entry.path)
        status: Status = facts.in_sync
        if not facts.drifts:
            # A quote of the file as it was (a section): its local text is not read.
            local_view = LocalView("")
        else:
            local = read_local(store, entry.path, buffers)
            local_view = view_of(local)
            status = status_of(
                entry.kind,
                snapshot,
                output_text,
                text_of(local),
                exists(local),
                choosing=output is not None and entry.path in waiting,
            )
        original = (
            data_url_tokens(snapshot) if facts.sent_as == "image" else estimate_tokens(snapshot)
        )
        produced = 0 if output_text is None else estimate_tokens(output_text)
        rows.append(
            StatusRow(
                path=entry.path,
                status=status,
                readonly=entry.readonly,
                tokens=original + produced,
                kind=entry.kind,
                start_line=entry.start_line,
                end_line=entry.end_line,
                has_output=output is not None,
                choose=waiting.get(entry.path, 0) if output is not None else 0,
                agent=output is None and entry.path in reviewing,
                original_tokens=original,
                output_tokens=produced,
                local_hash=local_view.hash,
                changedtick=local_view.changedtick,
            )
        )
    for path, output in outputs.items():
        if path in seen_paths:
            continue
        local = read_local(store, path, buffers)
        produced = estimate_tokens(store.blob(output.blob))
        local_view = view_of(local)
        rows.append(
            StatusRow(
                path=path,
                status=status_of(None, None, None, text_of(local), exists(local)),
                readonly=False,
                tokens=produced,
                kind="",
                has_output=True,
                choose=waiting.get(path, 0),
                output_tokens=produced,
                local_hash=local_view.hash,
                changedtick=local_view.changedtick,
            )
        )
    rows.sort(key=lambda r: (r.path, r.start_line))
    return rows
