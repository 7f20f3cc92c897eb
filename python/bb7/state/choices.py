"""Edits of the model's answer that wait for the user's choice of place.

An edit whose old text matches several places of its file, with nothing in the answer to tell
them apart, does not fail the answer (`bb7.formats.apply`, `choices`): the file's pending output
holds the answer's other edits, and the edit waits (`PendingChoice`) for the user to take one of
its places or refuse it. Nothing is written meanwhile: the file is pending (`M`) with a mark that
a choice is needed, and apply refuses it until the choice is made.

Its places are found again on the pending output whenever they are asked for (`places`), so
they follow what else happened to the output (hunks taken or rejected). Taking place k
(`choose`) puts the edit into the pending output there; refusing it (`refuse`) drops it and
records, for the next request, that the user refused it. Not here: the places as review hunks
(`bb7.state.review`) and drawing them (`lua/bb7/review.lua`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from bb7.files.fileid import entry_file_id
from bb7.refusal import Abort, Problem
from bb7.state.local import same_text
from bb7.state.records import Event, PendingChoice
from bb7.state.store import Store
from bb7.text.merge import line_change

if TYPE_CHECKING:
    from bb7.edits import Candidate


class Places(msgspec.Struct, frozen=True):
    """Where a pending choice's edit matches the pending output now: `places` (1-based lines
    of the output), and the output with the edit made at each (`outputs`, in the same order)."""

    choice: PendingChoice
    base: str  # the pending output the places are in
    places: list[Candidate]
    outputs: list[str]


class Chosen(msgspec.Struct, frozen=True):
    """A choice made: the edit is in the pending output at `place` (1-based lines of it);
    `left` choices of the file still wait."""

    path: str
    place: Candidate
    left: int


def places(store: Store, chat_id: str, choice: PendingChoice) -> Places | Problem:
    """The places `choice`'s edit matches in its file's pending output, or why none."""
    # The engine and the editorconfig reader come with the edit formats: not at the host's start.
    from bb7.edits import Applied, Candidate, EditOutcome, replace
    from bb7.formats.editorconfig import tab_width

    output = store.output(chat_id, choice.path)
    if output is None:
        return Problem("no_output", f"{choice.path} has no pending change")
    content = store.blob(output.blob)
    width = None if store.root is None else tab_width(store.root, choice.path)

    def edit(place: int | None) -> EditOutcome:
        return replace(
            content,
            choice.old,
            choice.new,
            path=choice.path,
            whole_lines=choice.whole_lines,
            tab_width=width,
            place=place,
        )

    stale = Problem("stale", f"{choice.path}: {_where(choice)}no longer matches the change")
    first = edit(None)
    if isinstance(first, Applied):
        # One place left (the others went with hunks taken or rejected meanwhile).
        found = [Candidate(first.start_line, first.end_line, first.similarity, "")]
        return Places(choice, content, found, [first.content])
    outputs: list[str] = []
    for k in range(len(first.places)):
        made = edit(k)
        if not isinstance(made, Applied):
            return stale
        outputs.append(made.content)
    if not outputs:
        return stale
    return Places(choice, content, list(first.places), outputs)


def choosing(store: Store, chat_id: str, path: str) -> Problem | None:
    """Why the pending change of `path` cannot be written or merged yet: an edit of it waits
    for the user's choice of place (writing the rest would drop it without a word)."""
    waiting = len(store.choices(chat_id, path))
    if not waiting:
        return None
    edits = "an edit of it waits" if waiting == 1 else f"{waiting} edits of it wait"
    return Problem("choose", f"{path}: {edits} for a choice of place; nothing was written")


def first_choice(store: Store, chat_id: str, path: str) -> PendingChoice | Problem:
    found = store.choices(chat_id, path)
    if not found:
        return Problem("nothing_pending", f"{path} has no edit waiting for a choice of place")
    return found[0]


def choose(
    store: Store, chat_id: str, path: str, place: int, choice_id: int | None = None
) -> Chosen | Problem:
    """Take place `place` (1-based, as `places` lists them) of the first choice of `path` (or
    `choice_id`): the edit goes into the pending output there, and the choice is done."""
    try:
        with store.transaction():
            choice = _choice(store, chat_id, path, choice_id)
            found = places(store, chat_id, choice)
            if isinstance(found, Problem):
                raise Abort(found)
            if not 1 <= place <= len(found.places):
                raise Abort(
                    Problem(
                        "invalid_args",
                        f"{path}: {_where(choice)}matches {len(found.places)} places; "
                        f"choose 1 to {len(found.places)}",
                    )
                )
            text = found.outputs[place - 1]
            output = store.output(chat_id, path)
            assert output is not None  # `places` found it in this transaction
            store.put_output(
                chat_id,
                msgspec.structs.replace(
                    output, blob=store.put_blob(text), file_id=entry_file_id(path, text)
                ),
            )
            store.delete_choice(chat_id, choice.id)
            left = len(store.choices(chat_id, path))
    except Abort as abort:
        return abort.problem
    return Chosen(path, found.places[place - 1], left)


def refuse(
    store: Store, chat_id: str, path: str, choice_id: int | None = None, reason: str = ""
) -> int | Problem:
    """Refuse the first choice of `path` (or `choice_id`) without taking a place: it goes, and
    the next request tells the model, with the user's one-line `reason` if given. Returns how
    many choices of the file still wait; with none and nothing else pending, the pending
    output goes too."""
    reason = " ".join(reason.split())
    try:
        with store.transaction():
            choice = _choice(store, chat_id, path, choice_id)
            output = store.output(chat_id, path)
            found = places(store, chat_id, choice)
            first = found.places[0] if isinstance(found, Places) else None
            change = line_change(choice.old.splitlines(), choice.new.splitlines())
            store.delete_choice(chat_id, choice.id)
            store.append_event(
                chat_id,
                Event.refused_edit(
                    path,
                    "" if output is None else output.file_id,
                    (first.start_line, first.end_line) if first is not None else (0, 0),
                    change,
                    reason,
                ),
            )
            left = len(store.choices(chat_id, path))
            entry = store.entry(chat_id, path)
            if output is not None and not left:
                base = None if entry is None else store.blob(entry.blob)
                if base is not None and same_text(store.blob(output.blob), base):
                    store.delete_output(chat_id, path)
    except Abort as abort:
        return abort.problem
    return left


def _choice(store: Store, chat_id: str, path: str, choice_id: int | None) -> PendingChoice:
    """The choice asked for (the first of the file by default), or Abort."""
    if choice_id is None:
        found = first_choice(store, chat_id, path)
        if isinstance(found, Problem):
            raise Abort(found)
        return found
    for choice in store.choices(chat_id, path):
        if choice.id == choice_id:
            return choice
    raise Abort(Problem("stale", f"{path}: that edit no longer waits for a choice"))


def _where(choice: PendingChoice) -> str:
    """`the edit of block 2 ` (as much as is known), to start a sentence's subject."""
    parts = []
    if choice.block is not None:
        parts.append(f"block {choice.block}")
    if choice.edit is not None:
        parts.append(f"edit {choice.edit}")
    return f"the edit ({', '.join(parts)}) " if parts else "the edit "
