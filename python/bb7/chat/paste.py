"""A model response the user pasted (`:BB7Paste`): its edits become pending outputs of a chat,
exactly as if the model had sent them, so bb7 works with any web chat and without an API key.

All or nothing, in one transaction: a file the response edits that is on disk but not yet in the
chat is added to the context first (writable: the user asked for its edits); every edit applies
to the version the model edits (`edit_bases`: the pending output, else the snapshot); then the
new contents and the pasted text (as the assistant's message) are recorded. An edit that fails
on a chat's copy older than the file (the user edited it since, status `~`) is tried on the
file as it is now, the copy brought up to date first (as `:BB7Add` would): a pasted answer was
written against what the user copied, not against the chat. A failure leaves the chat as it
was and says, per edit, what went wrong. Nothing here touches project files.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from bb7.chat.failures import error_lines
from bb7.chat.waiting import waiting
from bb7.formats.apply import (
    ApplyError,
    FileState,
    apply_response,
    describe_error,
    resolve_path,
    response_paths,
)
from bb7.formats.modes import DEFAULT_MODE, DiffMode
from bb7.refusal import Abort, Problem
from bb7.state import context
from bb7.state.local import Buffers, read_local, same_text, text_of
from bb7.state.records import GLOBAL, Message, TextPart
from bb7.state.responses import EditBase, Recorded, edit_bases, record_outputs
from bb7.state.store import Store
from bb7.text.words import plural


class Pasted(msgspec.Struct, frozen=True):
    """What a paste recorded, and the files it added to the context to do so."""

    recorded: Recorded
    added: list[str]
    refreshed: list[str] = []  # files whose chat copy was older than the file, brought up to date


def paste_response(
    store: Store,
    chat_id: str,
    text: str,
    mode: DiffMode = DEFAULT_MODE,
    buffers: Buffers | None = None,
) -> Pasted | Problem:
    """Record the edits of `text` (tool-call JSON, SEARCH/REPLACE or EDIT blocks) as pending
    outputs of the chat; see the module docstring. `buffers`: the editor's unsaved text, which
    a file added for the paste is snapshotted from (what the user saw and copied)."""
    if store.scope == GLOBAL or store.root is None:
        return Problem("global", "a global chat has no project files to change; paste in a project")
    try:
        with store.transaction():
            added = _add_named_files(store, chat_id, text, mode, buffers or {})
            bases = edit_bases(store, chat_id)
            result = apply_response(_file_states(bases), text, mode, root=store.root, choices=True)
            refreshed: list[str] = []
            if not result.ok:
                refreshed = _refresh_stale(store, chat_id, bases, result.errors, buffers or {})
            if refreshed:
                bases = edit_bases(store, chat_id)
                result = apply_response(
                    _file_states(bases), text, mode, root=store.root, choices=True
                )
            if not result.calls:
                raise Abort(
                    Problem(
                        "no_edits",
                        "the pasted text has no edits (no tool calls, SEARCH/REPLACE or EDIT "
                        "blocks); copy the model's whole answer and paste again",
                    )
                )
            if not result.ok:
                raise Abort(Problem("edits_failed", _not_pasted(result.errors)))
            recorded = record_outputs(
                store,
                chat_id,
                {change.path: change.content for change in result.files},
                bases=bases,
                message=Message(role="assistant", parts=[TextPart(text)]),
                choices=waiting(result),
            )
            if isinstance(recorded, Problem):
                raise Abort(recorded)
            return Pasted(recorded=recorded, added=added, refreshed=refreshed)
    except Abort as abort:
        return abort.problem


def _add_named_files(
    store: Store, chat_id: str, text: str, mode: DiffMode, buffers: Buffers
) -> list[str]:
    """Add the files the response names that exist on disk but are not in the chat yet."""
    assert store.root is not None
    bases = edit_bases(store, chat_id)
    added: list[str] = []
    for raw in response_paths(text, mode):
        path = resolve_path(store.root, raw)
        if not isinstance(path, str) or path in bases or path in added:
            continue  # a refused path is reported by apply_response
        if not (store.root / path).is_file():
            continue  # a new file: the response may create it
        local = buffers.get(path)
        entry = context.add(
            store, chat_id, context.Target(path), text=None if local is None else local.text
        )
        if isinstance(entry, Problem):
            raise Abort(Problem(entry.kind, f"{raw}: {entry.message}"))
        added.append(path)
    return added


def _refresh_stale(
    store: Store,
    chat_id: str,
    bases: dict[str, EditBase],
    errors: Sequence[ApplyError],
    buffers: Buffers,
) -> list[str]:
    """Bring up to date the chat's copies of the files edits failed on that are older than the
    file (no pending change in the way); the paths it refreshed."""
    assert store.root is not None
    refreshed: list[str] = []
    for error in errors:
        path = resolve_path(store.root, error.path)
        base = bases.get(path) if isinstance(path, str) else None
        if base is None or base.base != "snapshot" or not base.writable or path in refreshed:
            continue
        local = text_of(read_local(store, base.path, buffers))
        if local is None or same_text(local, base.content):
            continue
        updated = context.update(store, chat_id, context.Target(base.path), buffers=buffers)
        if not isinstance(updated, Problem):
            refreshed.append(base.path)
    return refreshed


def _file_states(bases: dict[str, EditBase]) -> dict[str, FileState]:
    return {
        path: FileState(
            content=base.content,
            base=base.base,
            writable=base.writable,
        )
        for path, base in bases.items()
    }


def _not_pasted(errors: Sequence[ApplyError]) -> str:
    """The first failed edit leads (the line a screen shows: where and what); then every error
    as the engine describes it, for the log."""
    first = error_lines(errors[0])[0].removeprefix("• ")
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    details = [describe_error(e).replace("\n", "\n    ") for e in errors]
    count = plural(len(errors), "error")
    return (
        f"nothing pasted, {first}{more}\n"
        f"the pasted response was not applied, nothing changed ({count}):\n  "
        + "\n  ".join(details)
    )
