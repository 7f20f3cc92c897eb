"""The chat view speaking Anthropic's Messages API (`provider = 'anthropic'`) to the scripted
server on 127.0.0.1, in one sitting read from the screen: the thinking streams in and ends
folded, the edit the model made by tool_use shows `M` in the files panel, the usage line shows
the cache reads the server reported, and the request went to /v1/messages with the key, the
thinking budget and the native cache breakpoints. Then images: `:BB7Add shot.png` and
`:BB7PasteImage` (through a `wl-paste` on the PATH) add them with their tokens in the files
panel, the next request carries both as image blocks, and a model that reads no images
refuses to send in one line. `:checkhealth bb7` says which API, how the cache is asked for,
that the privacy asked for is OpenRouter's alone, and which agents are found."""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import (
    answered,
    conversation,
    files_panel,
    open_view,
    send,
    wait_for_conversation,
    wait_for_screen,
    with_ui,
)
from editor import VERSIONS, run

from bb7.files.fileid import entry_file_id
from bb7.files.images import image_tokens
from bb7.text.tokens import format_tokens
from image_files import png
from llm_server import LLMServer
from messages_api import messages, model, text_block, thinking_block, tool_use_block

A_TEXT = "one = 1\ntwo = 2\nthree = 3\n"
KEY = "sk-ant-editor-secret-42"
MODEL = "claude-sonnet-4-5-20250929"


@pytest.fixture
def server_models() -> list[dict[str, Any]]:
    text_only = model("claude-3-5-haiku-20241022", images=False, thinking=False)
    return [model(MODEL), text_only]


# The API is the host's; the view draws its events as any provider's (every version runs those).
@pytest.mark.parametrize("nvim_binary", VERSIONS[-1:], indirect=True)
def test_a_sitting_with_anthropic_s_own_api(
    launch: Callable[..., Any],
    project: Path,
    server: LLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The system clipboard holds a screenshot; wl-paste is what Wayland has to read it.
    tools = tmp_path / "bin"
    tools.mkdir()
    (tmp_path / "copied.png").write_bytes(png(64, 48))
    wl_paste = tools / "wl-paste"
    wl_paste.write_text(
        '#!/bin/sh\n[ "$1" = --list-types ] && { echo image/png; exit 0; }\n'
        f'exec cat "{tmp_path / "copied.png"}"\n'
    )
    wl_paste.chmod(0o755)
    # And an agent's program (`:checkhealth bb7` lists the agents found).
    (tools / "opencode").write_text("#!/bin/sh\n")
    (tools / "opencode").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-bb7-test")
    (project / "shot.png").write_bytes(png(800, 600))
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
        + "', reasoning_effort = 'high',"
        + " privacy = { data_collection = 'deny', zdr = true } } }",
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

    # Images: a file named, then the clipboard's; each with its tokens in the files panel.
    said = run(nvim, "BB7Add shot.png")
    assert said == "bb7: added shot.png (image) to Work"
    said = run(nvim, "BB7PasteImage")
    assert said.startswith("bb7: added clipboard-") and said.endswith(".png (5 tokens) to Work")
    pasted = said.split()[2]
    rows = wait_for_screen(nvim, "R  clipboard-")
    shot = format_tokens(image_tokens(800, 600))
    assert any(re.search(rf"R  shot\.png +{shot}$", row) for row in rows), rows
    assert any(row.endswith(" 5") and "R  clipboard-" in row for row in rows), rows
    server.push(messages(text_block("The button is red.")))
    send(nvim, "What is wrong in the screenshots?")
    answered(nvim, "The button is red.")
    images = [
        block
        for block in server.chat_requests()[1]["json"]["messages"][0]["content"]
        if block["type"] == "image"
    ]
    assert [b["source"]["media_type"] for b in images] == ["image/png", "image/png"]
    assert images[0]["source"]["data"] == base64.b64encode(png(64, 48)).decode()  # clipboard-…

    # A model that reads no images: refused before anything is sent, in one line.
    run(nvim, "BB7Model claude-3-5-haiku-20241022")
    send(nvim, "And now?")
    wait_for_conversation(nvim, "reads no images")
    said = f"The model reads no images: remove {pasted}, shot.png, or pick a model that reads"
    assert said in "".join(conversation(nvim))
    assert len(server.chat_requests()) == 2

    nvim.command("checkhealth bb7")
    report = "\n".join(nvim.current.buffer[:])
    assert "OK api anthropic: Anthropic's Messages API" in report
    assert "OK prompt cache: cache_control breakpoints on tools, system, first files" in report
    assert (
        "WARNING privacy: data_collection = 'deny', zdr = true is not sent: only OpenRouter "
        "takes it" in report
    )
    assert "OK the server answers /models: 2 models" in report and KEY not in report
    assert "OK opencode: opencode acp" in report
    assert "not found: claude-code-acp, codex-acp, gemini" in report
