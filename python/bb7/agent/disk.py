"""Catching an agent that writes the disk itself: the project's files as a turn found them,
and at its end which of them changed, with their texts before and after
(`bb7.state.agent_writes` records those as the agent's applies, to review or undo).

At the start (`DiskWatch.look`) every file git tracks or would track (outside git: a walk of
the tree) and every file of the chat is stat'ed, and the text is kept of those whose text git
cannot give back later: the chat's files, files git sees as changed or untracked, and every
file outside git (at most `KEEP_BYTES` in all). A tracked file git sees as unchanged is read
back from the index when it changed (`git cat-file --filters`, so line endings and filters are
the work tree's). At the end (`DiskWatch.changes`) a file whose size, times or inode moved is
read again and compared. A file whose text before could not be kept, or that is binary or too
large now, is named in `notes` instead of being recorded.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import msgspec

from bb7.adding.project_files import files_under
from bb7.files.fsio import FileProblem, load_text
from bb7.state.agent_writes import DiskChange

# Texts kept at a turn's start, in all: beyond that a change is noted, not recorded.
KEEP_BYTES = 64 * 1024 * 1024
LIMIT = 50_000
GIT_TIMEOUT = 10.0


class _Mark(NamedTuple):
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int


def _mark(path: Path) -> _Mark | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _Mark(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


class _Unknown(NamedTuple):
    """Why a file's text before the turn cannot be given."""

    message: str


class Found(msgspec.Struct, frozen=True):
    """What a turn did to the disk: the changes to record, and one line per file it changed
    that cannot be (binary, too large, its text before unknown)."""

    changes: list[DiskChange]
    notes: list[str]


def _git(root: Path, *args: str) -> bytes | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, timeout=GIT_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _names(output: bytes | None) -> set[str]:
    if output is None:
        return set()
    return {name for name in output.decode("utf-8", "replace").split("\0") if name}


class DiskWatch:
    """The project's files as one agent turn found them."""

    def __init__(self, root: Path, chat_paths: Iterable[str]) -> None:
        chat_paths = set(chat_paths)
        self.root = root
        self.paths = set(files_under(root, LIMIT)) | {p for p in chat_paths if not os.path.isabs(p)}
        self.marks = {path: _mark(root / path) for path in self.paths}
        tracked = _git(root, "ls-files", "-z")
        self.git = tracked is not None
        self.index = _names(tracked)
        # Tracked files whose text git cannot give back: changed against the index.
        changed = _names(_git(root, "diff", "--name-only", "-z")) if self.git else set()
        self.texts: dict[str, str | None] = {}
        kept = 0
        for path in sorted(self.paths):
            if self.marks[path] is None:
                continue
            if path in self.index and path not in changed and path not in chat_paths:
                continue  # the index has it, byte for byte as the work tree does
            mark = self.marks[path]
            assert mark is not None
            if kept + mark.size > KEEP_BYTES:
                self.texts[path] = None
                continue
            loaded = load_text(root / path)
            self.texts[path] = loaded if isinstance(loaded, str) else None
            kept += mark.size

    @classmethod
    def look(cls, root: Path, chat_paths: Iterable[str]) -> DiskWatch:
        return cls(root, set(chat_paths))

    def _before(self, path: str) -> str | _Unknown | None:
        """The text `path` had at the start (None: there was no file), or why it is unknown."""
        if self.marks.get(path) is None:
            return None
        if path in self.texts:
            text = self.texts[path]
            if text is None:
                return _Unknown("its text before the turn was not kept")
            return text
        shown = _git(self.root, "cat-file", "--filters", f":{path}")
        if shown is None:
            return _Unknown("git could not give its text before the turn")
        try:
            return shown.decode("utf-8")
        except UnicodeDecodeError:
            return _Unknown("it was binary")

    def changes(self) -> Found:
        """The files changed since `look`, created and deleted ones included."""
        now = set(files_under(self.root, LIMIT))
        changes: list[DiskChange] = []
        notes: list[str] = []
        for path in sorted(self.paths | now):
            was, mark = self.marks.get(path), _mark(self.root / path)
            if was == mark:
                continue
            before = self._before(path)
            if isinstance(before, _Unknown):
                notes.append(f"{path} changed on disk: {before.message}; bb7 cannot undo it")
                continue
            after: str | None = None
            if mark is not None:
                loaded = load_text(self.root / path)
                if isinstance(loaded, FileProblem):
                    notes.append(f"{path} changed on disk: {loaded.message}; bb7 cannot show it")
                    continue
                after = loaded
            if before != after:
                changes.append(DiskChange(path, before, after))
        return Found(changes, notes)
