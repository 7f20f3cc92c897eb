"""The database: layout, pragmas, content-addressed blobs and forward migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from state_helpers import Project

from bb7.state.chats import search_chats
from bb7.state.schema import SCHEMA_VERSION
from bb7.state.store import Store, StoreError, init_project, open_project

# Schema version 1 exactly as bb7 first released it (frozen here on purpose: the migration
# must keep working from this, whatever later versions look like).
V1 = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (1);
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE blobs (sha TEXT PRIMARY KEY, content TEXT NOT NULL);
CREATE TABLE chats (id TEXT PRIMARY KEY, name TEXT NOT NULL, created REAL NOT NULL,
    updated REAL NOT NULL, model TEXT NOT NULL DEFAULT '',
    reasoning_effort TEXT NOT NULL DEFAULT '', draft TEXT NOT NULL DEFAULT '',
    pinned INTEGER NOT NULL DEFAULT 0);
CREATE TABLE messages (id INTEGER PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
    role TEXT NOT NULL, parts TEXT NOT NULL, model TEXT NOT NULL DEFAULT '', usage TEXT,
    created REAL NOT NULL, context_snapshot TEXT NOT NULL DEFAULT '[]',
    outputs_snapshot TEXT NOT NULL DEFAULT '[]', UNIQUE (chat_id, seq));
CREATE TABLE context (chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    path TEXT NOT NULL, start_line INTEGER NOT NULL DEFAULT 0,
    end_line INTEGER NOT NULL DEFAULT 0,
    kind TEXT NOT NULL CHECK (kind IN ('writable', 'readonly', 'section', 'external')),
    blob TEXT NOT NULL REFERENCES blobs(sha), file_id TEXT NOT NULL,
    added INTEGER NOT NULL DEFAULT 0, position INTEGER NOT NULL,
    PRIMARY KEY (chat_id, path, start_line, end_line));
CREATE TABLE outputs (chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    path TEXT NOT NULL, blob TEXT NOT NULL REFERENCES blobs(sha), file_id TEXT NOT NULL,
    base_file_id TEXT NOT NULL, added INTEGER NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (chat_id, path));
CREATE TABLE undo (id INTEGER PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE, path TEXT NOT NULL,
    prev_local TEXT REFERENCES blobs(sha), written TEXT NOT NULL REFERENCES blobs(sha),
    prev_entry TEXT, prev_output TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE leases (chat_id TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
    pid INTEGER NOT NULL, host TEXT NOT NULL, heartbeat REAL NOT NULL, token TEXT NOT NULL);
INSERT INTO chats VALUES ('abc1234567', 'Refactor the parser', 1.0, 2.0, 'm', '', '', 0);
INSERT INTO messages (chat_id, seq, role, parts, created) VALUES
    ('abc1234567', 1, 'user', '[{"type":"text","text":"please tokenize the lexer input"}]', 1.5);
"""


def _v1_project(root: Path) -> Path:
    (root / ".bb7").mkdir(parents=True)
    db = root / ".bb7" / "bb7.db"
    conn = sqlite3.connect(db)
    conn.executescript(V1)
    conn.close()
    return db


def test_a_v1_database_is_migrated_forward_and_keeps_its_chats(tmp_path: Path) -> None:
    db = _v1_project(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO blobs VALUES ('b1', 'x = 1\n')")
    conn.execute(
        "INSERT INTO context VALUES ('abc1234567', 'a.py', 2, 3, 'section', 'b1', 'f1', 0, 1)"
    )
    conn.commit()
    conn.close()
    store = open_project(tmp_path)
    assert isinstance(store, Store)
    # v9 rebuilt the context table without its CHECK on kinds, keeping the rows.
    (entry,) = store.entries("abc1234567")
    assert (entry.path, entry.kind, entry.start_line, entry.end_line) == ("a.py", "section", 2, 3)
    assert store.schema_version() == SCHEMA_VERSION == 11
    (chat,) = store.chats()
    assert (chat.name, chat.retry_context) == ("Refactor the parser", "")
    assert store.retry_outputs(chat.id) == []
    (message,) = store.messages(chat.id)
    assert message.text() == "please tokenize the lexer input"
    assert not message.excluded  # v7: every message of an older chat is still sent
    hits = search_chats([store], "tokeniz")
    assert [(h.chat.id, h.match) for h in hits] == [("abc1234567", "message")]
    assert [h.match for h in search_chats([store], "parser")] == ["name"]
    assert store.integrity_problems() == []
    store.close()
    # Opening again does not migrate twice.
    again = open_project(tmp_path)
    assert isinstance(again, Store) and len(search_chats([again], "tokenize")) == 1


def test_a_database_from_a_newer_bb7_is_refused(tmp_path: Path) -> None:
    db = _v1_project(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer bb7"):
        open_project(tmp_path)


def test_init_creates_a_gitignored_wal_database(tmp_path: Path) -> None:
    store = init_project(tmp_path)
    assert (tmp_path / ".bb7" / ".gitignore").read_text().strip().endswith("*")
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    store.close()


def test_blobs_are_content_addressed_and_kept(project: Project) -> None:
    with project.store.transaction():
        first = project.store.put_blob("same text\n")
        second = project.store.put_blob("same text\n")
    assert first == second and len(first) == 64
    assert project.store.blob(first) == "same text\n"
    count = project.store.conn.execute("SELECT COUNT(*) FROM blobs").fetchone()[0]
    assert count == 1


def test_a_failed_action_rolls_back_every_row(project: Project) -> None:
    with pytest.raises(RuntimeError), project.store.transaction():
        project.store.put_blob("lost")
        project.store.update_chat(project.chat_id, name="renamed")
        raise RuntimeError("bug in the middle of an action")
    assert project.store.conn.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 0
    chat = project.store.chat(project.chat_id)
    assert chat is not None and chat.name != "renamed"


def test_an_uninitialised_project_says_to_run_init(tmp_path: Path) -> None:
    problem = open_project(tmp_path)
    assert not isinstance(problem, Store) and "bb7 init" in problem.message
