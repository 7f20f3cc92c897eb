"""Provider presets: one table, the same names in Lua, and what each fills in (URL, key,
dialect, limits), checked in the requests a real local server receives."""

from __future__ import annotations

import msgspec
import pytest

from bb7.provider.client import OpenAICompatClient, ProviderConfig
from bb7.provider.events import Done
from bb7.provider.keys import ApiKey, KeyProblem, resolve_api_key
from bb7.provider.presets import PRESETS, preset_for
from bb7.provider.provider import provider_config
from bb7.provider.wire import ChatRequest, Message, request_body
from llm_server import LLMServer, finish, stream, text_chunk


def test_the_issue_s_presets_are_all_there_with_openrouter_first() -> None:
    named = {"openrouter", "openai", "anthropic", "ollama", "llamacpp", "lmstudio", "vllm"}
    named |= {"groq", "deepseek", "mistral"}
    assert named <= PRESETS.keys() and next(iter(PRESETS)) == "openrouter"


def test_a_preset_fills_the_base_url_and_the_limits_of_a_local_server() -> None:
    ollama = provider_config("ollama")
    assert isinstance(ollama, ProviderConfig)
    assert (ollama.base_url, ollama.preset) == ("http://localhost:11434/v1", "ollama")
    # Time for a CPU to read a long prompt, but a dead server ends a send within one idle
    # limit (no retry after it), not after four.
    limits = ollama.timeouts.total, ollama.timeouts.idle, ollama.retry.max_attempts
    assert limits == (1200, 300, 2) and not ollama.retry.retry_idle
    remote = provider_config("groq", timeout=120, idle_timeout=30, retries=0)
    assert isinstance(remote, ProviderConfig)
    assert remote.base_url == "https://api.groq.com/openai/v1"
    assert (remote.timeouts.total, remote.timeouts.idle, remote.timeouts.read) == (120, 30, 30)
    assert remote.retry.max_attempts == 1 and remote.retry.retry_idle
    default = provider_config()
    assert isinstance(default, ProviderConfig)
    assert (default.base_url, default.timeouts.total) == ("https://openrouter.ai/api/v1", 900)


def test_unusable_settings_are_refused_in_one_line() -> None:
    assert provider_config("olama") == (
        "unknown provider preset 'olama'; one of: " + ", ".join(PRESETS)
    )
    assert provider_config(timeout=0) == "provider timeout should be a number of seconds > 0, got 0"
    assert provider_config(retries=-1) == "provider retries should be a whole number >= 0, got -1"
    for url in ("localhost:11434/v1", "127.0.0.1:8080", "ftp://x/v1", "https://"):
        assert provider_config(base_url=url) == (
            f"provider base_url should be an http:// or https:// URL, got {url!r}"
        )


def test_without_a_name_the_base_url_picks_the_preset() -> None:
    assert preset_for(None, "https://api.mistral.ai/v1").name == "mistral"
    assert preset_for(None, "https://eu.api.deepseek.com/v1").name == "deepseek"
    local = preset_for(None, "http://127.0.0.1:9999/v1")
    assert (local.name, local.local, local.key_env) == ("custom", True, None)
    assert preset_for("OLLAMA", "http://gpu-box:11434/v1").name == "ollama"


def test_key_handling_follows_the_preset() -> None:
    env = {"GROQ_API_KEY": "gsk-1", "VLLM_API_KEY": "v-1"}
    groq = resolve_api_key(None, "https://api.groq.com/openai/v1", environ=env)
    assert isinstance(groq, ApiKey) and groq.source == "environment variable GROQ_API_KEY"
    missing = resolve_api_key(None, "http://proxy:8080/v1", environ={}, preset="anthropic")
    assert isinstance(missing, KeyProblem) and "ANTHROPIC_API_KEY is not set" in missing.message
    assert resolve_api_key(None, "http://localhost:11434/v1", environ=env, preset="ollama") is None
    # vLLM takes a key only when started with --api-key: used when set, else none.
    vllm = resolve_api_key(None, "http://localhost:8000/v1", environ=env, preset="vllm")
    assert isinstance(vllm, ApiKey) and vllm.reveal() == "v-1"
    assert resolve_api_key(None, "http://localhost:8000/v1", environ={}, preset="vllm") is None


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("openrouter", {"reasoning": {"effort": "high"}, "provider": {"zdr": True}}),
        ("openai", {"reasoning_effort": "high"}),
        ("ollama", {"reasoning_effort": "high"}),
        ("anthropic", {"thinking": {"type": "enabled", "budget_tokens": 16384}}),
        ("deepseek", {}),
        ("mistral", {}),
    ],
)
def test_reasoning_effort_goes_in_each_preset_s_dialect(
    server: LLMServer, preset: str, expected: dict[str, object]
) -> None:
    server.push(stream(text_chunk("ok"), finish()))
    # Anthropic through its OpenAI-compatible endpoint (its own API is the preset's default).
    config = provider_config(preset, server.base_url, api="openai")
    assert isinstance(config, ProviderConfig)
    client = OpenAICompatClient(config, ApiKey("k", "test"))
    request = ChatRequest(
        model="m",
        messages=[Message("user", "hi")],
        reasoning_effort="high",
        provider={"zdr": True},
    )
    try:
        result = client.complete(request, timeout=10)
    finally:
        client.close()
    assert isinstance(result, Done) and result.text == "ok"
    body = server.chat_requests()[0]["json"]
    keys = {"reasoning", "reasoning_effort", "thinking", "provider"}
    assert {k: v for k, v in body.items() if k in keys} == expected
    # Mistral refuses `stream_options`; the others are asked for usage in the stream.
    assert ("stream_options" in body) == (preset != "mistral")
    if preset == "anthropic":
        assert body["max_tokens"] > 16384  # room for the answer after the thinking budget


def test_reasoning_none_turns_reasoning_off_or_leaves_the_thinking_out() -> None:
    request = ChatRequest(model="m", messages=[], reasoning_effort="none")
    for name, expected in (("openrouter", {"reasoning": {"enabled": False}}), ("anthropic", {})):
        body = msgspec.json.decode(request_body(request, stream=True, preset=PRESETS[name]))
        keys = {"reasoning", "thinking", "max_tokens"}
        assert {k: v for k, v in body.items() if k in keys} == expected


def test_a_base_url_on_a_local_preset_s_port_is_that_server() -> None:
    assert preset_for(None, "http://localhost:11434/v1").name == "ollama"
    assert preset_for(None, "http://127.0.0.1:8080/v1").name == "llamacpp"
    assert preset_for(None, "http://127.0.0.1:1234/v1").name == "lmstudio"
    unknown = preset_for(None, "http://127.0.0.1:9/v1")
    assert (unknown.name, unknown.local) == ("custom", True)
