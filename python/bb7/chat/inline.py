"""An edit of a selection in place (`:BB7Edit`): the project's inline chat, readied for one edit,
and the message that asks for it.

Every project has one inline chat, listed with the others and found again by a setting of the
project's database (so a rename keeps it; a deleted one is made anew). Each edit is sent on its
own: the chat's earlier edits stay in it, left out of requests as `gX` leaves a message out, and
its other files leave its context unless a change of theirs is pending; the file edited is
there, writable, as the editor has it. Sending the message is the send loop's
(`bb7.chat.send`); the answer's changes are pending outputs of the chat like any other.
"""

from __future__ import annotations

from pathlib import Path

from bb7.refusal import Problem
from bb7.state import chats, context
from bb7.state.records import Chat, ContextEntry
from bb7.state.store import Store
from bb7.text.lines import split_lines

# The setting that names the project's inline chat.
INLINE_CHAT = "inline_chat"
NAME = "Inline edits"
# The roles of an earlier edit's exchange (what `gX` would leave out).
_EXCHANGE = ("user", "assistant", "system", "check", "summary")


def inline_chat(store: Store) -> Chat:
    """The project's inline chat, made when it has none (or it was deleted)."""
    chat_id = store.setting(INLINE_CHAT)
    chat = None if chat_id is None else store.chat(chat_id)
    if chat is not None:
        return chat
    chat = chats.new_chat(store, name=NAME)
    with store.transaction():
        store.set_setting(INLINE_CHAT, chat.id)
    return chat


def is_inline(store: Store, chat_id: str) -> bool:
    return store.setting(INLINE_CHAT) == chat_id


def ready_for(
    store: Store, chat_id: str, raw: str, text: str | None, base: Path | None
) -> ContextEntry | Problem:
    """Ready the inline chat for an edit of the file `raw` (as the user named it; `text`: its
    buffer's unsaved text): the file in the context as it is now, writable, and nothing else
    of earlier edits sent along. Refused while an earlier edit of that file is pending: its
    review comes first."""
    where = context.resolve(store, raw, base)
    if isinstance(where, Problem):
        return where
    if where.external:
        return Problem("outside_root", f"{raw} is outside the project: :BB7Edit edits its files")
    path = where.path
    if store.output(chat_id, path) is not None or store.choices(chat_id, path):
        return Problem("pending_output", f"{path} has an inline edit pending: :BB7Review it first")
    with store.transaction():
        pending = {o.path for o in store.outputs(chat_id)}
        for entry in store.entries(chat_id):
            if entry.path != path and entry.path not in pending:
                # One that cannot be removed (a part named oddly) is only sent along.
                target = context.Target(entry.path, entry.start_line, entry.end_line)
                context.remove(store, chat_id, target)
        earlier = [m.id for m in store.messages(chat_id) if m.role in _EXCHANGE and not m.excluded]
        store.set_excluded(chat_id, earlier, True)
        store.set_retry(chat_id, "", [])
    added = context.add(store, chat_id, context.Target(raw), text=text, base=base)
    if isinstance(added, ContextEntry) and not added.facts.writable:
        return Problem("readonly", f"{path} is read-only in the inline chat: r in its files")
    return added


def selection(text: str, start: int, end: int, path: str) -> str | Problem:
    """Lines `start` to `end` (1-based, inclusive) of `text`."""
    lines = split_lines(text, crlf=True)
    if start < 1 or end < start or end > max(len(lines), 1):
        return Problem(
            "invalid_range", f"{path} has {len(lines)} lines: lines {start}-{end} are not there"
        )
    return "\n".join(lines[start - 1 : end])


def edit_message(path: str, start: int, end: int, selected: str, instruction: str) -> str:
    """What the inline chat sends: which lines, those lines exactly, and what to do."""
    where = f"line {start}" if start == end else f"lines {start}-{end}"
    fence = "```"
    while fence in selected:
        fence += "`"
    return (
        f"Edit {where} of {path}: {instruction.strip()}\n\n"
        f"{fence}\n{selected}\n{fence}\n\n"
        "Change these lines; the rest of the file only where the change needs it."
    )
