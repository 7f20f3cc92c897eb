"""The stores a user works with from one place: the project's (if any) and the global one, and
which chat is active there. The CLI and the Neovim host both start here.
"""

from __future__ import annotations

from pathlib import Path

from bb7.refusal import Problem
from bb7.state.records import GLOBAL, PROJECT, Chat
from bb7.state.store import Store, open_global, open_project

ACTIVE_CHAT = "active_chat"
ACTIVE_SCOPE = "active_scope"


class Workspace:
    """A project root's store plus the global store (opened on first use)."""

    def __init__(self, root: Path | None, project: Store | None) -> None:
        self.root = root
        self.project = project
        self._global: Store | None = None
        # What opening settled of a killed bb7's work (one line each), for the user.
        self.recovered: list[str] = []

    @property
    def global_store(self) -> Store:
        if self._global is None:
            self._global = open_global()
        return self._global

    def home(self) -> Store:
        """Where the active chat is remembered: the project's store, else the global one."""
        return self.project if self.project is not None else self.global_store

    def store(self, scope: str) -> Store | Problem:
        if scope == GLOBAL:
            return self.global_store
        if self.project is None:
            return Problem("not_initialized", "no bb7 project here; run `bb7 init` first")
        return self.project

    def stores(self) -> list[Store]:
        return [self.project, self.global_store] if self.project else [self.global_store]

    def find(self, chat_id: str) -> tuple[Store, Chat] | Problem:
        """A chat by id, or by a prefix of its id that only one chat has."""
        matches = [
            (store, chat)
            for store in self.stores()
            for chat in store.chats()
            if chat.id.startswith(chat_id)
        ]
        exact = [m for m in matches if m[1].id == chat_id]
        if exact:
            return exact[0]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            return Problem("no_chat", f"no chat {chat_id}; `bb7 chats list` shows them")
        return Problem("ambiguous", f"{chat_id} names {len(matches)} chats; give more of the id")

    def active(self) -> tuple[Store, Chat] | None:
        home = self.home()
        chat_id = home.setting(ACTIVE_CHAT)
        scope = home.setting(ACTIVE_SCOPE) or PROJECT
        if chat_id is None:
            return None
        store = self.store(scope)
        if isinstance(store, Problem):
            return None
        chat = store.chat(chat_id)
        return None if chat is None else (store, chat)

    def set_active(self, store: Store, chat_id: str | None) -> None:
        home = self.home()
        with home.transaction():
            home.set_setting(ACTIVE_CHAT, chat_id)
            home.set_setting(ACTIVE_SCOPE, None if chat_id is None else store.scope)

    def close(self) -> None:
        if self.project is not None:
            self.project.close()
        if self._global is not None:
            self._global.close()


def open_workspace(root: Path | None) -> Workspace | Problem:
    """The workspace of an initialised project root (or global-only when `root` is None), with
    what a killed bb7 left half-done settled (`bb7.state.recovery`)."""
    if root is None:
        return Workspace(None, None)
    project = open_project(root)
    if isinstance(project, Problem):
        return project
    try:
        recovered: list[str] = []
        if project.has_intents():
            # Imported only when a killed apply left an intent: recovery brings the apply
            # machinery (lock, outputs, merge, difflib), which every other start (`bb7 status`)
            # would pay for nothing.
            from bb7.state.recovery import recover

            recovered = recover(project)
    except BaseException:
        project.close()
        raise
    ws = Workspace(root, project)
    ws.recovered = recovered
    return ws
