"""The `provider` settings from `setup()` reach the send (preset, limits, reasoning effort), and
`set_reasoning_effort` changes the effort between two messages; through the host's real handler
table, against the real local server."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bb7.host.events import EventSink
from bb7.host.handlers import build_registry
from bb7.host.registry import Context, handle_notification, handle_request
from bb7.state import chats
from bb7.state.store import init_project
from llm_server import LLMServer, finish, stream, text_chunk
from messages_api import messages, text_block
from waits import until


class Host:
    """The handler table after `open` with `settings`; events from any thread kept in order."""

    def __init__(self, root: Path, settings: dict[str, Any]) -> None:
        self.registry = build_registry()
        self.events: list[list[Any]] = []
        self.lock = threading.Lock()
        sink = EventSink(self.events.extend, lambda delay, fn: fn())
        self.ctx = Context(sink, self._post)
        self.call("open", root=str(root), settings=settings)

    def _post(self, fn: Any, *args: Any) -> None:
        with self.lock:
            fn(*args)

    def call(self, method: str, **args: Any) -> Any:
        return handle_request(self.registry, self.ctx, method, [args])

    def send(self, text: str, request_id: str) -> dict[str, Any]:
        handle_notification(
            self.registry, self.ctx, "send", [{"text": text, "request_id": request_id}]
        )

        def finished() -> list[dict[str, Any]]:
            with self.lock:
                done = [
                    p for name, p in self.events if name == "done" and p["request_id"] == request_id
                ]
            # The send's thread finishes after `done`; the test closes the store only then.
            return [] if any(t.name == "bb7-send" for t in threading.enumerate()) else done

        return until(finished, "the send's done event")[0]


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("VLLM_API_KEY", raising=False)
    path = tmp_path / "proj"
    path.mkdir()
    init_project(path).close()
    return path


def test_the_preset_and_reasoning_effort_settings_shape_the_request_and_can_change(
    root: Path, server: LLMServer
) -> None:
    provider = {"preset": "vllm", "base_url": server.base_url, "reasoning_effort": "low"}
    host = Host(root, {"provider": provider})
    try:
        server.push(stream(text_chunk("one"), finish()), stream(text_chunk("two"), finish()))
        assert host.send("Hi", "r1")["ok"] is True
        first = server.chat_requests()[0]
        assert first["json"]["reasoning_effort"] == "low"
        assert "authorization" not in first["headers"]  # vLLM without $VLLM_API_KEY: no key

        reply = host.call("set_reasoning_effort", effort="high")
        assert reply["ok"] and reply["value"]["message"].endswith(": high")
        assert host.send("Again", "r2")["ok"] is True
        assert server.chat_requests()[1]["json"]["reasoning_effort"] == "high"

        refused = host.call("set_reasoning_effort", effort="extreme")
        assert not refused["ok"]
        assert refused["error"]["message"] == (
            "reasoning effort should be one of none, minimal, low, medium, high"
        )
    finally:
        host.registry.close()
    store = init_project(root)
    try:
        (chat,) = chats.list_chats([store])
        assert chat.reasoning_effort == "high"  # the chat keeps it, as `bb7 chat --reasoning`
    finally:
        store.close()


def test_the_idle_timeout_setting_ends_a_send_of_keep_alives(root: Path, server: LLMServer) -> None:
    provider = {"base_url": server.base_url, "idle_timeout": 0.3, "retries": 0}
    host = Host(root, {"provider": provider})
    try:
        forever = {"repeat": {"comment": "keep-alive"}, "every": 0.02}
        server.push(stream(text_chunk("So far"), forever, done=False))
        started = time.monotonic()
        done = host.send("Hi", "r1")
        assert time.monotonic() - started < 10  # the keep-alives would go on for ever
        assert (done["ok"], done["kind"]) == (False, "timeout")
        assert done["message"].startswith("The provider sent only keep-alive comments")
    finally:
        host.registry.close()


def test_privacy_the_cache_key_and_the_api_settings_reach_the_request(
    root: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test")
    privacy = {"data_collection": "deny", "zdr": True}
    routed = {"preset": "openrouter", "base_url": server.base_url, "privacy": privacy}
    keyed = {"preset": "openai", "base_url": server.base_url}
    native = {"api": "anthropic", "base_url": server.base_url}
    server.push(
        stream(text_chunk("one"), finish()),
        stream(text_chunk("two"), finish()),
        messages(text_block("three")),
    )
    for provider in (routed, keyed, native):
        host = Host(root, {"provider": provider})
        try:
            assert host.send("Hi", "r1")["ok"] is True
        finally:
            host.registry.close()
    first, second, third = server.chat_requests()
    assert first["json"]["provider"] == {"data_collection": "deny", "zdr": True}
    assert "prompt_cache_key" not in first["json"]
    store = init_project(root)
    try:
        (chat,) = chats.list_chats([store])
    finally:
        store.close()
    assert second["json"]["prompt_cache_key"] == chat.id and "provider" not in second["json"]
    assert third["path"] == "/v1/messages" and "provider" not in third["json"]
