"""An agent's turn in the editor's host is an answer like a model's: when it leaves pending
outputs, the project's checks run on them (`check_started`, then `check_done`), through the
host's real route table, with the scripted ACP agent. The test's thread is the host's loop:
what worker threads post runs there, in order, as Neovim's `async_call` would."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acp_agent import command
from bb7.host.events import EventSink
from bb7.host.handlers import build_registry
from bb7.host.registry import Context, handle_notification, handle_request
from bb7.state.chats import new_chat
from bb7.state.store import Store
from bb7.state.workspace import Workspace
from checks_helpers import write_checks
from waits import WAIT_S

# What the editor answers the host's Lua: no buffer has unsaved text.
NO_BUFFERS: dict[str, Any] = {
    "return require('bb7.buffer').unsaved(...)": None,
    "return require('bb7.buffer').for_request()": [],
}


class Loop:
    """The host's route table on this thread's loop: `post` queues, `run_until` runs."""

    def __init__(self, root: Path, settings: dict[str, Any]) -> None:
        self.posted: queue.Queue[tuple[Callable[..., None], tuple[Any, ...]]] = queue.Queue()
        self.events: list[list[Any]] = []
        self.registry = build_registry()
        sink = EventSink(self.events.extend, lambda delay, fn: fn())
        post = lambda fn, *args: self.posted.put((fn, args))  # noqa: E731
        self.ctx = Context(sink, post, lambda code, *args: NO_BUFFERS[code])
        reply = handle_request(
            self.registry, self.ctx, "open", [{"root": str(root), "settings": settings}]
        )
        assert reply["ok"], reply

    def named(self, name: str) -> list[dict[str, Any]]:
        return [payload for event, payload in self.events if event == name]

    def run_until(self, name: str) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT_S
        while not self.named(name):
            assert time.monotonic() < deadline, (name, self.events)
            try:
                fn, args = self.posted.get(timeout=0.05)
            except queue.Empty:
                continue
            fn(*args)
        return self.named(name)[0]


def test_an_agents_turn_that_leaves_pending_outputs_starts_the_checks(
    root: Path, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    write_checks(root, "[[check]]\nname = 'one'\nrun = \"! grep -q 'one = 11' a.py\"\n")
    chat = new_chat(store, agent="scripted")
    Workspace(root, store).set_active(store, chat.id)
    script = {"turns": [[{"write": "a.py", "content": "one = 11\n"}]]}
    argv, _ = command(tmp_path / "agent", script)
    loop = Loop(root, {"agents": {"commands": {"scripted": argv}}})
    try:
        send = [{"text": "Make one 11", "request_id": "r1"}]
        handle_notification(loop.registry, loop.ctx, "send", send)
        done = loop.run_until("check_done")
        assert loop.named("done")[0]["files"] == [str(root / "a.py")]
        assert loop.named("check_started")[0]["checks"] == ["one"]
        assert (done["state"], done["failed"], done["summary"]) == (
            "failed",
            1,
            "checks failed 1 of 1: one",
        )
        assert (root / "a.py").read_text() == "one = 1\n"  # checked in a copy
    finally:
        loop.registry.close()
