"""The agent's file system as bb7 offers it (`fs/read_text_file`, `fs/write_text_file`): a
sandbox over the chat's state, never the project's files.

A write becomes a pending output of the chat (`M`, `A` for a new file), after the checks a
model's `write_file` gets: the path in the project and out of `.git` and `.bb7`, not named by
`.bb7/ignore`, not a directory or below a file, not read-only in the chat, not over bb7's size
limit. A file on disk that is not in the chat yet is added to it first (writable, from the
editor's buffer when it has one), so its change is reviewed against what the user has. A read
sees what the agent would see after its own writes: the chat's pending output, else the
editor's buffer (unsaved edits included), else the disk; `line` (1-based) and `limit` cut it.
A refusal is a `Problem` whose message the agent gets as the error of its request.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import msgspec

from bb7.files.fsio import MAX_BYTES, FileProblem, load_text, too_large
from bb7.files.guard import readable
from bb7.files.ignore import load_ignore
from bb7.files.paths import PathProblem
from bb7.formats.apply import resolve_path
from bb7.refusal import Abort, Problem
from bb7.state import context
from bb7.state.local import LocalText
from bb7.state.records import Event
from bb7.state.responses import record_outputs
from bb7.state.store import Store
from bb7.text.lines import split_lines

# The editor's unsaved text of a project path, None when it has no buffer for it (the command
# line has none).
BufferText = Callable[[str], LocalText | None]


class Written(msgspec.Struct, frozen=True):
    """A write the chat now holds: the path, whether it is a new file, what it recorded."""

    path: str
    added: bool
    events: list[Event]


class FileBridge:
    """`fs/*` for one chat of a project store."""

    def __init__(self, store: Store, chat_id: str, buffer_text: BufferText | None = None) -> None:
        if store.root is None:
            raise ValueError("an agent works in a project: its store needs a root")
        self.store = store
        self.root: Path = store.root
        self.chat_id = chat_id
        self.buffer_text = buffer_text or (lambda path: None)

    def path(self, raw: str) -> str | Problem:
        """The project path the agent names, or why it may not touch it."""
        resolved = resolve_path(self.root, raw)
        if isinstance(resolved, PathProblem):
            return Problem("invalid_path", resolved.message)
        ignore = load_ignore(self.root)
        if ignore.ignores(resolved):
            return Problem(
                "ignored", f"{resolved} is named by .bb7/ignore: bb7 keeps it from agents"
            )
        # The one path rule (`bb7.files.guard`): where a symlink leads counts too.
        checked = readable(self.root, resolved, ignore)
        if isinstance(checked, PathProblem):
            why = f"{checked.message}: bb7 keeps it from agents"
            return Problem("ignored" if checked.kind == "ignored" else "invalid_path", why)
        return resolved

    def read(self, raw: str, line: int | None = None, limit: int | None = None) -> str | Problem:
        path = self.path(raw)
        if isinstance(path, Problem):
            return path
        text = self._text(path)
        if isinstance(text, Problem):
            return text
        if not line and not limit:
            return text
        lines = split_lines(text, keepends=True)
        first = max((line or 1) - 1, 0)
        last = len(lines) if limit is None else first + max(limit, 0)
        return "".join(lines[first:last])

    def _text(self, path: str) -> str | Problem:
        output = self.store.output(self.chat_id, path)
        if output is not None:
            return self.store.blob(output.blob)
        buffered = self.buffer_text(path)
        if buffered is not None:
            return buffered.text
        loaded = load_text(self.root / path)
        if isinstance(loaded, FileProblem):
            return Problem("unreadable", loaded.message)
        return loaded

    def write(self, raw: str, content: str) -> Written | Problem:
        path = self.path(raw)
        if isinstance(path, Problem):
            return path
        size = len(content.encode("utf-8", "surrogatepass"))
        if size > MAX_BYTES:
            return Problem("too_large", too_large(path, size))
        clash = self._clash(path)
        if clash is not None:
            return clash
        try:
            with self.store.transaction():
                entry = self.store.entry(self.chat_id, path)
                if entry is not None and entry.readonly:
                    return Problem("readonly", f"{path} is read-only in this chat")
                if entry is None and (self.root / path).is_file():
                    buffered = self.buffer_text(path)
                    added = context.add(
                        self.store,
                        self.chat_id,
                        context.Target(path),
                        text=None if buffered is None else buffered.text,
                    )
                    if isinstance(added, Problem):
                        raise Abort(Problem(added.kind, f"{path}: {added.message}"))
                recorded = record_outputs(
                    self.store, self.chat_id, {path: content}, store_events=False
                )
                if isinstance(recorded, Problem):
                    raise Abort(recorded)
        except Abort as refused:
            return refused.problem
        new = self.store.entry(self.chat_id, path) is None
        return Written(path, new, recorded.events)

    def _clash(self, path: str) -> Problem | None:
        """A directory at `path`, or a file where one of its directories would be."""
        target = self.root / path
        if target.is_dir():
            return Problem("path_conflict", f"{path} is a directory, not a file")
        parent = Path(path).parent
        while str(parent) not in ("", "."):
            if (self.root / parent).is_file():
                return Problem(
                    "path_conflict", f"{path} cannot be created: {parent.as_posix()} is a file"
                )
            parent = parent.parent
        if not os.access(self.root, os.F_OK):
            return Problem("unreadable", f"the project root {self.root} is gone")
        return None
