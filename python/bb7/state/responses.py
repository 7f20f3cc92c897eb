"""Where a model's response meets the state: the base versions it edits, recording the new
contents it produced as pending outputs, and the retry state a failed response leaves.

The formats layer (`bb7.formats.apply.apply_response`) turns a response into new contents,
all-or-nothing, from the bases `edit_bases` gives; `record_outputs` then stores them in one
transaction. When a response's edits fail, `record_failure` stores its answer together with the
retry state: the retry context text and the partial versions its successful edits produced,
which the next request offers as writable versions (`retry_state` drops those whose base changed
since). Nothing here touches project files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from bb7.files.fileid import file_id
from bb7.files.paths import project_path
from bb7.refusal import Abort, Problem
from bb7.state.records import (
    GLOBAL,
    Event,
    EventPart,
    Message,
    OutputRef,
    PendingChoice,
    PendingOutput,
)
from bb7.state.store import Store

# The stored version a model edits: its pending output, else the context snapshot.
StoredBase = Literal["pending_output", "snapshot"]


class EditBase(msgspec.Struct, frozen=True):
    """The version of a path the model edits: its pending output if any, else the snapshot."""

    path: str
    content: str
    file_id: str
    writable: bool
    # Where it comes from, in the words of `bb7.formats.apply.FileState.base`.
    base: StoredBase


class Recorded(msgspec.Struct, frozen=True):
    outputs: list[PendingOutput]  # outputs created or replaced
    unchanged: list[str]  # paths whose new content equals their base (nothing stored)
    reverted: list[str]  # paths written back to their snapshot (pending output dropped)
    message: Message | None  # the stored assistant message, when one was given
    events: list[Event] = []  # the "assistant wrote" events, when the caller stores them
    choices: list[PendingChoice] = []  # edits now waiting for a choice of place


class RetryOutput(msgspec.Struct, frozen=True):
    """A partial version of a failed response: what its successful edits made of `path`."""

    path: str
    content: str
    file_id: str
    base_file_id: str  # the base it was computed from ('' for a new file)
    added: bool


class RetryState(msgspec.Struct, frozen=True):
    """What the next request carries after a failed response. `outputs` are the partial
    versions whose base is still current; `dropped` the paths whose base changed since."""

    text: str
    outputs: list[RetryOutput]
    dropped: list[str]


def edit_bases(store: Store, chat_id: str) -> dict[str, EditBase]:
    """Per path of the chat, the base the model edits. Sections are quotes, not bases."""
    bases: dict[str, EditBase] = {}
    for entry in store.entries(chat_id):
        if not entry.facts.whole_file:
            continue
        bases[entry.path] = EditBase(
            path=entry.path,
            content=store.blob(entry.blob),
            file_id=entry.file_id,
            writable=entry.facts.writable and store.scope != GLOBAL,
            base="snapshot",
        )
    for output in store.outputs(chat_id):
        current = bases.get(output.path)
        if current is not None and not current.writable:
            continue
        bases[output.path] = EditBase(
            path=output.path,
            content=store.blob(output.blob),
            file_id=output.file_id,
            writable=True,
            base="pending_output",
        )
    return bases


def record_outputs(
    store: Store,
    chat_id: str,
    contents: Mapping[str, str],
    *,
    bases: Mapping[str, EditBase] | None = None,
    message: Message | None = None,
    clear_retry: bool = False,
    store_events: bool = True,
    choices: Sequence[PendingChoice] = (),
) -> Recorded | Problem:
    """Store a successful response's new file contents as pending outputs, all or nothing.

    `contents` maps root-relative paths to their complete new text. `bases` is what
    `edit_bases` returned when the response was computed; if any base changed since (the user
    applied or discarded meanwhile), nothing is recorded. `message` (the assistant's reply) is
    stored with one "assistant wrote" event part per changed path, in the same transaction;
    without it the events are stored as an assistant message of their own. `clear_retry`
    drops the chat's retry state in the same transaction (the response repaired it).
    Without `store_events` (and `message`) the events are returned instead, for the caller to
    store with a message of its own (an agent's, at the end of its turn). `choices`: the
    response's edits that wait for the user's choice of place (`bb7.state.choices`); each
    file of one is pending, though nothing else of the response changed it.
    """
    if store.scope == GLOBAL or store.root is None:
        return Problem("global", "global chats are read-only: the model cannot write files")
    root = store.root
    try:
        with store.transaction():
            current = edit_bases(store, chat_id)
            stored: list[PendingOutput] = []
            unchanged: list[str] = []
            reverted: list[str] = []
            events: list[EventPart] = []
            for path, text in contents.items():
                if project_path(root, path) != path:
                    raise Abort(
                        Problem("invalid_path", f"{path} is not a normalised path in the project")
                    )
                base = current.get(path)
                if base is not None and not base.writable:
                    raise Abort(Problem("readonly", f"{path} is read-only in this chat"))
                if bases is not None and _base_id(bases.get(path)) != _base_id(base):
                    raise Abort(
                        Problem(
                            "stale_base",
                            f"{path} changed while the response was written; nothing was "
                            "recorded, send again",
                        )
                    )
                if base is not None and text == base.content:
                    unchanged.append(path)
                    continue
                entry = store.entry(chat_id, path)
                output = PendingOutput(
                    path=path,
                    blob=store.put_blob(text),
                    file_id=file_id(path, text),
                    base_file_id=_base_id(base),
                    added=entry is None,
                )
                events.append(EventPart(Event.wrote(output)))
                if entry is not None and text == store.blob(entry.blob):
                    store.delete_output(chat_id, path)
                    reverted.append(path)
                    continue
                store.put_output(chat_id, output)
                stored.append(output)
            waiting = [
                _wait(store, chat_id, current.get(c.path), contents.get(c.path), c) for c in choices
            ]
            saved = None
            if message is None and not store_events:
                kept = [part.event for part in events]
                return Recorded(stored, unchanged, reverted, None, kept, waiting)
            if message is not None or events:
                reply = message or Message(role="assistant", parts=[])
                reply = msgspec.structs.replace(reply, parts=[*reply.parts, *events])
                saved = store.append_message(chat_id, reply)
            if clear_retry:
                store.set_retry(chat_id, "", [])
            return Recorded(
                outputs=stored,
                unchanged=unchanged,
                reverted=reverted,
                message=saved,
                choices=waiting,
            )
    except Abort as abort:
        return abort.problem


def _wait(
    store: Store,
    chat_id: str,
    base: EditBase | None,
    text: str | None,
    choice: PendingChoice,
) -> PendingChoice:
    """Store `choice` beside its file's pending output, which the file gets (`text`, the
    response's new content of it, else its base as it is) when it has none now."""
    if base is None or not base.writable:
        raise Abort(Problem("readonly", f"{choice.path} cannot be edited in this chat"))
    if store.output(chat_id, choice.path) is None:
        content = base.content if text is None else text
        store.put_output(
            chat_id,
            PendingOutput(
                path=choice.path,
                blob=store.put_blob(content),
                file_id=file_id(choice.path, content),
                base_file_id=_base_id(base),
                added=False,
            ),
        )
    return store.add_choice(chat_id, choice)


def record_failure(
    store: Store,
    chat_id: str,
    messages: Sequence[Message],
    *,
    retry_text: str,
    partial: Mapping[str, str],
    bases: Mapping[str, EditBase],
) -> list[Message]:
    """Store a failed response's messages (its answer, a notice) and its retry state, in one
    transaction: the retry context and the partial versions its successful edits produced
    (`partial`: path -> content, computed from `bases`). Replaces any earlier retry state."""
    with store.transaction():
        saved = [store.append_message(chat_id, message) for message in messages]
        refs = []
        for path, content in sorted(partial.items()):
            base = bases.get(path)
            refs.append(
                OutputRef(
                    path=path,
                    blob=store.put_blob(content),
                    file_id=file_id(path, content),
                    base_file_id=_base_id(base),
                    added=base is None,
                )
            )
        store.set_retry(chat_id, retry_text, refs)
        return saved


def retry_state(store: Store, chat_id: str) -> RetryState | None:
    """The chat's retry state, None when there is none. A partial version whose base is no
    longer the current one (the user applied, discarded or updated the file since) is dropped:
    offering it would undo what the user did."""
    chat = store.chat(chat_id)
    if chat is None or not chat.retry_context:
        return None
    current = edit_bases(store, chat_id)
    outputs: list[RetryOutput] = []
    dropped: list[str] = []
    for ref in store.retry_outputs(chat_id):
        base = current.get(ref.path)
        if _base_id(base) != ref.base_file_id or (base is not None and not base.writable):
            dropped.append(ref.path)
            continue
        outputs.append(
            RetryOutput(
                path=ref.path,
                content=store.blob(ref.blob),
                file_id=ref.file_id,
                base_file_id=ref.base_file_id,
                added=ref.added,
            )
        )
    return RetryState(text=chat.retry_context, outputs=outputs, dropped=dropped)


def clear_retry(store: Store, chat_id: str) -> None:
    """Forget the retry state (the user dismissed it, or the chat was rewound past it)."""
    with store.transaction():
        store.set_retry(chat_id, "", [])


def _base_id(base: EditBase | None) -> str:
    return "" if base is None else base.file_id
