"""The inline review's actions on the store: accept or reject one hunk of a pending change.

The hunk logic is `bb7.text.hunks` (pure); here it meets the chat's snapshot and pending output in
one transaction. Accepting moves the hunk into the snapshot and, through `put` (the editor's
buffer, never the disk), into the local text; rejecting drops it from the pending output and
records which lines the user rejected, so the next request tells the model.

An edit of the pending change waiting for the user's choice of place (`bb7.state.choices`) is
offered as one hunk per place (`Hunk.choice`, `place`): accepting one takes that place (the edit
goes into the pending output there, and its hunk into the local text), rejecting one refuses
the edit, which the next request tells the model.

A file without a pending change whose last apply an agent made itself (`UndoRecord.by_agent`,
`bb7.state.agent_writes`) is reviewed as an applied change: keeping a hunk takes it into the
text undo would restore, rejecting one puts the lines from before the agent's turn back
through `put` (the buffer, or the disk where there is none).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from bb7.files.fileid import entry_file_id
from bb7.refusal import Abort, Problem
from bb7.state import choices
from bb7.state.local import Buffers, read_local, same_text, text_of
from bb7.state.merge import taken_events
from bb7.state.records import ContextEntry, Event, PendingOutput, UndoRecord
from bb7.state.store import Store
from bb7.text import hunks as text_hunks
from bb7.text.hunks import Hunk, Marks

# Puts the new local text where the user sees it (the loaded buffer); raises OSError if it
# cannot, which undoes the whole action.
Put = Callable[[str], None]


class Texts(msgspec.Struct, frozen=True):
    """The three versions a review compares. `applied`: an agent's change already on disk,
    `base` the text before its turn and `output` what it wrote (less what was rejected)."""

    base: str
    local: str
    output: str
    applied: bool = False

    def hunks(self) -> list[Hunk]:
        review = text_hunks.applied_hunks if self.applied else text_hunks.hunks
        return review(self.base, self.local, self.output)


class Reviewed(msgspec.Struct, frozen=True):
    """After an action: the hunks left (empty: nothing pending any more)."""

    path: str
    hunks: list[Hunk]


def texts(store: Store, chat_id: str, path: str, buffers: Buffers | None) -> Texts | Problem:
    """Snapshot, local text and pending output of `path`, or why it cannot be reviewed."""
    output = store.output(chat_id, path)
    if output is None:
        record = agent_apply(store, chat_id, path)
        if record is None:
            return Problem("no_output", f"{path} has no pending change to review")
        local = text_of(read_local(store, path, buffers))
        before = "" if record.prev_local is None else store.blob(record.prev_local)
        return Texts(before, local or "", store.blob(record.written), applied=True)
    entry = store.entry(chat_id, path)
    if entry is not None and not entry.facts.writable:
        return Problem("readonly", f"{path} is read-only in this chat")
    local = text_of(read_local(store, path, buffers))
    # A new file (no snapshot) is all one hunk over an empty text.
    base = "" if entry is None else store.blob(entry.blob)
    return Texts(base, local or "", store.blob(output.blob))


def agent_apply(store: Store, chat_id: str, path: str) -> UndoRecord | None:
    """The last apply of `path`, when an agent made it itself (its change is reviewable)."""
    record = store.last_undo(chat_id, path)
    return record if record is not None and record.by_agent else None


def pending_marks(store: Store, chat_id: str, path: str, buffers: Buffers | None = None) -> Marks:
    """Where the editor's signs go for `path`: the local lines the model's pending change
    touches, and those the user changed, apart (none without an output or a local file)."""
    output = store.output(chat_id, path)
    local = text_of(read_local(store, path, buffers))
    if output is None or local is None:
        return Marks([], [])
    entry = store.entry(chat_id, path)
    base = "" if entry is None else store.blob(entry.blob)
    return text_hunks.marks(base, local, store.blob(output.blob))


def current(
    store: Store, chat_id: str, path: str, buffers: Buffers | None = None
) -> Reviewed | Problem:
    found = texts(store, chat_id, path, buffers)
    if isinstance(found, Problem):
        return found
    if found.applied:
        return Reviewed(path, found.hunks())
    return Reviewed(path, offered(store, chat_id, path, found))


def _key(hunk: Hunk) -> tuple[int, int, tuple[str, ...]]:
    return hunk.start, hunk.removed, tuple(hunk.added)


def offered(store: Store, chat_id: str, path: str, found: Texts) -> list[Hunk]:
    """The hunks the review offers, in line order: the pending change's, and for each edit
    waiting for a choice of place, the hunk each of its places would add."""
    plain = found.hunks()
    seen = {_key(hunk) for hunk in plain}
    every = list(plain)
    for choice in store.choices(chat_id, path):
        got = choices.places(store, chat_id, choice)
        if isinstance(got, Problem):
            continue  # its old text went with other hunks: refusing it is all that is left
        for number, text in enumerate(got.outputs, 1):
            own = text_hunks.placed_hunk(found.base, found.local, found.output, text)
            # Where the place's own lines were changed (by another hunk, or the user), it can
            # only be shown as the hunks the edit makes there, merged with theirs.
            made = (
                [own.hunk] if own is not None else text_hunks.hunks(found.base, found.local, text)
            )
            for hunk in made:
                if _key(hunk) not in seen:
                    every.append(
                        msgspec.structs.replace(
                            hunk, choice=choice.id, place=number, places=len(got.outputs)
                        )
                    )
    return sorted(every, key=lambda h: (h.start, h.place))


Act = Callable[[Texts, PendingOutput, ContextEntry | None], list[Hunk]]
ActApplied = Callable[[Texts, UndoRecord], list[Hunk]]


def _act(
    store: Store,
    chat_id: str,
    path: str,
    buffers: Buffers | None,
    act: Act,
    applied: ActApplied,
) -> Reviewed | Problem:
    """Run `act` (on a pending change) or `applied` (on an agent's applied change) on the
    file's texts in one transaction; it returns the hunks left."""
    try:
        with store.transaction():
            found = texts(store, chat_id, path, buffers)
            if isinstance(found, Problem):
                raise Abort(found)
            if found.applied:
                record = agent_apply(store, chat_id, path)
                assert record is not None  # texts() found it in this transaction
                left = applied(found, record)
            else:
                output = store.output(chat_id, path)
                assert output is not None  # texts() found it in this transaction
                left = act(found, output, store.entry(chat_id, path))
    except Abort as abort:
        return abort.problem
    except OSError as exc:
        return Problem("write_failed", f"{path}: {exc.strerror or exc}; nothing changed")
    return Reviewed(path, left)


def _gone(path: str) -> Problem:
    return Problem("stale", f"{path}: that hunk is not there any more; the review is redrawn")


def _chosen(found: Texts, hunks: list[Hunk] | None) -> list[Hunk]:
    """The hunks to act on, bottom up (so acting on one leaves the others' lines as they
    were); None means all."""
    chosen = found.hunks() if hunks is None else hunks
    return sorted(chosen, key=lambda h: h.start, reverse=True)


def accept_hunks(
    store: Store,
    chat_id: str,
    path: str,
    hunks: list[Hunk] | None,
    buffers: Buffers | None,
    put: Put,
    *,
    amended: list[str] | None = None,
) -> Reviewed | Problem:
    """Take hunks (all when None) into the local text (through `put`) and the snapshot; one
    hunk may be taken `amended` (the user's lines instead of the model's)."""
    if amended is not None and (hunks is None or len(hunks) != 1):
        return Problem("invalid_args", f"{path}: amend one hunk at a time")
    if hunks is not None and any(hunk.choice for hunk in hunks):
        if len(hunks) != 1 or amended is not None:
            return Problem("invalid_args", f"{path}: take one place at a time, as proposed")
        return _take_place(store, chat_id, path, hunks[0], buffers, put)

    def act(found: Texts, output: PendingOutput, entry: ContextEntry | None) -> list[Hunk]:
        base, local, out = found.base, found.local, found.output
        for hunk in _chosen(found, hunks):
            split = text_hunks.accept(base, local, out, hunk, amended)
            if split is None:
                raise Abort(_gone(path))
            base, local, out = split.base, split.local, split.output
        events = taken_events(output, found.output, entry, found.base, base)
        return _taken(store, chat_id, output, entry, Texts(base, local, out), events, put)

    def keep(found: Texts, record: UndoRecord) -> list[Hunk]:
        if amended is not None:
            raise Abort(
                Problem(
                    "invalid_args",
                    f"{path}: the agent's change is on disk already; edit the lines in the "
                    "buffer instead of amending",
                )
            )
        before = found.base
        for hunk in _chosen(found, hunks):
            split = text_hunks.keep_applied(before, found.local, found.output, hunk)
            if split is None:
                raise Abort(_gone(path))
            before = split.base
            named = record.prev_output.file_id
            store.append_event(chat_id, Event.taken_hunk(path, named, *split.lines))
        store.update_undo(msgspec.structs.replace(record, prev_local=store.put_blob(before)))
        return text_hunks.applied_hunks(before, found.local, found.output)

    return _act(store, chat_id, path, buffers, act, keep)


def _taken(
    store: Store,
    chat_id: str,
    output: PendingOutput,
    entry: ContextEntry | None,
    now: Texts,
    events: list[Event],
    put: Put,
) -> list[Hunk]:
    """Keep what the user took: `now` the new snapshot, local text and pending output (gone
    when it is the snapshot), `events` what was taken; the hunks left."""
    path = output.path
    new_entry = ContextEntry.taken(path, store.put_blob(now.base), now.base, entry)
    store.put_entry(chat_id, new_entry)
    moved = _moved_on(store, output, now.output, new_entry)
    done = same_text(now.base, now.output) and store.settle_output(chat_id, moved)
    if not done:
        store.put_output(chat_id, moved)
    store.append_event(chat_id, Event.applied(new_entry, entry, partly=not done))
    for event in events:
        store.append_event(chat_id, event)
    put(now.local)
    return [] if done else offered(store, chat_id, path, now)


def _moved_on(store: Store, output: PendingOutput, text: str, entry: ContextEntry) -> PendingOutput:
    """`output` holding `text`, over the new snapshot `entry`."""
    if text == store.blob(output.blob):
        return msgspec.structs.replace(output, base_file_id=entry.file_id)
    return msgspec.structs.replace(
        output,
        blob=store.put_blob(text),
        file_id=entry_file_id(output.path, text),
        base_file_id=entry.file_id,
    )


def _take_place(
    store: Store, chat_id: str, path: str, hunk: Hunk, buffers: Buffers | None, put: Put
) -> Reviewed | Problem:
    """Accept a place of an edit waiting for a choice: the edit goes into the pending output
    there (the choice is made), and its hunk is accepted into the local text (where it could
    not be drawn apart, the hunks it makes there)."""
    try:
        with store.transaction():
            found = texts(store, chat_id, path, buffers)
            if isinstance(found, Problem):
                raise Abort(found)
            if hunk not in offered(store, chat_id, path, found):
                raise Abort(_gone(path))
            own = _own(store, chat_id, path, found, hunk)
            before = {_key(h) for h in found.hunks()}
            chosen = choices.choose(store, chat_id, path, hunk.place, hunk.choice)
            if isinstance(chosen, Problem):
                raise Abort(chosen)
            output, entry = store.output(chat_id, path), store.entry(chat_id, path)
            if own is not None and output is not None:
                # The place alone, however close another hunk is: that one stays pending. Its
                # lines are the output's, or for a deletion the snapshot's.
                split = own.split
                named = output.file_id if split.in_output or entry is None else entry.file_id
                event = Event.taken_hunk(path, named, *split.lines)
                alone = Texts(split.base, split.local, split.output)
                return Reviewed(path, _taken(store, chat_id, output, entry, alone, [event], put))
            now = texts(store, chat_id, path, buffers)
            assert not isinstance(now, Problem)  # the output is there: the choice just made it
            made = [h for h in now.hunks() if _key(h) not in before]
            if not made:  # the edit changes nothing there any more: the choice is all
                return Reviewed(path, offered(store, chat_id, path, now))
            taken = accept_hunks(store, chat_id, path, made, buffers, put)
            if isinstance(taken, Problem):
                raise Abort(taken)  # the choice is undone with the rest
    except Abort as abort:
        return abort.problem
    return taken


def _own(
    store: Store, chat_id: str, path: str, found: Texts, hunk: Hunk
) -> text_hunks.Placed | None:
    """The place `hunk` offers, when it is drawn as a hunk of its own (`offered`)."""
    for choice in store.choices(chat_id, path):
        if choice.id != hunk.choice:
            continue
        got = choices.places(store, chat_id, choice)
        if isinstance(got, Problem) or not 1 <= hunk.place <= len(got.outputs):
            return None
        own = text_hunks.placed_hunk(
            found.base, found.local, found.output, got.outputs[hunk.place - 1]
        )
        if own is not None and _key(own.hunk) == _key(hunk):
            return own
    return None


def _refuse(
    store: Store, chat_id: str, path: str, hunk: Hunk, buffers: Buffers | None, reason: str
) -> Reviewed | Problem:
    """Reject a place of an edit waiting for a choice: the edit is refused, every place."""
    refused = choices.refuse(store, chat_id, path, hunk.choice, reason)
    if isinstance(refused, Problem):
        return refused
    if store.output(chat_id, path) is None:
        return Reviewed(path, [])
    return current(store, chat_id, path, buffers)


def reject_hunks(
    store: Store,
    chat_id: str,
    path: str,
    hunks: list[Hunk] | None,
    buffers: Buffers | None,
    *,
    reason: str = "",
    put: Put | None = None,
) -> Reviewed | Problem:
    """Drop hunks (all when None) from the pending output and record each for the model, by
    its lines in the version the model wrote (or, for a deletion, in the snapshot), with the
    user's one-line `reason` if given. For an agent's applied change the lines from before its
    turn go back into the local text through `put` (required then)."""
    reason = " ".join(reason.split())
    if hunks is not None and any(hunk.choice for hunk in hunks):
        if len(hunks) != 1:
            return Problem("invalid_args", f"{path}: refuse one edit at a time")
        return _refuse(store, chat_id, path, hunks[0], buffers, reason)

    def act(found: Texts, output: PendingOutput, entry: ContextEntry | None) -> list[Hunk]:
        if hunks is None:
            # Every hunk: the edits waiting for a choice of place go too.
            for choice in store.choices(chat_id, path):
                refused = choices.refuse(store, chat_id, path, choice.id, reason)
                if isinstance(refused, Problem):
                    raise Abort(refused)
            if store.output(chat_id, path) is None:
                return []
        out = found.output
        for hunk in _chosen(found, hunks):
            split = text_hunks.reject(found.base, found.local, out, hunk)
            if split is None:
                raise Abort(_gone(path))
            out = split.output
            named = output.file_id if split.in_output or entry is None else entry.file_id
            store.append_event(
                chat_id,
                Event.rejected_hunk(
                    path, named, split.lines[0], split.lines[1], split.change, reason
                ),
            )
        left = msgspec.structs.replace(
            output, blob=store.put_blob(out), file_id=entry_file_id(path, out)
        )
        if same_text(out, found.base) and store.settle_output(chat_id, left):
            return []
        store.put_output(chat_id, left)
        return offered(store, chat_id, path, Texts(found.base, found.local, out))

    def revert(found: Texts, record: UndoRecord) -> list[Hunk]:
        if put is None:
            raise Abort(Problem("invalid_args", f"{path}: nowhere to put the lines back"))
        local, after = found.local, found.output
        for hunk in _chosen(found, hunks):
            split = text_hunks.revert_applied(found.base, local, after, hunk)
            if split is None:
                raise Abort(_gone(path))
            local, after = split.local, split.output
            named = record.prev_output.file_id
            store.append_event(
                chat_id,
                Event.rejected_hunk(
                    path, named, split.lines[0], split.lines[1], split.change, reason
                ),
            )
        written = store.put_blob(after)
        output = msgspec.structs.replace(
            record.prev_output, blob=written, file_id=entry_file_id(path, after)
        )
        store.update_undo(msgspec.structs.replace(record, written=written, prev_output=output))
        entry = store.entry(chat_id, path)
        store.put_entry(chat_id, ContextEntry.taken(path, written, after, entry))
        put(local)
        return text_hunks.applied_hunks(found.base, local, after)

    return _act(store, chat_id, path, buffers, act, revert)
