"""An image in a chat through the command line (in-process) to the scripted server: `bb7 add
shot.png`, then `bb7 chat` sends it as a data URL part to a Chat Completions server whose
models list says the model reads images, as a base64 image block over Anthropic's API, and
refuses in one line, before sending, for a model the list says reads only text."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_cli
from image_files import png
from llm_server import LLMServer, finish, stream, text_chunk
from messages_api import messages, model, text_block

SHOT = png(32, 32)
URL = "data:image/png;base64," + base64.b64encode(SHOT).decode()


def listed(id: str, modalities: list[str]) -> dict[str, Any]:
    """A model as OpenRouter lists it, with the inputs it reads."""
    return {
        "id": id,
        "context_length": 128000,
        "pricing": {"prompt": "0.000001", "completion": "0.000002"},
        "supported_parameters": ["tools"],
        "architecture": {"input_modalities": modalities},
    }


@pytest.fixture
def server_models() -> list[dict[str, Any]]:
    return [listed("test/vision", ["text", "image"]), listed("test/text", ["text"]), model()]


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "shot.png").write_bytes(SHOT)
    for name in ("DATA", "CACHE", "CONFIG"):
        monkeypatch.setenv(f"XDG_{name}_HOME", str(tmp_path / name.lower()))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-images")
    monkeypatch.chdir(root)

    def run(*args: str) -> Any:
        return run_cli(capsys, *args)

    assert run("init").returncode == 0
    added = run("add", "shot.png")
    assert added.returncode == 0 and "added shot.png (image)" in added.stdout, added
    return run


def test_each_api_gets_the_image_in_its_shape_and_a_text_model_refuses_it(
    cli: Any, server: LLMServer
) -> None:
    server.push(stream(text_chunk("A black square."), finish()))
    done = cli("chat", "--base-url", server.base_url, "--model", "test/vision", "What is it?")
    assert done.returncode == 0, done.stderr
    (user,) = [m for m in server.chat_requests()[0]["json"]["messages"] if m["role"] == "user"]
    assert {"type": "image_url", "image_url": {"url": URL}} in user["content"]

    server.push(messages(text_block("Still black.")))
    done = cli(
        "chat",
        "--provider",
        "anthropic",
        "--base-url",
        server.base_url,
        "--model",
        "claude-sonnet-4-5-20250929",
        "And now?",
    )
    assert done.returncode == 0, done.stderr
    blocks = server.chat_requests()[1]["json"]["messages"][0]["content"]
    source = {"type": "base64", "media_type": "image/png", "data": URL.split(",", 1)[1]}
    assert {"type": "image", "source": source} in blocks

    done = cli("chat", "--base-url", server.base_url, "--model", "test/text", "Describe it")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "bb7: The model reads no images: remove shot.png, or pick a model that reads images."
    )
    assert len(server.chat_requests()) == 2  # nothing was sent
