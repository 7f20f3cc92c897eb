"""What a local server's models can do, asked of the server's own API when `/models` lists ids
only: Ollama's /api/show, llama.cpp's /props, LM Studio's /api/v0/models. The answers are the
documented shapes in tests/provider/local_servers/ (each file names its source), served by the real
scripted server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bb7.prompt.assemble import choose_edit_format
from bb7.provider import capabilities
from bb7.provider.client import OpenAICompatClient, ProviderConfig
from bb7.provider.models import ModelList, load_models
from llm_server import LLMServer

SERVERS = Path(__file__).parent / "local_servers"


def _server(kind: str) -> LLMServer:
    fixture: dict[str, Any] = json.loads((SERVERS / f"{kind}.json").read_text())
    return LLMServer(models=fixture["models"], native=fixture["native"])


def _load(server: LLMServer, cache: Path, preset: str | None) -> ModelList:
    client = OpenAICompatClient(ProviderConfig(base_url=server.base_url, preset=preset))
    try:
        listed = load_models(client, cache)
    finally:
        client.close()
    assert isinstance(listed, ModelList)
    return listed


def _facts(listed: ModelList) -> dict[str, tuple[bool | None, int | None, str]]:
    return {
        m.id: (m.supports_tools, m.context_length, m.capabilities_source) for m in listed.models
    }


def test_ollama_models_are_asked_about_one_by_one_and_the_answer_is_cached(
    tmp_path: Path,
) -> None:
    with _server("ollama") as server:
        listed = _load(server, tmp_path, "ollama")
        asked = [r["json"] for r in server.requests if r["path"] == "/api/show"]
        again = _load(server, tmp_path, "ollama")
        requests = len(server.requests)
    assert _facts(listed) == {
        # num_ctx in the parameters is the window Ollama uses; else the model's own.
        "llama3:8b": (False, 8192, "Ollama /api/show"),
        "qwen2.5-coder:7b": (True, 32768, "Ollama /api/show"),
    }
    assert sorted(a["model"] for a in asked) == ["llama3:8b", "qwen2.5-coder:7b"]
    # Cached with the models list: the second load asks nothing.
    assert again.from_cache and _facts(again) == _facts(listed) and requests == 3


def test_llamacpp_props_give_the_template_tool_support_and_the_slot_context(
    tmp_path: Path,
) -> None:
    with _server("llamacpp") as server:
        listed = _load(server, tmp_path, "llamacpp")
    assert _facts(listed) == {"gpt-oss-20b-Q4_K_M.gguf": (True, 16384, "llama.cpp /props")}


def test_lmstudio_v0_models_give_tool_use_and_the_loaded_context(tmp_path: Path) -> None:
    with _server("lmstudio") as server:
        listed = _load(server, tmp_path, "lmstudio")
    assert _facts(listed) == {
        "gemma-2-9b-it": (False, 8192, "LM Studio /api/v0/models"),
        "qwen2.5-7b-instruct": (True, 8192, "LM Studio /api/v0/models"),
    }


def test_an_unnamed_local_server_is_asked_each_way_until_one_answers(tmp_path: Path) -> None:
    with _server("llamacpp") as server:
        listed = _load(server, tmp_path, None)
        paths = [r["path"] for r in server.requests]
    assert _facts(listed)["gpt-oss-20b-Q4_K_M.gguf"] == (True, 16384, "llama.cpp /props")
    assert paths == ["/v1/models", "/api/show", "/props"]


def test_a_server_that_answers_none_of_the_apis_leaves_the_models_unknown(
    tmp_path: Path,
) -> None:
    models = [{"id": "some-model", "object": "model"}]
    with LLMServer(models=models) as server:
        listed = _load(server, tmp_path, None)
    assert _facts(listed) == {"some-model": (None, None, "")}


def test_a_remote_provider_is_not_asked_beyond_its_models_list(tmp_path: Path) -> None:
    with _server("ollama") as server:
        listed = _load(server, tmp_path, "openai")
        paths = [r["path"] for r in server.requests]
    assert paths == ["/v1/models"]
    assert _facts(listed)["llama3:8b"] == (None, None, "")


def test_a_model_the_server_says_has_no_tools_gets_text_blocks(tmp_path: Path) -> None:
    with _server("ollama") as server:
        listed = _load(server, tmp_path, "ollama")
    plain, tools = listed.find("llama3:8b"), listed.find("qwen2.5-coder:7b")
    assert plain is not None and tools is not None
    assert choose_edit_format("search_replace_multi", plain.supports_tools) == "text_blocks"
    assert choose_edit_format("search_replace_multi", tools.supports_tools) == "tools"


def test_a_server_that_answers_each_probe_slowly_holds_it_up_no_longer_than_its_deadline() -> None:
    """Each API asked in turn, each request within its own limit, all within the probe's:
    once that has passed, the next API is not asked."""
    slow = {"trickle": 1.0, "body": {}}
    native = {"POST /api/show": slow, "GET /props": slow, "GET /api/v0/models": slow}
    with LLMServer(native=native) as server:
        client = OpenAICompatClient(ProviderConfig(base_url=server.base_url))
        try:
            found = capabilities.probe(client, ["m"], timeout=0.4, total=0.6)
        finally:
            client.close()
        asked = [r["path"] for r in server.requests]
    assert found is None
    assert asked == ["/api/show", "/props"]  # LM Studio's API is past the deadline
