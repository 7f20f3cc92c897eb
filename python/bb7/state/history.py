"""A chat's history as the user rewinds or relocates it: fork at a user message, edit a user
message (truncating after it), start again with the same context, and move a chat between the
project's store and the global one.

Fork and edit restore the context to the exact snapshot contents a user message was sent with
(and, for edit, the pending outputs too), warning about files changed or deleted since.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from bb7.files.fileid import entry_file_id
from bb7.files.fsio import FileProblem
from bb7.files.paths import project_path
from bb7.refusal import Abort, Problem
from bb7.state.chats import chat_or_abort, fresh, new_chat, refuse_if_held
from bb7.state.context import text_now
from bb7.state.local import Buffers, read_local, same_text, text_of
from bb7.state.records import (
    ENTRY_KINDS,
    EXTERNAL,
    GLOBAL,
    WRITABLE,
    Chat,
    EntryKind,
    Event,
    EventPart,
    Message,
    SnapshotRef,
    WarningIssue,
)
from bb7.state.store import Store
from bb7.text.lines import split_lines

FORK_PREFIX = "Fork of "


class ContextWarning(msgspec.Struct, frozen=True):
    """A restored snapshot whose file changed (`modified`) or vanished (`deleted`) since."""

    path: str
    issue: WarningIssue
    file_id: str


class Restored(msgspec.Struct, frozen=True):
    """The result of fork and edit: the chat, its draft, and warnings."""

    chat: Chat
    draft: str
    warnings: list[ContextWarning]


def _user_message(store: Store, chat_id: str, message_id: int) -> Message:
    message = store.message(chat_id, message_id)
    if message is None or message.role != "user":
        raise Abort(Problem("no_message", f"chat {chat_id} has no user message {message_id}"))
    return message


def _restore_context(
    store: Store, chat_id: str, refs: list[SnapshotRef], buffers: Buffers | None
) -> list[ContextWarning]:
    """Make the chat's context exactly `refs`; warn about files that changed since."""
    store.clear_entries(chat_id)
    _drop_last_warning(store, chat_id)
    warnings: list[ContextWarning] = []
    for ref in refs:
        store.put_entry(chat_id, ref.entry())
        if not ref.facts.of_file:
            continue  # a live part is read again at the next send
        if ref.facts.sent_as == "image":
            continue  # a picture is the one the user added, whatever the file holds now
        local = read_local(store, ref.path, buffers)
        if isinstance(local, FileProblem) and local.kind == "missing":
            warnings.append(ContextWarning(ref.path, "deleted", ref.file_id))
            continue
        now = text_of(local)
        if ref.start_line and now is not None:
            lines = split_lines(now, keepends=True)  # numbered as Neovim numbers them (LF only)
            now = "".join(lines[ref.start_line - 1 : ref.end_line])
        if not same_text(now, store.blob(ref.blob)):
            warnings.append(ContextWarning(ref.path, "modified", ref.file_id))
    if warnings:
        store.append_message(
            chat_id,
            Message(
                role="system",
                parts=[_warning_part(w) for w in warnings],
            ),
        )
    return warnings


def _drop_last_warning(store: Store, chat_id: str) -> None:
    """A warning message ending the history was about this same context (restored by a fork
    whose draft was then sent and is now edited): the warning given now replaces it, so the
    user reads it once."""
    last = store.last_message(chat_id)  # not the whole history: a long chat is many rows
    if (
        last is not None
        and last.role == "system"
        and last.parts
        and all(
            isinstance(p, EventPart) and p.event.action.startswith("fork_warning")
            for p in last.parts
        )
    ):
        store.delete_messages_from(chat_id, last.seq)


def _warning_part(warning: ContextWarning) -> EventPart:
    return EventPart(Event.fork_warning(warning.path, warning.issue, warning.file_id))


def fork_chat(
    store: Store, chat_id: str, message_id: int, *, buffers: Buffers | None = None
) -> Restored | Problem:
    """A new chat with the history before a user message, its context restored to the exact
    snapshots that message was sent with, and the message's text as the draft."""
    try:
        with store.transaction():
            source = chat_or_abort(store, chat_id)
            fork_point = _user_message(store, chat_id, message_id)
            base_name = source.name.removeprefix(FORK_PREFIX)
            chat = new_chat(
                store,
                name=FORK_PREFIX + base_name,
                model=source.model,
                reasoning_effort=source.reasoning_effort,
                draft=fork_point.text(),
            )
            for message in store.messages(chat_id):
                if message.seq >= fork_point.seq:
                    break
                store.append_message(chat.id, msgspec.structs.replace(message, id=0, seq=0))
            warnings = _restore_context(store, chat.id, fork_point.context_snapshot, buffers)
            return Restored(chat=fresh(store, chat.id), draft=chat.draft, warnings=warnings)
    except Abort as abort:
        return abort.problem


def reuse_context(store: Store, chat_id: str, *, buffers: Buffers | None = None) -> Chat | Problem:
    """A new chat, empty, with the model, reasoning effort and context of `chat_id`: each whole
    file snapshotted afresh from its local text, through the path rule and the secret guard
    (`context.text_now`: a file gone, unreadable, swapped for a link out of the project or
    now holding a secret keeps the snapshot it had), sections as they were; read-only and
    writable as they were."""
    try:
        with store.transaction():
            source = chat_or_abort(store, chat_id)
            chat = new_chat(store, model=source.model, reasoning_effort=source.reasoning_effort)
            for entry in store.entries(chat_id):
                now = None if entry.start_line else text_now(store, entry, buffers)
                if now is not None:
                    blob, file_id = store.put_blob(now), entry_file_id(entry.path, now)
                    entry = msgspec.structs.replace(entry, blob=blob, file_id=file_id)
                store.put_entry(chat.id, entry)
            return fresh(store, chat.id)
    except Abort as abort:
        return abort.problem


def edit_message(
    store: Store, chat_id: str, message_id: int, *, buffers: Buffers | None = None
) -> Restored | Problem:
    """Truncate the chat before a user message and restore the context and pending outputs it
    was sent with; the message's text becomes the draft to edit and resend."""
    try:
        with store.transaction():
            chat_or_abort(store, chat_id)
            refuse_if_held(store, chat_id)
            target = _user_message(store, chat_id, message_id)
            store.delete_messages_from(chat_id, target.seq)
            store.clear_outputs(chat_id)
            for ref in target.outputs_snapshot:
                store.put_output(chat_id, ref.output())
            warnings = _restore_context(store, chat_id, target.context_snapshot, buffers)
            # The failed response a retry state would repair is gone with the truncation.
            store.set_retry(chat_id, "", [])
            store.update_chat(chat_id, draft=target.text())
            return Restored(chat=fresh(store, chat_id), draft=target.text(), warnings=warnings)
    except Abort as abort:
        return abort.problem


# -- moving between project and global --------------------------------------------------------


def move_chat(source: Store, target: Store, chat_id: str, project_root: Path) -> Chat | Problem:
    """Move a chat between the project's store and the global one, keeping its history.

    Refused while outputs are pending; a retry state is dropped. Project → global turns every
    file into a read-only external (absolute path); global → project turns externals inside the
    project back into writable project files. The copy is committed before the original is
    deleted, so a crash in between leaves two copies, never none.
    """
    if source.path == target.path:
        return Problem("same_scope", f"chat {chat_id} is already {target.scope}")
    try:
        with source.transaction():
            chat = chat_or_abort(source, chat_id)
            refuse_if_held(source, chat_id)
            if source.outputs(chat_id):
                raise Abort(
                    Problem(
                        "pending_output",
                        f"chat {chat_id} has pending file changes; apply or discard them "
                        "before moving it",
                    )
                )
            entries = source.entries(chat_id)
            messages = source.messages(chat_id)
    except Abort as abort:
        return abort.problem
    to_global = target.scope == GLOBAL

    def convert(
        path: str, kind: EntryKind, content: str, start: int, end: int
    ) -> tuple[str, EntryKind, str]:
        new_path, new_kind = _moved_path(path, kind, project_root, to_global)
        return new_path, new_kind, entry_file_id(new_path, content, start, end)

    with target.transaction():
        # The retry state's partial versions stay behind, so the retry context does too.
        target.insert_chat(msgspec.structs.replace(chat, scope=target.scope, retry_context=""))
        for entry in entries:
            content = source.blob(entry.blob)
            path, kind, fid = convert(
                entry.path, entry.kind, content, entry.start_line, entry.end_line
            )
            target.put_entry(
                chat_id,
                msgspec.structs.replace(
                    entry, path=path, kind=kind, file_id=fid, blob=target.put_blob(content)
                ),
            )
        for message in messages:
            refs = []
            for ref in message.context_snapshot:
                content = source.blob(ref.blob)
                path, kind, fid = convert(ref.path, ref.kind, content, ref.start_line, ref.end_line)
                target.put_blob(content)
                refs.append(msgspec.structs.replace(ref, path=path, kind=kind, file_id=fid))
            for part in message.parts:
                if isinstance(part, EventPart) and part.event.blob:
                    target.put_blob(source.blob(part.event.blob))
            for out in message.outputs_snapshot:
                target.put_blob(source.blob(out.blob))
            target.append_message(
                chat_id, msgspec.structs.replace(message, id=0, seq=0, context_snapshot=refs)
            )
    with source.transaction():
        source.delete_chat(chat_id)
    return fresh(target, chat_id)


def _moved_path(path: str, kind: EntryKind, root: Path, to_global: bool) -> tuple[str, EntryKind]:
    """Where an entry lives in the other store: a whole file is outside the project in a global
    chat (external) and writable back in it; a quote keeps its kind."""
    facts = ENTRY_KINDS[kind]
    if not facts.of_file:
        return path, kind
    whole = facts.whole_file
    if to_global:
        absolute = path if os.path.isabs(path) else os.path.join(os.path.realpath(root), path)
        return absolute, EXTERNAL if whole else kind
    relative = project_path(root, path)
    if isinstance(relative, str):
        return relative, WRITABLE if whole else kind
    return path, kind
