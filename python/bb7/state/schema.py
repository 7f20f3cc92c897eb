"""The database schema: the tables, as forward migrations from version 1 to `SCHEMA_VERSION`.

One `schema_version` table holds the version. Each step is SQL or a function, tagged with the
version it belongs to; a released step is never edited, a change is a new step.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import msgspec

from bb7.state.problems import StoreError
from bb7.state.records import Part
from bb7.state.rows import searchable

# Version 1: chats, messages, context, outputs, blobs, undo, leases.
_V1 = """
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE blobs (sha TEXT PRIMARY KEY, content TEXT NOT NULL);
CREATE TABLE chats (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    reasoning_effort TEXT NOT NULL DEFAULT '',
    draft TEXT NOT NULL DEFAULT '',
    pinned INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    usage TEXT,
    created REAL NOT NULL,
    context_snapshot TEXT NOT NULL DEFAULT '[]',
    outputs_snapshot TEXT NOT NULL DEFAULT '[]',
    UNIQUE (chat_id, seq)
);
CREATE TABLE context (
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    start_line INTEGER NOT NULL DEFAULT 0,
    end_line INTEGER NOT NULL DEFAULT 0,
    kind TEXT NOT NULL CHECK (kind IN ('writable', 'readonly', 'section', 'external')),
    blob TEXT NOT NULL REFERENCES blobs(sha),
    file_id TEXT NOT NULL,
    added INTEGER NOT NULL DEFAULT 0,
    position INTEGER NOT NULL,
    PRIMARY KEY (chat_id, path, start_line, end_line)
);
CREATE TABLE outputs (
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    blob TEXT NOT NULL REFERENCES blobs(sha),
    file_id TEXT NOT NULL,
    base_file_id TEXT NOT NULL,
    added INTEGER NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (chat_id, path)
);
CREATE TABLE undo (
    id INTEGER PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    prev_local TEXT REFERENCES blobs(sha),
    written TEXT NOT NULL REFERENCES blobs(sha),
    prev_entry TEXT,
    prev_output TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE leases (
    chat_id TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    heartbeat REAL NOT NULL,
    token TEXT NOT NULL
);
"""

# Version 2: full-text search over chat names and messages (existing chats are indexed), and
# the retry context a failed edit leaves for the next request.
_V2 = """
CREATE VIRTUAL TABLE search USING fts5(text, chat_id UNINDEXED, message_id UNINDEXED);
INSERT INTO search (text, chat_id, message_id) SELECT name, id, 0 FROM chats;
ALTER TABLE chats ADD COLUMN retry_context TEXT NOT NULL DEFAULT '';
"""


def _index_v1_messages(conn: sqlite3.Connection) -> None:
    """Part of the v2 migration: index the text of messages written before search existed."""
    rows = conn.execute("SELECT id, chat_id, parts FROM messages").fetchall()
    for message_id, chat_id, parts in rows:
        text = searchable(msgspec.json.decode(parts, type=list[Part]))
        if text:
            conn.execute(
                "INSERT INTO search (text, chat_id, message_id) VALUES (?, ?, ?)",
                (text, chat_id, message_id),
            )


# Version 3: the partial versions of a failed response (what its successful edits produced),
# which the next request offers as the writable versions next to the retry context.
_V3 = """
CREATE TABLE retry_outputs (
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    blob TEXT NOT NULL REFERENCES blobs(sha),
    file_id TEXT NOT NULL,
    base_file_id TEXT NOT NULL,
    added INTEGER NOT NULL,
    PRIMARY KEY (chat_id, path)
);
"""


# Version 4: the intent of an apply in progress, committed before the file is touched, so an
# apply killed half-way is finished or rolled back at the next open (`bb7.state.recovery`).
_V4 = """
CREATE TABLE intents (
    id INTEGER PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    prev_local TEXT REFERENCES blobs(sha),
    written TEXT NOT NULL REFERENCES blobs(sha),
    prev_entry TEXT,
    prev_output TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    created REAL NOT NULL
);
"""


# Version 5: an undo in progress is an intent too (`undo` names the undo record it reverts), and
# an undo of a created file deletes it, so `written` may be NULL. SQLite cannot drop NOT NULL in
# place: the table is rebuilt, keeping any intent a killed bb7 left.
_V5 = """
ALTER TABLE intents RENAME TO intents_v4;
CREATE TABLE intents (
    id INTEGER PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    prev_local TEXT REFERENCES blobs(sha),
    written TEXT REFERENCES blobs(sha),
    prev_entry TEXT,
    prev_output TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    created REAL NOT NULL,
    undo INTEGER
);
INSERT INTO intents (id, chat_id, path, prev_local, written, prev_entry, prev_output, pid, host,
    created) SELECT id, chat_id, path, prev_local, written, prev_entry, prev_output, pid, host,
    created FROM intents_v4;
DROP TABLE intents_v4;
"""


# Version 6: the writer of an intent and the holder of a lease are named by more than a pid
# (`bb7.process.identity`: boot id and start time), since a pid is reused after a reboot.
_V6 = """
ALTER TABLE intents ADD COLUMN started TEXT NOT NULL DEFAULT '';
ALTER TABLE leases ADD COLUMN started TEXT NOT NULL DEFAULT '';
"""


# Version 7: a message the user left out of future requests (it stays in the chat).
_V7 = """
ALTER TABLE messages ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0;
"""


# Version 8: a chat with an agent (`:BB7Agent`: the agent's name), and the applies an agent made
# itself on disk, which undo merges back (`bb7.state.agent_writes`).
_V8 = """
ALTER TABLE chats ADD COLUMN agent TEXT NOT NULL DEFAULT '';
ALTER TABLE undo ADD COLUMN by_agent INTEGER NOT NULL DEFAULT 0;
"""


# Version 9: the context table takes any entry kind: which kinds exist is `ENTRY_KINDS`'s to say
# (a row is read back through `ContextEntry`, which refuses a kind it does not know), so a new kind
# needs no migration. SQLite cannot drop a CHECK in place: the table is rebuilt, rows kept.
_V9 = """
ALTER TABLE context RENAME TO context_v8;
CREATE TABLE context (
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    start_line INTEGER NOT NULL DEFAULT 0,
    end_line INTEGER NOT NULL DEFAULT 0,
    kind TEXT NOT NULL,
    blob TEXT NOT NULL REFERENCES blobs(sha),
    file_id TEXT NOT NULL,
    added INTEGER NOT NULL DEFAULT 0,
    position INTEGER NOT NULL,
    PRIMARY KEY (chat_id, path, start_line, end_line)
);
INSERT INTO context SELECT chat_id, path, start_line, end_line, kind, blob, file_id, added,
    position FROM context_v8;
DROP TABLE context_v8;
"""


# Version 10: the edits of an answer that wait for the user's choice of place (an old text
# matching several places), one row each, beside their file's pending output.
_V10 = """
CREATE TABLE choices (
    id INTEGER PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX choices_by_path ON choices (chat_id, path);
"""


# Version 11: messages of role `check` (the project's checks on a pending change, a part an
# older bb7 cannot read), found by role.
_V11 = """
CREATE INDEX messages_role ON messages (chat_id, role, seq);
"""


# Each step is SQL or a function, tagged with the schema version it belongs to. Never edit a
# released step: add a new one.
MIGRATIONS: tuple[tuple[int, str | Callable[[sqlite3.Connection], None]], ...] = (
    (1, _V1),
    (2, _V2),
    (2, _index_v1_messages),
    (3, _V3),
    (4, _V4),
    (5, _V5),
    (6, _V6),
    (7, _V7),
    (8, _V8),
    (9, _V9),
    (10, _V10),
    (11, _V11),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]
# The tables `SCHEMA_VERSION` has: one missing is a damaged database, said at open.
TABLES = frozenset(
    {"settings", "blobs", "chats", "messages", "context", "outputs", "undo", "leases", "search",
     "retry_outputs", "intents", "choices", "schema_version"}
)  # fmt: skip


def missing_tables(conn: sqlite3.Connection) -> list[str]:
    found = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return sorted(TABLES - found)


def schema_version(conn: sqlite3.Connection) -> int:
    row = conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name='schema_version'"
    ).fetchone()
    if row is None:
        return 0
    got = conn.execute("SELECT version FROM schema_version").fetchone()
    return int(got[0]) if got else 0


def migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the database to `SCHEMA_VERSION`, inside the caller's write transaction."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    current = schema_version(conn)
    if current > SCHEMA_VERSION:
        raise StoreError(
            f"{path} was written by a newer bb7 (schema {current}, this bb7 knows "
            f"{SCHEMA_VERSION}); upgrade bb7",
            "newer",
        )
    for version, step in MIGRATIONS:
        if version <= current:
            continue
        if isinstance(step, str):
            for statement in _statements(step):
                conn.execute(statement)
        else:
            step(conn)
    if current < SCHEMA_VERSION:
        conn.execute("DELETE FROM schema_version")
        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
