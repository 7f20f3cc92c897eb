"""The SQLite database behind a project's (or the global) chats, and row-level access to it.

One database per project at `<root>/.bb7/bb7.db`, one for global chats at
`$XDG_DATA_HOME/bb7/global.db`. WAL mode, foreign keys on, a `schema_version` table and forward
migrations. File contents are content-addressed blobs (sha256) that are never rewritten, so every
version a message referred to stays restorable. Decisions (statuses, apply, merge) live in the
sibling modules; this one only reads and writes rows, and groups them into transactions.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from bb7.fileid import file_id
from bb7.state.problems import Abort as Abort  # re-exported for callers outside state/
from bb7.state.problems import StoreError as StoreError
from bb7.state.problems import empty_database, is_store_trouble, store_error
from bb7.state.records import (
    GLOBAL,
    PROJECT,
    Chat,
    ContextEntry,
    Event,
    EventPart,
    Intent,
    Lease,
    Message,
    OutputRef,
    Part,
    PendingOutput,
    Problem,
    SnapshotRef,
    TextPart,
    Usage,
)

STATE_DIR = ".bb7"
DB_NAME = "bb7.db"
GITIGNORE = "# bb7's chats and snapshots are local state, not project files.\n*\n"

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
        text = _searchable(msgspec.json.decode(parts, type=list[Part]))
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


# Each step is SQL or a function, tagged with the schema version it belongs to. Never edit a
# released step: add a new one.
MIGRATIONS: tuple[tuple[int, str | Callable[[sqlite3.Connection], None]], ...] = (
    (1, _V1),
    (2, _V2),
    (2, _index_v1_messages),
    (3, _V3),
    (4, _V4),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]


# Seconds to wait for another process's write lock before saying the database is locked.
LOCK_TIMEOUT_ENV = "BB7_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT = 30.0


def lock_timeout() -> float:
    try:
        return float(os.environ.get(LOCK_TIMEOUT_ENV, "") or DEFAULT_LOCK_TIMEOUT)
    except ValueError:
        return DEFAULT_LOCK_TIMEOUT


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def data_home() -> Path:
    env = os.environ.get("XDG_DATA_HOME")
    return Path(env) if env else Path.home() / ".local" / "share"


def global_db_path() -> Path:
    return data_home() / "bb7" / "global.db"


def project_db_path(root: Path) -> Path:
    return root / STATE_DIR / DB_NAME


def _is_empty(path: Path) -> bool:
    """A database file with no bytes (and no WAL to recover them from): its data is gone."""
    try:
        if path.stat().st_size:
            return False
    except FileNotFoundError:
        return False
    wal = path.with_name(path.name + "-wal")
    return not wal.exists() or wal.stat().st_size == 0


class Store:
    """An open bb7 database. `root` is the project root (None for the global store)."""

    def __init__(self, path: Path, *, scope: str, root: Path | None) -> None:
        self.path = path
        self.scope = scope
        self.root = root
        self.timeout = lock_timeout()
        self._lock = threading.RLock()
        self._depth = 0
        with self.translated():
            path.parent.mkdir(parents=True, exist_ok=True)
            if _is_empty(path):
                raise empty_database(path)
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, one transaction per action.
            self.conn = sqlite3.connect(
                path, isolation_level=None, timeout=self.timeout, check_same_thread=False
            )
            try:
                self._open()
            except BaseException:
                self.conn.close()
                raise

    def _open(self) -> None:
        # Setting WAL on a database already in WAL is a read: opening takes no write lock
        # unless the file is new or needs a migration.
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        # FULL: a committed action survives power loss, not only a crash of bb7.
        self.conn.execute("PRAGMA synchronous=FULL")
        if self.schema_version() != SCHEMA_VERSION:
            self._migrate()

    @contextlib.contextmanager
    def translated(self) -> Iterator[None]:
        """SQLite trouble from the file or the disk becomes a one-line `StoreError`."""
        try:
            yield
        except sqlite3.Error as exc:
            if not is_store_trouble(exc):
                raise
            raise store_error(exc, self.path, self.timeout) from exc

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions and schema ------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE); nested uses join the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            with self.translated():
                self.conn.execute("BEGIN IMMEDIATE")
                self._depth = 1
                try:
                    yield self.conn
                except BaseException:
                    self._depth = 0
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    raise
                self._depth = 0
                try:
                    self.conn.execute("COMMIT")
                except BaseException:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    raise

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        """A nested part of the current transaction that rolls back alone on an exception."""
        self.conn.execute("SAVEPOINT part")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK TO part")
            self.conn.execute("RELEASE part")
            raise
        self.conn.execute("RELEASE part")

    def schema_version(self) -> int:
        row = self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name='schema_version'"
        ).fetchone()
        if row is None:
            return 0
        got = self.conn.execute("SELECT version FROM schema_version").fetchone()
        return int(got[0]) if got else 0

    def _migrate(self) -> None:
        with self.transaction() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            current = self.schema_version()
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} was written by a newer bb7 (schema {current}, this bb7 knows "
                    f"{SCHEMA_VERSION}); upgrade bb7"
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

    def integrity_problems(self) -> list[str]:
        """Empty when `PRAGMA integrity_check` and `foreign_key_check` find nothing."""
        rows = [r[0] for r in self.conn.execute("PRAGMA integrity_check").fetchall()]
        problems = [r for r in rows if r != "ok"]
        problems += [repr(r) for r in self.conn.execute("PRAGMA foreign_key_check").fetchall()]
        return problems

    # -- blobs and settings -------------------------------------------------------------------

    def put_blob(self, text: str) -> str:
        sha = sha256(text)
        self.conn.execute("INSERT OR IGNORE INTO blobs (sha, content) VALUES (?, ?)", (sha, text))
        return sha

    def blob(self, sha: str) -> str:
        row = self.conn.execute("SELECT content FROM blobs WHERE sha = ?", (sha,)).fetchone()
        if row is None:
            raise StoreError(f"blob {sha} is missing from {self.path}")
        text: str = row[0]
        return text

    def setting(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str | None) -> None:
        if value is None:
            self.conn.execute("DELETE FROM settings WHERE key = ?", (key,))
        else:
            self.conn.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # -- chats ----------------------------------------------------------------------------------

    def insert_chat(self, chat: Chat) -> None:
        self.conn.execute(
            "INSERT INTO chats (id, name, created, updated, model, reasoning_effort, draft, "
            "pinned, retry_context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                chat.id,
                chat.name,
                chat.created,
                chat.updated,
                chat.model,
                chat.reasoning_effort,
                chat.draft,
                int(chat.pinned),
                chat.retry_context,
            ),
        )
        self._index(chat.id, 0, chat.name)

    def chat(self, chat_id: str) -> Chat | None:
        row = self.conn.execute(f"SELECT {_CHAT_COLUMNS} FROM chats WHERE id = ?", (chat_id,))
        found = row.fetchone()
        return None if found is None else self._chat(found)

    def chats(self) -> list[Chat]:
        rows = self.conn.execute(
            f"SELECT {_CHAT_COLUMNS} FROM chats ORDER BY pinned DESC, updated DESC, id"
        )
        return [self._chat(r) for r in rows.fetchall()]

    def update_chat(self, chat_id: str, **fields: Any) -> None:
        """Set columns of a chat (name, draft, pinned, model, …) and bump `updated`."""
        allowed = {"name", "draft", "pinned", "model", "reasoning_effort", "retry_context"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"unknown chat fields {sorted(unknown)}")
        fields = {k: int(v) if isinstance(v, bool) else v for k, v in fields.items()}
        assignments = ", ".join(f"{k} = ?" for k in fields)
        self.conn.execute(
            f"UPDATE chats SET {assignments}, updated = ? WHERE id = ?",
            (*fields.values(), time.time(), chat_id),
        )
        if "name" in fields:
            self.conn.execute("DELETE FROM search WHERE chat_id = ? AND message_id = 0", (chat_id,))
            self._index(chat_id, 0, str(fields["name"]))

    def touch_chat(self, chat_id: str) -> None:
        self.conn.execute("UPDATE chats SET updated = ? WHERE id = ?", (time.time(), chat_id))

    def delete_chat(self, chat_id: str) -> None:
        self.conn.execute("DELETE FROM search WHERE chat_id = ?", (chat_id,))
        self.conn.execute("DELETE FROM chats WHERE id = ?", (chat_id,))

    def _chat(self, row: tuple[Any, ...]) -> Chat:
        return Chat(
            id=row[0],
            name=row[1],
            created=row[2],
            updated=row[3],
            model=row[4],
            reasoning_effort=row[5],
            draft=row[6],
            pinned=bool(row[7]),
            retry_context=row[8],
            scope=self.scope,
        )

    # -- messages -------------------------------------------------------------------------------

    def append_message(self, chat_id: str, message: Message) -> Message:
        """Store `message` after the chat's last one; returns it with id, seq and created set."""
        row = self.conn.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM messages WHERE chat_id = ?", (chat_id,)
        ).fetchone()
        created = message.created or time.time()
        cursor = self.conn.execute(
            "INSERT INTO messages (chat_id, seq, role, parts, model, usage, created, "
            "context_snapshot, outputs_snapshot) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                chat_id,
                row[0] + 1,
                message.role,
                _json(message.parts),
                message.model,
                None if message.usage is None else _json(message.usage),
                created,
                _json(message.context_snapshot),
                _json(message.outputs_snapshot),
            ),
        )
        message_id = int(cursor.lastrowid or 0)
        self._index(chat_id, message_id, _searchable(message.parts))
        self.touch_chat(chat_id)
        return msgspec.structs.replace(message, id=message_id, seq=row[0] + 1, created=created)

    def messages(self, chat_id: str) -> list[Message]:
        rows = self.conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE chat_id = ? ORDER BY seq", (chat_id,)
        )
        return [_message(r) for r in rows.fetchall()]

    def message(self, chat_id: str, message_id: int) -> Message | None:
        row = self.conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE chat_id = ? AND id = ?",
            (chat_id, message_id),
        ).fetchone()
        return None if row is None else _message(row)

    def delete_messages_from(self, chat_id: str, seq: int) -> None:
        """Drop the message at `seq` and everything after it."""
        self.conn.execute(
            "DELETE FROM search WHERE chat_id = ? AND message_id IN "
            "(SELECT id FROM messages WHERE chat_id = ? AND seq >= ?)",
            (chat_id, chat_id, seq),
        )
        self.conn.execute("DELETE FROM messages WHERE chat_id = ? AND seq >= ?", (chat_id, seq))

    def search(self, query: str, limit: int = 50) -> list[tuple[str, int, str]]:
        """(chat_id, message_id, snippet) for an FTS5 query; message_id 0 means the name."""
        rows = self.conn.execute(
            "SELECT chat_id, message_id, snippet(search, 0, '', '', '…', 12) FROM search "
            "WHERE search MATCH ? ORDER BY rank LIMIT ?",
            (query, limit),
        )
        return [(str(r[0]), int(r[1]), str(r[2])) for r in rows.fetchall()]

    def _index(self, chat_id: str, message_id: int, text: str) -> None:
        if text:
            self.conn.execute(
                "INSERT INTO search (text, chat_id, message_id) VALUES (?, ?, ?)",
                (text, chat_id, message_id),
            )

    # -- context entries ------------------------------------------------------------------------

    def entries(self, chat_id: str) -> list[ContextEntry]:
        rows = self.conn.execute(
            "SELECT path, kind, blob, file_id, start_line, end_line, added FROM context "
            "WHERE chat_id = ? ORDER BY position",
            (chat_id,),
        )
        return [_entry(r) for r in rows.fetchall()]

    def entries_with_text(self, chat_id: str) -> list[tuple[ContextEntry, str]]:
        """Entries with their snapshot text, in one query (statuses run this often)."""
        rows = self.conn.execute(
            "SELECT c.path, c.kind, c.blob, c.file_id, c.start_line, c.end_line, c.added, "
            "b.content FROM context c JOIN blobs b ON b.sha = c.blob "
            "WHERE c.chat_id = ? ORDER BY c.position",
            (chat_id,),
        )
        return [(_entry(r), str(r[7])) for r in rows.fetchall()]

    def entry(self, chat_id: str, path: str, start: int = 0, end: int = 0) -> ContextEntry | None:
        row = self.conn.execute(
            "SELECT path, kind, blob, file_id, start_line, end_line, added FROM context "
            "WHERE chat_id = ? AND path = ? AND start_line = ? AND end_line = ?",
            (chat_id, path, start, end),
        ).fetchone()
        return None if row is None else _entry(row)

    def put_entry(self, chat_id: str, entry: ContextEntry) -> None:
        """Insert or replace an entry; a replaced entry keeps its place in the list."""
        self.conn.execute(
            "INSERT INTO context (chat_id, path, start_line, end_line, kind, blob, file_id, "
            "added, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
            "(SELECT COALESCE(MAX(position), 0) + 1 FROM context WHERE chat_id = ?)) "
            "ON CONFLICT (chat_id, path, start_line, end_line) DO UPDATE SET "
            "kind = excluded.kind, blob = excluded.blob, file_id = excluded.file_id, "
            "added = excluded.added",
            (
                chat_id,
                entry.path,
                entry.start_line,
                entry.end_line,
                entry.kind,
                entry.blob,
                entry.file_id,
                int(entry.added),
                chat_id,
            ),
        )

    def delete_entry(self, chat_id: str, path: str, start: int = 0, end: int = 0) -> None:
        self.conn.execute(
            "DELETE FROM context WHERE chat_id = ? AND path = ? AND start_line = ? "
            "AND end_line = ?",
            (chat_id, path, start, end),
        )

    def clear_entries(self, chat_id: str) -> None:
        self.conn.execute("DELETE FROM context WHERE chat_id = ?", (chat_id,))

    # -- pending outputs ------------------------------------------------------------------------

    def outputs(self, chat_id: str) -> list[PendingOutput]:
        rows = self.conn.execute(_SELECT_OUTPUTS + " ORDER BY path", (chat_id,))
        return [_output(r) for r in rows.fetchall()]

    def output(self, chat_id: str, path: str) -> PendingOutput | None:
        row = self.conn.execute(_SELECT_OUTPUTS + " AND path = ?", (chat_id, path)).fetchone()
        return None if row is None else _output(row)

    def put_output(self, chat_id: str, output: PendingOutput) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO outputs (chat_id, path, blob, file_id, base_file_id, added, "
            "created) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                chat_id,
                output.path,
                output.blob,
                output.file_id,
                output.base_file_id,
                int(output.added),
                output.created or time.time(),
            ),
        )

    def append_event(self, chat_id: str, event: Event) -> Message:
        """Record a user's file action as its own message (role `event`)."""
        return self.append_message(chat_id, Message(role="event", parts=[EventPart(event)]))

    def delete_output(self, chat_id: str, path: str) -> None:
        self.conn.execute("DELETE FROM outputs WHERE chat_id = ? AND path = ?", (chat_id, path))

    def clear_outputs(self, chat_id: str) -> None:
        self.conn.execute("DELETE FROM outputs WHERE chat_id = ?", (chat_id,))

    # -- retry state -----------------------------------------------------------------------------

    def retry_outputs(self, chat_id: str) -> list[OutputRef]:
        rows = self.conn.execute(
            "SELECT path, blob, file_id, base_file_id, added FROM retry_outputs "
            "WHERE chat_id = ? ORDER BY path",
            (chat_id,),
        )
        return [
            OutputRef(path=r[0], blob=r[1], file_id=r[2], base_file_id=r[3], added=bool(r[4]))
            for r in rows.fetchall()
        ]

    def set_retry(self, chat_id: str, text: str, outputs: list[OutputRef]) -> None:
        """Replace the chat's retry context and partial versions ('' and [] clear them)."""
        self.update_chat(chat_id, retry_context=text)
        self.conn.execute("DELETE FROM retry_outputs WHERE chat_id = ?", (chat_id,))
        self.conn.executemany(
            "INSERT INTO retry_outputs (chat_id, path, blob, file_id, base_file_id, added) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(chat_id, o.path, o.blob, o.file_id, o.base_file_id, int(o.added)) for o in outputs],
        )

    # -- undo records ---------------------------------------------------------------------------

    def push_undo(
        self,
        chat_id: str,
        path: str,
        *,
        prev_local: str | None,
        written: str,
        prev_entry: ContextEntry | None,
        prev_output: PendingOutput,
    ) -> None:
        self.conn.execute(
            "INSERT INTO undo (chat_id, path, prev_local, written, prev_entry, prev_output, "
            "created) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                chat_id,
                path,
                prev_local,
                written,
                None if prev_entry is None else _json(prev_entry),
                _json(prev_output),
                time.time(),
            ),
        )

    def last_undo(self, chat_id: str, path: str) -> UndoRecord | None:
        row = self.conn.execute(
            "SELECT id, prev_local, written, prev_entry, prev_output FROM undo "
            "WHERE chat_id = ? AND path = ? ORDER BY id DESC LIMIT 1",
            (chat_id, path),
        ).fetchone()
        if row is None:
            return None
        return UndoRecord(
            id=row[0],
            path=path,
            prev_local=row[1],
            written=row[2],
            prev_entry=None if row[3] is None else msgspec.json.decode(row[3], type=ContextEntry),
            prev_output=msgspec.json.decode(row[4], type=PendingOutput),
        )

    def delete_undo(self, undo_id: int) -> None:
        self.conn.execute("DELETE FROM undo WHERE id = ?", (undo_id,))

    # -- apply intents ----------------------------------------------------------------------------

    def put_intent(self, intent: Intent) -> Intent:
        cursor = self.conn.execute(
            "INSERT INTO intents (chat_id, path, prev_local, written, prev_entry, prev_output, "
            "pid, host, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                intent.chat_id,
                intent.path,
                intent.prev_local,
                intent.written,
                None if intent.prev_entry is None else _json(intent.prev_entry),
                _json(intent.prev_output),
                intent.pid,
                intent.host,
                time.time(),
            ),
        )
        return msgspec.structs.replace(intent, id=int(cursor.lastrowid or 0))

    def has_intents(self) -> bool:
        return self.conn.execute("SELECT 1 FROM intents LIMIT 1").fetchone() is not None

    def intents(self) -> list[Intent]:
        rows = self.conn.execute(
            "SELECT id, chat_id, path, prev_local, written, prev_entry, prev_output, pid, host "
            "FROM intents ORDER BY id"
        )
        return [
            Intent(
                id=r[0],
                chat_id=r[1],
                path=r[2],
                prev_local=r[3],
                written=r[4],
                prev_entry=None if r[5] is None else msgspec.json.decode(r[5], type=ContextEntry),
                prev_output=msgspec.json.decode(r[6], type=PendingOutput),
                pid=r[7],
                host=r[8],
            )
            for r in rows.fetchall()
        ]

    def delete_intent(self, intent_id: int) -> bool:
        """Drop an intent; False when it was gone already (finished by another process)."""
        cursor = self.conn.execute("DELETE FROM intents WHERE id = ?", (intent_id,))
        return cursor.rowcount > 0

    # -- leases ---------------------------------------------------------------------------------

    def lease(self, chat_id: str) -> Lease | None:
        row = self.conn.execute(
            "SELECT chat_id, pid, host, heartbeat, token FROM leases WHERE chat_id = ?",
            (chat_id,),
        ).fetchone()
        if row is None:
            return None
        return Lease(chat_id=row[0], pid=row[1], host=row[2], heartbeat=row[3], token=row[4])

    def put_lease(self, lease: Lease) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO leases (chat_id, pid, host, heartbeat, token) "
            "VALUES (?, ?, ?, ?, ?)",
            (lease.chat_id, lease.pid, lease.host, lease.heartbeat, lease.token),
        )

    def delete_lease(self, chat_id: str, token: str | None = None) -> None:
        if token is None:
            self.conn.execute("DELETE FROM leases WHERE chat_id = ?", (chat_id,))
        else:
            self.conn.execute(
                "DELETE FROM leases WHERE chat_id = ? AND token = ?", (chat_id, token)
            )


class UndoRecord(msgspec.Struct, kw_only=True):
    """What one apply replaced: the local file before it and the chat state before it."""

    id: int
    path: str
    prev_local: str | None  # blob of the file before the apply; None if it did not exist
    written: str  # blob the apply wrote
    prev_entry: ContextEntry | None
    prev_output: PendingOutput


_CHAT_COLUMNS = "id, name, created, updated, model, reasoning_effort, draft, pinned, retry_context"
_MESSAGE_COLUMNS = "id, seq, role, parts, model, usage, created, context_snapshot, outputs_snapshot"


def _json(value: Any) -> str:
    return msgspec.json.encode(value).decode("utf-8")


def _message(row: tuple[Any, ...]) -> Message:
    return Message(
        id=row[0],
        seq=row[1],
        role=row[2],
        parts=msgspec.json.decode(row[3], type=list[Part]),
        model=row[4],
        usage=None if row[5] is None else msgspec.json.decode(row[5], type=Usage),
        created=row[6],
        context_snapshot=msgspec.json.decode(row[7], type=list[SnapshotRef]),
        outputs_snapshot=msgspec.json.decode(row[8], type=list[OutputRef]),
    )


def _entry(row: tuple[Any, ...]) -> ContextEntry:
    return ContextEntry(
        path=row[0],
        kind=row[1],
        blob=row[2],
        file_id=row[3],
        start_line=row[4],
        end_line=row[5],
        added=bool(row[6]),
    )


# Columns in the order `_output` reads them.
_SELECT_OUTPUTS = (
    "SELECT path, blob, file_id, base_file_id, added, created FROM outputs WHERE chat_id = ?"
)


def _output(row: tuple[Any, ...]) -> PendingOutput:
    return PendingOutput(
        path=row[0],
        blob=row[1],
        file_id=row[2],
        base_file_id=row[3],
        added=bool(row[4]),
        created=row[5],
    )


def _searchable(parts: list[Part]) -> str:
    return "\n".join(p.text for p in parts if isinstance(p, TextPart))


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def entry_file_id(path: str, content: str, start: int = 0, end: int = 0) -> str:
    """The file id of a context entry: sections hash under `path:start-end`, so a section and
    the whole file never share an id (the original BB-7 hashed them inconsistently)."""
    return file_id(f"{path}:{start}-{end}" if start else path, content)


# -- opening ---------------------------------------------------------------------------------


def init_project(root: Path) -> Store:
    """Create (or open) `<root>/.bb7/bb7.db` with its `.gitignore`."""
    state = root / STATE_DIR
    state.mkdir(parents=True, exist_ok=True)
    ignore = state / ".gitignore"
    if not ignore.exists():
        ignore.write_text(GITIGNORE, encoding="utf-8")
    return Store(project_db_path(root), scope=PROJECT, root=root)


def open_project(root: Path) -> Store | Problem:
    if not project_db_path(root).exists():
        return Problem("not_initialized", f"{root} has no bb7 state; run `bb7 init` there first")
    return Store(project_db_path(root), scope=PROJECT, root=root)


def open_global() -> Store:
    return Store(global_db_path(), scope=GLOBAL, root=None)
