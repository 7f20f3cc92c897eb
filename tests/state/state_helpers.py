"""Small helpers for the state tests: a real project in a temp dir with one chat."""

from __future__ import annotations

from pathlib import Path

import msgspec

from bb7.refusal import Problem
from bb7.state.chats import new_chat
from bb7.state.responses import edit_bases, record_outputs
from bb7.state.status import file_statuses
from bb7.state.store import Store, init_project


class Project(msgspec.Struct):
    root: Path
    store: Store
    chat_id: str

    def write(self, path: str, text: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))

    def read(self, path: str) -> str:
        return (self.root / path).read_bytes().decode("utf-8")

    def status(self, path: str, buffers: dict | None = None) -> str:  # type: ignore[type-arg]
        rows = [r for r in file_statuses(self.store, self.chat_id, buffers) if r.path == path]
        assert len(rows) == 1, rows
        return rows[0].status

    def model_writes(self, path: str, text: str) -> None:
        """What a successful response does: new content recorded as a pending output."""
        got = record_outputs(
            self.store, self.chat_id, {path: text}, bases=edit_bases(self.store, self.chat_id)
        )
        assert not isinstance(got, Problem), got


def make_project(root: Path) -> Project:
    root.mkdir(parents=True, exist_ok=True)
    store = init_project(root)
    return Project(root=root, store=store, chat_id=new_chat(store).id)
