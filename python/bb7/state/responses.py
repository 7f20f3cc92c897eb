"""Where a model's response meets the state: the base versions it edits, and recording the new
contents it produced as pending outputs.

The formats layer (`bb7.formats.apply.apply_response`) turns a response into new contents,
all-or-nothing, from the bases `edit_bases` gives; `record_outputs` then stores them in one
transaction. Nothing here touches project files.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from bb7.fileid import file_id
from bb7.paths import project_path
from bb7.state.records import (
    GLOBAL,
    SECTION,
    WRITABLE,
    Event,
    EventPart,
    Message,
    PendingOutput,
    Problem,
)
from bb7.state.store import Abort, Store


class EditBase(msgspec.Struct, frozen=True):
    """The version of a path the model edits: its pending output if any, else the snapshot."""

    path: str
    content: str
    file_id: str
    writable: bool
    source: str  # "output" (pending output) or "snapshot" (context entry)


class Recorded(msgspec.Struct, frozen=True):
    outputs: list[PendingOutput]  # outputs created or replaced
    unchanged: list[str]  # paths whose new content equals their base (nothing stored)
    reverted: list[str]  # paths written back to their snapshot (pending output dropped)
    message: Message | None  # the stored assistant message, when one was given


def edit_bases(store: Store, chat_id: str) -> dict[str, EditBase]:
    """Per path of the chat, the base the model edits. Sections are quotes, not bases."""
    bases: dict[str, EditBase] = {}
    for entry in store.entries(chat_id):
        if entry.kind == SECTION:
            continue
        bases[entry.path] = EditBase(
            path=entry.path,
            content=store.blob(entry.blob),
            file_id=entry.file_id,
            writable=entry.kind == WRITABLE and store.scope != GLOBAL,
            source="snapshot",
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
            source="output",
        )
    return bases


def record_outputs(
    store: Store,
    chat_id: str,
    contents: Mapping[str, str],
    *,
    bases: Mapping[str, EditBase] | None = None,
    message: Message | None = None,
) -> Recorded | Problem:
    """Store a successful response's new file contents as pending outputs, all or nothing.

    `contents` maps root-relative paths to their complete new text. `bases` is what
    `edit_bases` returned when the response was computed; if any base changed since (the user
    applied or discarded meanwhile), nothing is recorded. `message` (the assistant's reply) is
    stored with one "assistant wrote" event part per changed path, in the same transaction;
    without it the events are stored as an assistant message of their own.
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
                new_id = file_id(path, text)
                blob = store.put_blob(text)
                events.append(
                    EventPart(
                        Event(
                            action="assistant_wrote",
                            path=path,
                            file_id=new_id,
                            prev_file_id=_base_id(base),
                            blob=blob,
                            added=entry is None,
                        )
                    )
                )
                if entry is not None and text == store.blob(entry.blob):
                    store.delete_output(chat_id, path)
                    reverted.append(path)
                    continue
                output = PendingOutput(
                    path=path,
                    blob=blob,
                    file_id=new_id,
                    base_file_id=_base_id(base),
                    added=entry is None,
                )
                store.put_output(chat_id, output)
                stored.append(output)
            saved = None
            if message is not None or events:
                reply = message or Message(role="assistant", parts=[])
                reply = msgspec.structs.replace(reply, parts=[*reply.parts, *events])
                saved = store.append_message(chat_id, reply)
            return Recorded(outputs=stored, unchanged=unchanged, reverted=reverted, message=saved)
    except Abort as abort:
        return abort.problem


def _base_id(base: EditBase | None) -> str:
    return "" if base is None else base.file_id
