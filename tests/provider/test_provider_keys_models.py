"""API key sources and the models list with its one-day disk cache."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from bb7.provider.client import OpenAICompatClient, ProviderConfig
from bb7.provider.events import Done
from bb7.provider.failures import HttpProblem
from bb7.provider.keys import ApiKey, KeyProblem, resolve_api_key
from bb7.provider.models import (
    ModelInfo,
    ModelList,
    cache_file,
    load_models,
    parse_models,
    tools_first,
)
from bb7.provider.wire import ChatRequest
from llm_server import DEFAULT_MODELS, LLMServer, finish, stream, text_chunk

OPENROUTER = "https://openrouter.ai/api/v1"
SECRET = "sk-test-abcdef0123456789"


def test_key_comes_from_the_providers_variable_by_default() -> None:
    key = resolve_api_key(None, OPENROUTER, environ={"OPENROUTER_API_KEY": f" {SECRET}\n"})
    assert isinstance(key, ApiKey) and key.reveal() == SECRET
    assert key.source == "environment variable OPENROUTER_API_KEY"
    openai = resolve_api_key(None, "https://api.openai.com/v1", environ={"OPENAI_API_KEY": "k"})
    assert isinstance(openai, ApiKey) and openai.source == "environment variable OPENAI_API_KEY"


def test_key_from_a_named_variable_a_command_and_a_file(tmp_path: Path) -> None:
    env = {"MY_KEY": SECRET, "PATH": "/usr/bin:/bin"}
    named = resolve_api_key("MY_KEY", OPENROUTER, environ=env)
    prefixed = resolve_api_key("env:MY_KEY", OPENROUTER, environ=env)
    command = resolve_api_key(f"cmd:printf '\\n{SECRET}\\nsecond line\\n'", OPENROUTER, environ=env)
    (tmp_path / "key.txt").write_text(f"{SECRET}\n")
    from_file = resolve_api_key("file:key.txt", OPENROUTER, cwd=tmp_path)
    for key in (named, prefixed, command, from_file):
        assert isinstance(key, ApiKey) and key.reveal() == SECRET
    assert isinstance(from_file, ApiKey) and from_file.source == f"file {tmp_path / 'key.txt'}"


def test_local_servers_need_no_key() -> None:
    assert resolve_api_key(None, "http://127.0.0.1:11434/v1", environ={}) is None
    assert resolve_api_key(None, "http://localhost:1234/v1", environ={}) is None


def test_missing_key_says_what_to_set() -> None:
    problem = resolve_api_key(None, OPENROUTER, environ={})
    assert isinstance(problem, KeyProblem) and problem.kind == "missing"
    assert "OPENROUTER_API_KEY is not set" in problem.message
    assert "cmd:" in problem.message and "file:" in problem.message


def test_key_problems_never_echo_a_key(tmp_path: Path) -> None:
    pasted = resolve_api_key(SECRET, OPENROUTER, environ={})
    failing = resolve_api_key(
        f"cmd:echo {SECRET}; echo {SECRET} >&2; exit 3", OPENROUTER, environ={"PATH": "/bin"}
    )
    unreadable = resolve_api_key("file:missing.txt", OPENROUTER, cwd=tmp_path)
    (tmp_path / "spaced").write_text(f"{SECRET} {SECRET}\n")
    spaced = resolve_api_key("file:spaced", OPENROUTER, cwd=tmp_path)
    (tmp_path / "empty").write_text("\n")
    empty = resolve_api_key("file:empty", OPENROUTER, cwd=tmp_path)
    kinds = []
    for problem in (pasted, failing, unreadable, spaced, empty):
        assert isinstance(problem, KeyProblem)
        assert SECRET not in problem.message
        kinds.append(problem.kind)
    assert kinds == ["invalid_spec", "command_failed", "unreadable", "invalid_spec", "empty"]
    # The command's output and arguments may hold the key: only its program and exit code.
    assert isinstance(failing, KeyProblem)
    assert failing.message.startswith("The API key command `echo ...` failed with exit code 3")


def test_models_list_has_capabilities_context_and_pricing() -> None:
    models = parse_models(json.dumps({"data": DEFAULT_MODELS}).encode())
    assert not isinstance(models, HttpProblem)
    plain, tools = models
    assert (tools.id, tools.supports_tools, tools.supports_reasoning) == (
        "test/tools-model",
        True,
        True,
    )
    assert (tools.context_length, tools.max_completion_tokens) == (128000, 8192)
    assert (tools.pricing.prompt, tools.pricing.completion, tools.pricing.cache_read) == (
        3e-06,
        1.5e-05,
        3e-07,
    )
    assert (plain.supports_tools, plain.context_length) == (False, 8192)


def test_a_plain_openai_style_list_leaves_capabilities_unknown() -> None:
    body = {"object": "list", "data": [{"id": "llama3", "object": "model", "owned_by": "me"}]}
    models = parse_models(json.dumps(body).encode())
    assert not isinstance(models, HttpProblem)
    (model,) = models
    assert (model.id, model.supports_tools, model.context_length, model.pricing.prompt) == (
        "llama3",
        None,
        None,
        None,
    )


def test_a_picker_lists_tool_capable_models_first() -> None:
    models = [
        ModelInfo("z/tools", supports_tools=True),
        ModelInfo("a/plain", supports_tools=False),
        ModelInfo("m/unknown"),
        ModelInfo("b/tools", supports_tools=True),
    ]
    assert [m.id for m in tools_first(models)] == ["b/tools", "z/tools", "m/unknown", "a/plain"]


def test_models_are_fetched_once_and_cached_for_a_day(tmp_path: Path) -> None:
    clock = [1_000_000.0]
    with LLMServer() as server:
        client = OpenAICompatClient(ProviderConfig(base_url=server.base_url))
        first = load_models(client, tmp_path, now=lambda: clock[0])
        clock[0] += 23 * 3600
        second = load_models(client, tmp_path, now=lambda: clock[0])
        clock[0] += 2 * 3600
        third = load_models(client, tmp_path, now=lambda: clock[0])
        fetches = [r for r in server.requests if r["path"] == "/v1/models"]
    assert (
        isinstance(first, ModelList)
        and isinstance(second, ModelList)
        and isinstance(third, ModelList)
    )
    assert (first.from_cache, second.from_cache, third.from_cache) == (False, True, False)
    assert len(fetches) == 2
    assert second.find("test/tools-model") == first.find("test/tools-model") is not None
    assert cache_file(tmp_path, server.base_url).exists()


def test_an_unreachable_provider_falls_back_to_a_stale_cache_with_a_warning(tmp_path: Path) -> None:
    with LLMServer() as server:
        base_url = server.base_url
        assert isinstance(
            load_models(
                OpenAICompatClient(ProviderConfig(base_url=base_url)), tmp_path, now=lambda: 0.0
            ),
            ModelList,
        )
    gone = OpenAICompatClient(ProviderConfig(base_url=base_url))
    stale = load_models(gone, tmp_path, now=lambda: 3 * 86400.0)
    assert isinstance(stale, ModelList) and stale.from_cache
    assert stale.warning is not None and "72 h old" in stale.warning
    fresh_dir = load_models(gone, tmp_path / "empty")
    assert isinstance(fresh_dir, HttpProblem) and fresh_dir.kind == "connection"


def test_the_server_runs_as_its_own_process_with_a_script_file(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [stream(text_chunk("from a file"), finish())]}))
    server_py = Path(__file__).parents[1] / "llm_server.py"
    command = [sys.executable, str(server_py), "--port", "0", "--script", str(script)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:")
        base_url = line.split()[-1]
        client = OpenAICompatClient(ProviderConfig(base_url=base_url))
        result = client.complete(ChatRequest(model="m", messages=[]), timeout=5)
        assert isinstance(result, Done) and result.text == "from a file"
        root = base_url.removesuffix("/v1")
        recorded = httpx.get(root + "/_bb7/requests").json()
        assert [r["path"] for r in recorded] == ["/v1/chat/completions"]
        assert recorded[0]["json"]["model"] == "m"
        state = httpx.get(root + "/_bb7/state").json()
        assert state == {"requests": 1, "disconnects": 0, "pending_responses": 0}
    finally:
        proc.terminate()
        proc.wait(5)
