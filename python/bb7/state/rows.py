"""Rows ↔ records: which columns a record is stored in, by name, and how a row becomes one.

Each record names its columns once (`CHAT`, `MESSAGE`, …); the SELECT lists are built from the
same names and a row is read back by name, so adding or reordering a column cannot shift
values into the wrong field. JSON columns hold nested records (message parts, snapshots).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import msgspec

from bb7.state.records import (
    Chat,
    ContextEntry,
    Intent,
    Message,
    OutputRef,
    Part,
    PendingOutput,
    TextPart,
    UndoRecord,
)

T = TypeVar("T")

CHAT = ("id", "name", "created", "updated", "model", "reasoning_effort", "draft", "pinned",
        "retry_context", "agent")  # fmt: skip
MESSAGE = ("id", "seq", "role", "parts", "model", "usage", "created", "context_snapshot",
           "outputs_snapshot", "excluded")  # fmt: skip
ENTRY = ("path", "kind", "blob", "file_id", "start_line", "end_line", "added")
OUTPUT = ("path", "blob", "file_id", "base_file_id", "added", "created")
OUTPUT_REF = ("path", "blob", "file_id", "base_file_id", "added")
UNDO = ("id", "path", "prev_local", "written", "prev_entry", "prev_output", "by_agent")
INTENT = ("id", "chat_id", "path", "prev_local", "written", "prev_entry", "prev_output", "pid",
          "host", "undo", "started")  # fmt: skip

# Columns holding a record (or a list of them) as JSON.
_JSON = frozenset(
    {"parts", "usage", "context_snapshot", "outputs_snapshot", "prev_entry", "prev_output"}
)


def columns(names: Sequence[str], table: str = "") -> str:
    """`a, b, c` (or `t.a, t.b, t.c`) for a SELECT."""
    return ", ".join(f"{table}.{n}" if table else n for n in names)


def to_json(value: Any) -> str:
    return msgspec.json.encode(value).decode("utf-8")


def read(cls: type[T], names: Sequence[str], row: Sequence[Any], **extra: Any) -> T:
    """The record `cls` from a row selected with `columns(names)` (extra columns after them
    are ignored); `extra` sets fields that are not stored (a chat's scope)."""
    values = dict(zip(names, row, strict=False))
    for name in _JSON.intersection(values):
        if values[name] is not None:
            values[name] = msgspec.json.decode(values[name])
    values.update(extra)
    # strict=False: SQLite stores booleans as 0/1.
    return msgspec.convert(values, cls, strict=False)


def chat(row: Sequence[Any], scope: str) -> Chat:
    return read(Chat, CHAT, row, scope=scope)


def message(row: Sequence[Any]) -> Message:
    return read(Message, MESSAGE, row)


def entry(row: Sequence[Any]) -> ContextEntry:
    return read(ContextEntry, ENTRY, row)


def output(row: Sequence[Any]) -> PendingOutput:
    return read(PendingOutput, OUTPUT, row)


def output_ref(row: Sequence[Any]) -> OutputRef:
    return read(OutputRef, OUTPUT_REF, row)


def undo(row: Sequence[Any]) -> UndoRecord:
    return read(UndoRecord, UNDO, row)


def intent(row: Sequence[Any]) -> Intent:
    return read(Intent, INTENT, row)


def searchable(parts: list[Part]) -> str:
    """The text of a message the search index holds."""
    return "\n".join(p.text for p in parts if isinstance(p, TextPart))
