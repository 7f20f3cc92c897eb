"""Project state for chat view tests and benchmarks, written with the real core (`bb7.state`):
a `.bb7/` project, chats, messages, context files and pending outputs."""

from __future__ import annotations

from pathlib import Path

from bb7.refusal import Problem
from bb7.state import chats, context
from bb7.state.records import Message, ReasoningPart, TextPart, Usage
from bb7.state.responses import edit_bases, record_outputs
from bb7.state.store import Store, init_project
from bb7.state.workspace import Workspace


class Seeded:
    """An initialised project and its store; chats made here become the active one."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.store: Store = init_project(root)

    def chat(self, name: str) -> str:
        chat = chats.new_chat(self.store, name=name)
        self.activate(chat.id)
        return chat.id

    def activate(self, chat_id: str) -> None:
        Workspace(self.root, self.store).set_active(self.store, chat_id)

    def ask(self, chat_id: str, text: str) -> int:
        return chats.append_user_message(self.store, chat_id, text).id

    def answer(
        self,
        chat_id: str,
        text: str,
        reasoning: str = "",
        model: str = "",
        usage: Usage | None = None,
    ) -> int:
        parts: list[TextPart | ReasoningPart] = [ReasoningPart(reasoning)] if reasoning else []
        parts.append(TextPart(text))
        message = Message(role="assistant", parts=list(parts), model=model, usage=usage)
        return chats.append_message(self.store, chat_id, message).id

    def add(self, chat_id: str, path: str, *, readonly: bool = False) -> None:
        added = context.add(self.store, chat_id, context.Target(path), readonly=readonly)
        assert not isinstance(added, Problem), added

    def model_writes(self, chat_id: str, path: str, text: str) -> None:
        """What a successful answer leaves: a pending output."""
        bases = edit_bases(self.store, chat_id)
        recorded = record_outputs(self.store, chat_id, {path: text}, bases=bases)
        assert not isinstance(recorded, Problem), recorded


def chat_with_code(root: Path, name: str, exchanges: int = 3) -> None:
    """A project whose active chat `name` has `exchanges` answers, each with reasoning and a
    fenced Lua block (what the treesitter highlighter draws); the store is closed."""
    seeded = Seeded(root)
    chat = seeded.chat(name)
    for i in range(exchanges):
        seeded.ask(chat, f"question {i}")
        seeded.answer(chat, f"answer {i}\n\n```lua\nlocal x = {i}\n```\n", reasoning="hm\nyes")
    seeded.store.close()
