"""The model picker's list (`models`) through the real handler table: a local server's
capabilities with who said them, and how each model's edits landed in this project's chats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from host_harness import Host

from bb7.state import chats
from bb7.state.records import Message, TextPart
from bb7.state.responses import record_outputs
from bb7.state.store import Store
from bb7.state.workspace import Workspace
from llm_server import LLMServer
from waits import until

OLLAMA = Path(__file__).parents[1] / "provider" / "local_servers" / "ollama.json"


def test_the_picker_list_says_who_told_the_tools_and_how_edits_landed(
    host: Host, root: Path, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    chat = chats.new_chat(store, name="First")
    Workspace(root, store).set_active(store, chat.id)
    answer = Message(role="assistant", parts=[TextPart("Done.")], model="qwen2.5-coder:7b")
    record_outputs(store, chat.id, {"a.py": "one = 2\n"}, message=answer)
    fixture = json.loads(OLLAMA.read_text())
    with LLMServer(models=fixture["models"], native=fixture["native"]) as server:
        settings = {"provider": {"preset": "ollama", "base_url": server.base_url}}
        host.call("open", root=str(root), settings=settings)
        host.events.clear()
        host.call("models")  # fetched in a worker thread; the event follows
        listed = _wait_for_models(host)
    by_id = {m["id"]: m for m in listed["models"]}
    assert by_id["qwen2.5-coder:7b"]["supports_tools"] is True
    assert by_id["qwen2.5-coder:7b"]["capabilities_source"] == "Ollama /api/show"
    assert by_id["qwen2.5-coder:7b"]["edits"] == "edits 1/1 at the first try, 0 repaired, 0 never"
    assert (by_id["llama3:8b"]["supports_tools"], by_id["llama3:8b"]["edits"]) == (False, "")


def _wait_for_models(host: Host) -> Any:
    found = until(
        lambda: [event[1] for event in list(host.events) if event[0] == "models"], "models"
    )
    return found[0]
