"""Agent tests' sitting: a git project with a chat, and a scripted ACP agent
(`tests/acp_agent.py`) driven through the real `AgentSession` (its process, the JSON-RPC, the
sandbox)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp_agent import command
from bb7.agent import events as ev
from bb7.agent.agents import AgentSpec, Permissions
from bb7.agent.session import AgentSession
from bb7.state.chats import new_chat
from bb7.state.store import Store, init_project

A_TEXT = "one = 1\ntwo = 2\nthree = 3\n"
HELLO = "print('hello')\n"


class Sitting:
    """A project, its store and chat, and the agent sessions started in it."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.root = tmp / "project"
        self.root.mkdir()
        (self.root / "a.py").write_text(A_TEXT)
        (self.root / "hello.py").write_text(HELLO)
        git = ["git", "-C", str(self.root)]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "a.py", "hello.py"], check=True)
        self.store: Store = init_project(self.root)
        self.chat_id = new_chat(self.store, agent="scripted").id
        self.events: list[ev.AgentEvent] = []
        self.sessions: list[AgentSession] = []
        self.log = tmp / "acp-log.jsonl"

    def session(
        self,
        script: dict[str, Any],
        *,
        answer: Callable[[ev.Permission], str | None] | None = None,
        permissions: Permissions = "ask",
        **kwargs: Any,
    ) -> AgentSession:
        argv, self.log = command(self.tmp / "agent", script)
        spec = AgentSpec("scripted", tuple(argv))

        def on_event(event: ev.AgentEvent) -> None:
            self.events.append(event)
            if isinstance(event, ev.Permission) and answer is not None:
                session.answer(event.ask_id, answer(event))

        session = AgentSession(
            self.store, self.chat_id, spec, on_event, permissions=permissions, **kwargs
        )
        self.sessions.append(session)
        return session

    def turn(self, session: AgentSession, text: str = "Do it") -> ev.Ended:
        handle = session.start_turn(text)
        assert not isinstance(handle, Exception)
        assert hasattr(handle, "wait"), handle
        ended = handle.wait(30)
        assert isinstance(ended, ev.Ended), ended
        return ended

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]
