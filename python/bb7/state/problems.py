"""What can go wrong in `bb7.state` besides a refusal: the database errors.

Refusals are `bb7.refusal.Problem` values (raised as `Abort` inside a transaction, which the
function turns back into the value at its edge); the kinds the state layer gives them are
`bb7.refusal.StateProblemKind`, listed there with every other layer's. A database that cannot
be used at all is an exception, `StoreError`, which the CLI and the host print as one line::

    StoreError(Exception)   the database cannot be used: kind + one-line message
    ├── locked              another process held the write lock past the timeout
    ├── damaged             not a database or malformed (a copy is kept next to it)
    ├── empty               0 bytes where a database was (the chats are gone)
    ├── full                the disk is full
    ├── io                  a disk I/O error (a file size limit, a failing disk)
    ├── newer               written by a newer bb7
    ├── lost                another process took over a chat this one held
    └── failed              any other SQLite failure
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal

StoreErrorKind = Literal[
    "locked", "damaged", "empty", "full", "io", "log_gone", "newer", "lost", "failed"
]
# SQLITE_IOERR_SHORT_READ: a file ended before what the shared index says it holds, which in
# bb7's write-ahead-logged database is a log another program deleted or cut short under a
# process that still had it open (that process copies it back at its next action).
_SHORT_READ = 522


class StoreError(Exception):
    """The database cannot be used. `str()` is the one line to show the user."""

    def __init__(self, message: str, kind: StoreErrorKind = "failed") -> None:
        super().__init__(message)
        self.kind: StoreErrorKind = kind


def is_store_trouble(exc: BaseException) -> bool:
    """SQLite errors that come from the database file or the disk, not from a bug in bb7 (a
    constraint violation or bad SQL is a bug, and stays a traceback)."""
    return isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError


def store_error(exc: sqlite3.Error, path: Path, timeout: float) -> StoreError:
    """One line for a database failure: what is wrong, what to do, where a copy was kept."""
    text = str(exc)
    lowered = text.lower()
    if getattr(exc, "sqlite_errorcode", None) == _SHORT_READ:  # Python 3.11+ says which
        return StoreError(
            f"cannot use {path}: its write-ahead log was deleted or cut short by another "
            "program while a bb7 process had it open; nothing was changed; try again once "
            "that process has written or closed",
            "log_gone",
        )
    if "locked" in lowered or "busy" in lowered:
        return StoreError(
            f"{path} is locked: another bb7 process (a Neovim or a `bb7` command) kept it busy "
            f"for over {timeout:g} s; finish or close it and try again; nothing was changed",
            "locked",
        )
    if "full" in lowered:
        return StoreError(
            f"cannot write {path}: the disk is full; free some space and try again; nothing "
            "was changed",
            "full",
        )
    if "i/o error" in lowered:
        return StoreError(
            f"cannot write {path}: {text} (is the disk full or failing?); free some space or "
            "check the disk, then try again; nothing was changed",
            "io",
        )
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        copy = keep_copy(path)
        where = f"a copy is kept at {copy}" if copy else "no copy could be made"
        return StoreError(
            f"{path} is damaged ({text}); {where}; move {path} away and run `bb7 init` to "
            "start afresh",
            "damaged",
        )
    return StoreError(f"the bb7 database {path} failed ({text}); nothing was changed", "failed")


def empty_database(path: Path) -> StoreError:
    return StoreError(
        f"{path} is empty (0 bytes): the chats it held are gone; put a backup of it back, or "
        "delete it and run `bb7 init` to start afresh",
        "empty",
    )


def keep_copy(path: Path) -> Path | None:
    """Copy a damaged database next to it (once per distinct content), before anyone acts."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    base = path.with_name(path.name + ".damaged")
    candidate, number = base, 1
    while candidate.exists():
        try:
            if candidate.read_bytes() == data:
                return candidate
        except OSError:
            pass
        number += 1
        candidate = base.with_name(f"{base.name}.{number}")
    try:
        import shutil  # only for a damaged database: a start that reads state skips it

        shutil.copyfile(path, candidate)
    except OSError:
        return None
    return candidate
