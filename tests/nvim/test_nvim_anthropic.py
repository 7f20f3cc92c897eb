"""The chat view speaking Anthropic's Messages API (`provider = 'anthropic'`) to the scripted
server on 127.0.0.1, in one sitting read from the screen: the thinking streams in and ends
folded, the edit the model made by tool_use shows `M` in the files panel, the usage line shows
the cache reads the server reported, and the request went to /v1/messages with the key, the
thinking budget and the native cache breakpoints."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import answered, files_panel, open_view, send, wait_for_screen, with_ui
from editor import VERSIONS

from bb7.files.fileid import entry_file_id
from llm_server import LLMServer
from messages_api import messages, model, text_block, thinking_block, tool_use_block

A_TEXT = "one = 1\ntwo = 2\nthree = 3\n"
KEY = "sk-ant-editor-secret-42"
MODEL = "claude-sonnet-4-5-20250929"


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(models=[model(MODEL)]) as running:
        yield running


# The API is the host's; the view draws its events as any provider's (every version runs those).
@pytest.mark.parametrize("nvim_binary", VERSIONS[-1:], indirect=True)
def test_a_sitting_with_anthropic_s_own_api(
    launch: Callable[..., Any], project: Path, server: LLMServer, tmp_path: Path
) -> None:
    seeded = Seeded(project)
    seeded.add(seeded.chat("Work"), "a.py")
    seeded.store.close()
    key = tmp_path / "anthropic-key"
    key.write_text(KEY + "\n")
    nvim = with_ui(
        launch(),
        "{ provider = { preset = 'anthropic', base_url = ..., model = '"
        + MODEL
        + "', api_key = 'file:"
        + str(key)
        + "', reasoning_effort = 'high' } }",
        server.base_url,
    )
    open_view(nvim, "Context added: a.py")
    change = {
        "edits": [
            {
                "path": "a.py",
                "file_id": entry_file_id("a.py", A_TEXT),
                "old_string": "two = 2",
                "new_string": "two = 22",
            }
        ]
    }
    server.push(
        messages(
            thinking_block("Only line two changes.", "EqScriptedSignature=="),
            text_block("Making two twenty-two.", index=1),
            tool_use_block("edit_file", change, index=2),
            stop="tool_use",
            input_tokens=120,
            cache_read=2048,
            cache_write=512,
        )
    )
    send(nvim, "Make two 22")
    answered(nvim, "Assistant modified: a.py")
    rows = wait_for_screen(nvim, "Making two twenty-two.")
    assert any(row.startswith("▸ Reasoning (1 line)") for row in rows)
    assert not any("Only line two changes." in row for row in rows)
    assert any("(2.0k cached, 512 cache write)" in row for row in rows), rows
    assert files_panel(nvim) == ["M  a.py"]
    assert (project / "a.py").read_text() == A_TEXT  # pending, nothing applied

    (request,) = server.chat_requests()
    assert request["path"] == "/v1/messages" and request["headers"]["x-api-key"] == KEY
    body = request["json"]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "two = 2" in body["messages"][0]["content"][0]["text"]
