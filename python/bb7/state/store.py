"""The SQLite database behind a project's (or the global) chats: where it lives, opening it,
transactions, and reading and writing records (the tables are `bb7.state.schema`'s, the row
mapping `bb7.state.rows`').

One database per project at `<root>/.bb7/bb7.db`, one for global chats at
`$XDG_DATA_HOME/bb7/global.db`. WAL mode, foreign keys on. File contents are content-addressed
blobs (sha256) that are never rewritten, so every version a message referred to stays
restorable. Decisions (statuses, apply, merge) live in the
sibling modules; this one only reads and writes rows, and groups them into transactions.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from bb7.files.fileid import sha256_hex
from bb7.refusal import Problem
from bb7.state import rows
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
    PendingChoice,
    PendingOutput,
    Scope,
    UndoRecord,
)
from bb7.state.rows import columns, to_json
from bb7.state.schema import SCHEMA_VERSION, migrate, missing_tables, schema_version

STATE_DIR = ".bb7"
DB_NAME = "bb7.db"
GITIGNORE = "# bb7's chats and snapshots are local state, not project files.\n*\n"

# Seconds to wait for another process's write lock before saying the database is locked.
LOCK_TIMEOUT_ENV = "BB7_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT = 30.0


def lock_timeout() -> float:
    try:
        return float(os.environ.get(LOCK_TIMEOUT_ENV, "") or DEFAULT_LOCK_TIMEOUT)
    except ValueError:
        return DEFAULT_LOCK_TIMEOUT


sha256 = sha256_hex


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


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


_SELECT_OUTPUTS = f"SELECT {columns(rows.OUTPUT)} FROM outputs WHERE chat_id = ?"
_decode_choice = msgspec.json.Decoder(PendingChoice).decode


class Store:
    """An open bb7 database. `root` is the project root (None for the global store)."""

    def __init__(self, path: Path, *, scope: Scope, root: Path | None) -> None:
        self.path = path
        self.scope = scope
        self.root = root
        self.timeout = lock_timeout()
        self._lock = threading.RLock()
        self._depth = 0
        self._wal: tuple[int, int] | None = None  # the write-ahead log this connection has open
        # Chat id -> token of the leases this process holds here (`bb7.state.lock`): a write
        # while another process holds one of them is refused (`StoreError`, kind "lost").
        self.held: dict[str, str] = {}
        # Chats this process writes without a lease, each action one transaction (`bb7 add`):
        # a write is refused while another live process holds one of them (kind "locked").
        # Such commands never refuse each other: their transactions simply take turns.
        self.unleased: set[str] = set()
        with self.translated():
            path.parent.mkdir(parents=True, exist_ok=True)
            if _is_empty(path):
                raise empty_database(path)
            self.conn = self._connect()
            try:
                self._open()
            except BaseException:
                self.conn.close()
                raise
            self._wal = _identity(self._wal_path())

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, one transaction per action.
        return sqlite3.connect(
            self.path, isolation_level=None, timeout=self.timeout, check_same_thread=False
        )

    def _wal_path(self) -> Path:
        return self.path.with_name(self.path.name + "-wal")

    def _follow_wal(self) -> None:
        """Another program deleted (or replaced) the write-ahead log this connection has open.

        While nobody else has written a new log, the commits not yet in the database file
        live only in the deleted one, which this process still has open: a checkpoint through
        the old connection copies them into the database (other processes get an I/O error
        and change nothing until then). Once another process has written a new log, what it
        committed lives there: the old log is stale and must not be copied. Either way a new
        connection then takes over, and the old one closes while the new one is open (not the
        last, it checkpoints and deletes nothing; a last close would delete the new log, and
        with it what others committed)."""
        if self._wal is None or _identity(self._wal_path()) == self._wal:
            return
        import logging  # rare: a start that opens the state must not pay for logging

        logging.getLogger(__name__).warning(
            "%s: its write-ahead log was deleted or replaced; reconnecting", self.path
        )
        stale, self.conn = self.conn, self._connect()
        # The write lock, taken through the new connection, keeps every other process from
        # committing while the old log is copied: a commit into the new log in between would
        # be indexed over frames the copy then marks as done, and lost.
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except BaseException:  # locked past the timeout: follow again at the next action
            self.conn.close()
            self.conn = stale
            raise
        try:
            if _size(self._wal_path()) == 0:
                # PASSIVE: TRUNCATE would wait for the writer, which is this process now.
                with contextlib.suppress(sqlite3.Error):
                    stale.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            self.conn.execute("ROLLBACK")
        self._open()
        self._wal = _identity(self._wal_path())
        with contextlib.suppress(sqlite3.Error):
            stale.close()

    def settle(self) -> None:
        """Copy the log's commits into the database file (a passive checkpoint, which waits
        for nobody): what an action that must be durable for every process (`bb7 add`) does
        before it says it is done. A log that cannot be read back (deleted under another
        process) is a `StoreError` here, not a loss found later."""
        with self._lock, self.translated():
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def _open(self) -> None:
        # Setting WAL on a database already in WAL is a read: opening takes no write lock
        # unless the file is new or needs a migration.
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        # FULL: a committed action survives power loss, not only a crash of bb7.
        self.conn.execute("PRAGMA synchronous=FULL")
        if self.schema_version() != SCHEMA_VERSION:
            self._migrate()
        missing = missing_tables(self.conn)
        if missing:
            raise StoreError(
                f"{self.path} is damaged: its {', '.join(missing)} "
                f"table{'s are' if len(missing) > 1 else ' is'} missing; move {self.path} away "
                "and run `bb7 init` to start afresh",
                "damaged",
            )

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
        with self._lock, contextlib.suppress(StoreError):
            self._follow_wal()
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions and schema ------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self, *, guarded: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE); nested uses join the outer one.
        `guarded`: refused when this process lost a chat it held (see `held`); the lease's
        own bookkeeping is not."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            with self.translated():
                self._follow_wal()
                self.conn.execute("BEGIN IMMEDIATE")
                self._depth = 1
                try:
                    if guarded:
                        self._check_held()
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

    def _check_held(self) -> None:
        """Inside a write transaction: refuse it when another process took a held chat over
        (its lease went stale while this one was stopped or hung), so that nothing is stored
        under a lease this process no longer holds."""
        for chat_id, token in self.held.items():
            row = self.conn.execute(
                "SELECT token, pid, host FROM leases WHERE chat_id = ?", (chat_id,)
            ).fetchone()
            if row is not None and row[0] == token:
                continue
            if row is None and self.chat(chat_id) is None:
                continue  # the chat is gone (deleted with its lease): nothing to store in it
            by = "" if row is None else f" (pid {row[1]} on {row[2]})"
            raise StoreError(
                f"this process no longer holds chat {chat_id}: another bb7 process{by} took "
                "it over (or it was unlocked) while this one was stopped or busy; nothing more "
                "was stored in it",
                "lost",
            )
        if self.unleased:
            from bb7.state import lock  # it imports this module

            for chat_id in self.unleased:
                holder = self.lease(chat_id)
                if holder is None or lock.is_ours(holder):
                    continue
                if lock.is_stale(holder):
                    # Taken over, as a lease would be: the stopped holder stores nothing more.
                    self.delete_lease(chat_id, holder.token)
                    continue
                raise StoreError(
                    f"chat {chat_id} is open in another bb7 process ({lock.describe(holder)})"
                    f"; close it there, or force-unlock with `bb7 chats unlock {chat_id}`",
                    "locked",
                )

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
        return schema_version(self.conn)

    def _migrate(self) -> None:
        with self.transaction() as conn:
            migrate(conn, self.path)

    def check_pages(self) -> None:
        """Read every page (`PRAGMA quick_check`): a damaged one is a `StoreError`, now."""
        with self.translated():
            rows = self.conn.execute("PRAGMA quick_check").fetchall()
            if [r[0] for r in rows] != ["ok"]:
                raise sqlite3.DatabaseError(f"database disk image is malformed ({rows[0][0]})")

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
            "pinned, retry_context, agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                chat.agent,
            ),
        )
        self._index(chat.id, 0, chat.name)

    def chat(self, chat_id: str) -> Chat | None:
        row = self.conn.execute(f"SELECT {columns(rows.CHAT)} FROM chats WHERE id = ?", (chat_id,))
        one = row.fetchone()
        return None if one is None else rows.chat(one, self.scope)

    def chats(self) -> list[Chat]:
        found = self.conn.execute(
            f"SELECT {columns(rows.CHAT)} FROM chats ORDER BY pinned DESC, updated DESC, id"
        )
        return [rows.chat(r, self.scope) for r in found.fetchall()]

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

    # -- messages -------------------------------------------------------------------------------

    def append_message(self, chat_id: str, message: Message) -> Message:
        """Store `message` after the chat's last one; returns it with id, seq and created set."""
        row = self.conn.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM messages WHERE chat_id = ?", (chat_id,)
        ).fetchone()
        created = message.created or time.time()
        cursor = self.conn.execute(
            "INSERT INTO messages (chat_id, seq, role, parts, model, usage, created, "
            "context_snapshot, outputs_snapshot, excluded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                chat_id,
                row[0] + 1,
                message.role,
                to_json(message.parts),
                message.model,
                None if message.usage is None else to_json(message.usage),
                created,
                to_json(message.context_snapshot),
                to_json(message.outputs_snapshot),
                message.excluded,
            ),
        )
        message_id = int(cursor.lastrowid or 0)
        self._index(chat_id, message_id, rows.searchable(message.parts))
        self.touch_chat(chat_id)
        return msgspec.structs.replace(message, id=message_id, seq=row[0] + 1, created=created)

    def messages(self, chat_id: str) -> list[Message]:
        found = self.conn.execute(
            f"SELECT {columns(rows.MESSAGE)} FROM messages WHERE chat_id = ? ORDER BY seq",
            (chat_id,),
        )
        return [rows.message(r) for r in found.fetchall()]

    def last_message(self, chat_id: str, role: str | None = None) -> Message | None:
        """The chat's last message (of `role`, when given)."""
        found = self.last_messages(chat_id, role, 1)
        return found[0] if found else None

    def last_messages(self, chat_id: str, role: str | None = None, limit: int = 1) -> list[Message]:
        """The chat's last `limit` messages (of `role`, when given), the newest first."""
        where, args = ("", (chat_id,)) if role is None else (" AND role = ?", (chat_id, role))
        found = self.conn.execute(
            f"SELECT {columns(rows.MESSAGE)} FROM messages WHERE chat_id = ?{where} "
            "ORDER BY seq DESC LIMIT ?",
            (*args, limit),
        )
        return [rows.message(r) for r in found.fetchall()]

    def message(self, chat_id: str, message_id: int) -> Message | None:
        row = self.conn.execute(
            f"SELECT {columns(rows.MESSAGE)} FROM messages WHERE chat_id = ? AND id = ?",
            (chat_id, message_id),
        ).fetchone()
        return None if row is None else rows.message(row)

    def set_excluded(self, chat_id: str, message_ids: list[int], excluded: bool) -> None:
        """Leave the messages out of future requests (`excluded`), or send them again."""
        self.conn.executemany(
            "UPDATE messages SET excluded = ? WHERE chat_id = ? AND id = ?",
            [(excluded, chat_id, message_id) for message_id in message_ids],
        )

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
        found = self.conn.execute(
            "SELECT chat_id, message_id, snippet(search, 0, '', '', '…', 12) FROM search "
            "WHERE search MATCH ? ORDER BY rank LIMIT ?",
            (query, limit),
        )
        return [(str(r[0]), int(r[1]), str(r[2])) for r in found.fetchall()]

    def _index(self, chat_id: str, message_id: int, text: str) -> None:
        if text:
            self.conn.execute(
                "INSERT INTO search (text, chat_id, message_id) VALUES (?, ?, ?)",
                (text, chat_id, message_id),
            )

    # -- context entries ------------------------------------------------------------------------

    def entries(self, chat_id: str) -> list[ContextEntry]:
        found = self.conn.execute(
            f"SELECT {columns(rows.ENTRY)} FROM context WHERE chat_id = ? ORDER BY position",
            (chat_id,),
        )
        return [rows.entry(r) for r in found.fetchall()]

    def entries_with_text(self, chat_id: str) -> list[tuple[ContextEntry, str]]:
        """Entries with their snapshot text, in one query (statuses run this often)."""
        found = self.conn.execute(
            f"SELECT {columns(rows.ENTRY, 'c')}, b.content FROM context c "
            "JOIN blobs b ON b.sha = c.blob "
            "WHERE c.chat_id = ? ORDER BY c.position",
            (chat_id,),
        )
        return [(rows.entry(r), str(r[-1])) for r in found.fetchall()]

    def entry(self, chat_id: str, path: str, start: int = 0, end: int = 0) -> ContextEntry | None:
        row = self.conn.execute(
            f"SELECT {columns(rows.ENTRY)} FROM context "
            "WHERE chat_id = ? AND path = ? AND start_line = ? AND end_line = ?",
            (chat_id, path, start, end),
        ).fetchone()
        return None if row is None else rows.entry(row)

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
        found = self.conn.execute(_SELECT_OUTPUTS + " ORDER BY path", (chat_id,))
        return [rows.output(r) for r in found.fetchall()]

    def output(self, chat_id: str, path: str) -> PendingOutput | None:
        row = self.conn.execute(_SELECT_OUTPUTS + " AND path = ?", (chat_id, path)).fetchone()
        return None if row is None else rows.output(row)

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
        """The pending output of `path` goes, and the choices waiting on it with it."""
        self.conn.execute("DELETE FROM outputs WHERE chat_id = ? AND path = ?", (chat_id, path))
        self.conn.execute("DELETE FROM choices WHERE chat_id = ? AND path = ?", (chat_id, path))

    def settle_output(self, chat_id: str, output: PendingOutput) -> bool:
        """`output` now holds nothing its snapshot does not: it goes, unless an edit of it
        still waits for a choice of place, when it stays as `output`. True when it went."""
        if self.choices(chat_id, output.path):
            self.put_output(chat_id, output)
            return False
        self.delete_output(chat_id, output.path)
        return True

    def clear_outputs(self, chat_id: str) -> None:
        self.conn.execute("DELETE FROM outputs WHERE chat_id = ?", (chat_id,))
        self.conn.execute("DELETE FROM choices WHERE chat_id = ?", (chat_id,))

    # -- choices (edits waiting for the user's choice of place) ----------------------------------

    def choices(self, chat_id: str, path: str | None = None) -> list[PendingChoice]:
        """The chat's pending choices (of `path` only, when given), in the answer's order."""
        query = "SELECT id, record FROM choices WHERE chat_id = ?"
        params: tuple[str, ...] = (chat_id,)
        if path is not None:
            query, params = query + " AND path = ?", (chat_id, path)
        found = self.conn.execute(query + " ORDER BY id", params).fetchall()
        return [
            msgspec.structs.replace(_decode_choice(record), id=choice_id)
            for choice_id, record in found
        ]

    def add_choice(self, chat_id: str, choice: PendingChoice) -> PendingChoice:
        record = msgspec.structs.replace(choice, id=0, created=choice.created or time.time())
        found = self.conn.execute(
            "INSERT INTO choices (chat_id, path, record) VALUES (?, ?, ?)",
            (chat_id, choice.path, to_json(record)),
        )
        assert found.lastrowid is not None
        return msgspec.structs.replace(record, id=found.lastrowid)

    def delete_choice(self, chat_id: str, choice_id: int) -> None:
        self.conn.execute("DELETE FROM choices WHERE chat_id = ? AND id = ?", (chat_id, choice_id))

    # -- retry state -----------------------------------------------------------------------------

    def retry_outputs(self, chat_id: str) -> list[OutputRef]:
        found = self.conn.execute(
            f"SELECT {columns(rows.OUTPUT_REF)} FROM retry_outputs WHERE chat_id = ? ORDER BY path",
            (chat_id,),
        )
        return [rows.output_ref(r) for r in found.fetchall()]

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
        by_agent: bool = False,
    ) -> None:
        self.conn.execute(
            "INSERT INTO undo (chat_id, path, prev_local, written, prev_entry, prev_output, "
            "created, by_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                chat_id,
                path,
                prev_local,
                written,
                None if prev_entry is None else to_json(prev_entry),
                to_json(prev_output),
                time.time(),
                int(by_agent),
            ),
        )

    def update_undo(self, record: UndoRecord) -> None:
        """Store what a review of an agent's apply left of it (`prev_local`, `written`,
        `prev_output`)."""
        self.conn.execute(
            "UPDATE undo SET prev_local = ?, written = ?, prev_output = ? WHERE id = ?",
            (record.prev_local, record.written, to_json(record.prev_output), record.id),
        )

    def last_undo(self, chat_id: str, path: str) -> UndoRecord | None:
        row = self.conn.execute(
            f"SELECT {columns(rows.UNDO)} FROM undo WHERE chat_id = ? AND path = ? "
            "ORDER BY id DESC LIMIT 1",
            (chat_id, path),
        ).fetchone()
        return None if row is None else rows.undo(row)

    def agent_reviews(self, chat_id: str) -> set[str]:
        """The paths whose last apply an agent made itself on disk and that still differ from
        the text before its turn: their review is not over (`bb7.state.review`)."""
        rows = self.conn.execute(
            "SELECT path FROM undo AS u WHERE chat_id = ? AND by_agent = 1 "
            "AND (prev_local IS NULL OR prev_local != written) "
            "AND id = (SELECT MAX(id) FROM undo WHERE chat_id = u.chat_id AND path = u.path)",
            (chat_id,),
        ).fetchall()
        return {path for (path,) in rows}

    def delete_undo(self, undo_id: int) -> None:
        self.conn.execute("DELETE FROM undo WHERE id = ?", (undo_id,))

    # -- apply intents ----------------------------------------------------------------------------

    def put_intent(self, intent: Intent) -> Intent:
        cursor = self.conn.execute(
            "INSERT INTO intents (chat_id, path, prev_local, written, prev_entry, prev_output, "
            "pid, host, created, undo, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                intent.chat_id,
                intent.path,
                intent.prev_local,
                intent.written,
                None if intent.prev_entry is None else to_json(intent.prev_entry),
                to_json(intent.prev_output),
                intent.pid,
                intent.host,
                time.time(),
                intent.undo,
                intent.started,
            ),
        )
        return msgspec.structs.replace(intent, id=int(cursor.lastrowid or 0))

    def has_intents(self) -> bool:
        return self.conn.execute("SELECT 1 FROM intents LIMIT 1").fetchone() is not None

    def intents(self) -> list[Intent]:
        found = self.conn.execute(f"SELECT {columns(rows.INTENT)} FROM intents ORDER BY id")
        return [rows.intent(r) for r in found.fetchall()]

    def delete_intent(self, intent_id: int) -> bool:
        """Drop an intent; False when it was gone already (finished by another process)."""
        cursor = self.conn.execute("DELETE FROM intents WHERE id = ?", (intent_id,))
        return cursor.rowcount > 0

    # -- leases ---------------------------------------------------------------------------------

    def lease(self, chat_id: str) -> Lease | None:
        row = self.conn.execute(
            "SELECT chat_id, pid, host, heartbeat, token, started FROM leases WHERE chat_id = ?",
            (chat_id,),
        ).fetchone()
        if row is None:
            return None
        return Lease(
            chat_id=row[0], pid=row[1], host=row[2], heartbeat=row[3], token=row[4], started=row[5]
        )

    def put_lease(self, lease: Lease) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO leases (chat_id, pid, host, heartbeat, token, started) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (lease.chat_id, lease.pid, lease.host, lease.heartbeat, lease.token, lease.started),
        )

    def delete_lease(self, chat_id: str, token: str | None = None) -> None:
        if token is None:
            self.conn.execute("DELETE FROM leases WHERE chat_id = ?", (chat_id,))
        else:
            self.conn.execute(
                "DELETE FROM leases WHERE chat_id = ? AND token = ?", (chat_id, token)
            )


# -- opening ---------------------------------------------------------------------------------


def init_project(root: Path) -> Store:
    """Create (or open) `<root>/.bb7/bb7.db` with its `.gitignore`; an existing database is
    read whole first, so a damaged one is said, never taken for initialised."""
    state = root / STATE_DIR
    not_dir = _not_a_directory(state)
    if not_dir is not None:
        raise StoreError(not_dir, "failed")
    try:
        state.mkdir(parents=True, exist_ok=True)
        ignore = state / ".gitignore"
        if not ignore.exists():
            ignore.write_text(GITIGNORE, encoding="utf-8")
    except OSError as exc:
        raise StoreError(f"cannot create {state}: {exc.strerror or exc}", "io") from exc
    store = Store(project_db_path(root), scope=PROJECT, root=root)
    try:
        store.check_pages()
    except BaseException:
        store.close()
        raise
    return store


def open_project(root: Path) -> Store | Problem:
    not_dir = _not_a_directory(root / STATE_DIR)
    if not_dir is not None:
        return Problem("unusable_state", not_dir)
    if not project_db_path(root).exists():
        return Problem("not_initialized", f"{root} has no bb7 state; run `bb7 init` there first")
    return Store(project_db_path(root), scope=PROJECT, root=root)


def _not_a_directory(state: Path) -> str | None:
    if os.path.lexists(state) and not state.is_dir():
        return f"{state} is a file, not bb7's state directory; move it away, then run `bb7 init`"
    return None


def open_global() -> Store:
    return Store(global_db_path(), scope=GLOBAL, root=None)
