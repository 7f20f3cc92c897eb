"""The client speaking Anthropic's Messages API to the scripted server on 127.0.0.1: where the
request goes and with which headers, the stream fixtures read into the same events as a Chat
Completions stream, 529 retried like 429, an error event mid-stream, an invalid request in one
line, and the models list with the preset's prices."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bb7.formats.schemas import ToolSpec
from bb7.provider.client import OpenAICompatClient
from bb7.provider.config import ProviderConfig, RetryPolicy, Timeouts
from bb7.provider.events import Done, Retrying, StreamError, TextDelta, ThinkingBlock
from bb7.provider.failures import HttpProblem
from bb7.provider.keys import ApiKey
from bb7.provider.models import ANTHROPIC_PAGE, ModelList, fetch_models, load_models
from bb7.provider.provider import provider_config
from bb7.provider.wire import CacheControl, ChatRequest, ContentPart, Message
from llm_server import LLMServer
from messages_api import error_body, error_event, messages, model, text_block

STREAMS = Path(__file__).parent / "streams" / "anthropic"
KEY = "sk-ant-test-key"


@pytest.fixture
def server_models() -> list[dict[str, Any]]:
    return [
        model(),
        model("claude-3-5-haiku-20241022", images=False),
        model("claude-opus-4-7", kinds=("adaptive",)),
    ]


def client(server: LLMServer, *, attempts: int = 1) -> OpenAICompatClient:
    config = provider_config("anthropic", server.base_url)
    assert isinstance(config, ProviderConfig)
    config = ProviderConfig(
        base_url=config.base_url,
        preset="anthropic",
        timeouts=Timeouts(connect=2, read=5, idle=5, total=20),
        retry=RetryPolicy(max_attempts=attempts, base_delay=0.01, max_delay=0.02),
    )
    return OpenAICompatClient(config, ApiKey(KEY, "test"))


def send(server: LLMServer, request: ChatRequest | None = None, **kw: Any) -> tuple[Any, list[Any]]:
    events: list[Any] = []
    c = client(server, **kw)
    try:
        request = request or ChatRequest(
            model="claude-sonnet-4-5", messages=[Message("user", "hi")]
        )
        result = c.stream(request, events.append).wait(20)
    finally:
        c.close()
    assert result is not None and events[-1] is result
    return result, events


def test_the_request_goes_to_messages_with_anthropic_s_headers(server: LLMServer) -> None:
    server.push(messages(text_block("Hello there.")))
    request = ChatRequest(
        model="claude-sonnet-4-5",
        messages=[
            Message("system", [ContentPart("You edit code.", cache_control=CacheControl())]),
            Message(
                "user", [ContentPart("files\n", cache_control=CacheControl()), ContentPart("hi")]
            ),
        ],
        tools=[ToolSpec("write_file", "Write a file.", {"type": "object"})],
    )
    result, events = send(server, request)
    assert isinstance(result, Done) and result.text == "Hello there."
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hello there."]
    (sent,) = server.chat_requests()
    assert sent["path"] == "/v1/messages"
    assert sent["headers"]["x-api-key"] == KEY
    assert sent["headers"]["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent["headers"]
    body = sent["json"]
    assert body["tools"][0]["input_schema"] == {"type": "object"}
    assert body["tools"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["stream"] is True and body["max_tokens"] > 0


def replay(server: LLMServer, name: str) -> tuple[Any, list[Any]]:
    server.push({"status": 200, "events": [{"raw": (STREAMS / name).read_bytes()}]})
    return send(server)


def test_each_fixture_reads_into_the_same_events_as_chat_completions(server: LLMServer) -> None:
    text, _ = replay(server, "text.sse")
    assert isinstance(text, Done) and text.text == "Hello! The greeting lives in `greet.py`."
    assert text.finish_reason == "stop" and text.model == "claude-sonnet-4-5-20250929"

    pieces, _ = replay(server, "tool-call-in-pieces.sse")
    assert isinstance(pieces, Done) and pieces.finish_reason == "tool_calls"
    (call,) = pieces.tool_calls
    assert call.name == "edit_file" and json.loads(call.arguments)["edits"][0]["path"] == "greet.py"

    two, _ = replay(server, "two-tool-calls.sse")
    assert isinstance(two, Done)
    assert [(c.index, c.id, c.name) for c in two.tool_calls] == [
        (0, "toolu_01First", "edit_file"),
        (1, "toolu_02Second", "write_file"),
    ]

    thought, _ = replay(server, "thinking-then-tool.sse")
    assert isinstance(thought, Done) and thought.reasoning.startswith("The user wants type hints.")
    assert thought.thinking == (
        ThinkingBlock(
            thinking=thought.reasoning,
            signature="EqQBCkYIBxgCKkCFixtureSignatureForTestsOnlyAAAA==",
        ),
    )

    cached, _ = replay(server, "cache-usage.sse")
    assert isinstance(cached, Done) and cached.usage is not None
    usage = cached.usage
    assert (usage.prompt_tokens, usage.cached_tokens, usage.cache_write_tokens) == (
        18683,
        18240,
        412,
    )


def test_a_server_that_answers_one_json_message_is_read_whole(server: LLMServer) -> None:
    # A proxy or a Messages-compatible server that ignores `stream: true`.
    call = {"edits": [{"path": "greet.py", "old_string": "a", "new_string": "b"}]}
    whole = {
        "id": "msg_01Whole",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "thinking", "thinking": "Edit greet.py.", "signature": "SIG=="},
            {"type": "text", "text": "Changing a to b."},
            {"type": "tool_use", "id": "toolu_01", "name": "edit_file", "input": call},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 30, "cache_read_input_tokens": 900, "output_tokens": 25},
    }
    server.push({"status": 200, "body": whole})
    result, events = send(server)
    assert isinstance(result, Done), result
    assert (result.text, result.reasoning) == ("Changing a to b.", "Edit greet.py.")
    assert result.thinking == (ThinkingBlock(thinking="Edit greet.py.", signature="SIG=="),)
    (made,) = result.tool_calls
    assert (made.id, made.name, json.loads(made.arguments)) == ("toolu_01", "edit_file", call)
    assert result.finish_reason == "tool_calls" and result.model == "claude-sonnet-4-5-20250929"
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.cached_tokens) == (930, 900)
    assert result.usage.completion_tokens == 25
    assert any(isinstance(e, TextDelta) and e.text == "Changing a to b." for e in events)


def test_an_error_event_mid_stream_keeps_what_arrived_and_says_why(server: LLMServer) -> None:
    result, events = replay(server, "error-mid-stream.sse")
    assert isinstance(result, StreamError) and result.kind == "provider"
    assert result.text == "Let me look at greet.py" and result.after_first_token
    assert result.message == (
        "The provider reported an error: Overloaded (overloaded_error). The partial answer is kept."
    )
    assert not any(isinstance(e, Retrying) for e in events)


def test_529_then_success_is_one_retry(server: LLMServer) -> None:
    overloaded = json.loads((STREAMS / "overloaded-529.json").read_text())
    server.push({"status": 529, "body": overloaded}, messages(text_block("Back.")))
    result, events = send(server, attempts=4)
    assert isinstance(result, Done) and result.text == "Back." and result.attempts == 2
    (retry,) = [e for e in events if isinstance(e, Retrying)]
    assert retry.reason == (
        "The provider is overloaded (HTTP 529: overloaded_error: Overloaded). "
        "Send again in a moment, or pick another model."
    )


def test_an_overloaded_error_event_before_any_output_is_retried(server: LLMServer) -> None:
    server.push(
        {"status": 200, "events": [error_event()]},
        messages(text_block("Second try.")),
    )
    result, _ = send(server, attempts=2)
    assert isinstance(result, Done) and result.text == "Second try." and result.attempts == 2


def test_an_invalid_request_is_said_in_one_line(server: LLMServer) -> None:
    refused = json.loads((STREAMS / "invalid-request-400.json").read_text())
    server.push({"status": 400, "body": refused})
    result, _ = send(server, attempts=3)
    assert isinstance(result, StreamError) and result.kind == "bad_request"
    assert result.attempts == 1
    assert result.message == (
        "The provider rejected the request (HTTP 400: invalid_request_error: max_tokens: 200000 "
        "> 64000, which is the maximum allowed number of output tokens for "
        "claude-sonnet-4-5-20250929)."
    )
    assert "\n" not in result.message
    server.push(error_body(401, "authentication_error", "invalid x-api-key"))
    denied, _ = send(server)
    assert isinstance(denied, StreamError) and denied.kind == "auth"
    assert KEY not in denied.message


def test_the_models_list_s_pages_come_within_one_deadline() -> None:
    """A server that says there is always one page more, each in good time: the pages stop
    at the list's deadline (ten of them took ten times it)."""
    page = {"trickle": 0.0005, "body": {"data": [model()], "has_more": True, "last_id": "b"}}
    first = f"GET /v1/models?limit={ANTHROPIC_PAGE}"
    with LLMServer(native={first: page, f"{first}&after_id=b": page}) as server:
        c = client(server)
        try:
            got = fetch_models(c, timeout=0.5)
        finally:
            c.close()
        pages = len(server.requests)
    assert isinstance(got, HttpProblem) and got.kind == "timeout", got
    assert 1 <= pages < 10


def test_the_models_list_has_the_api_s_capabilities_and_the_preset_s_prices(
    server: LLMServer, tmp_path: Path
) -> None:
    c = client(server)
    try:
        listed = load_models(c, tmp_path)
    finally:
        c.close()
    assert isinstance(listed, ModelList), listed
    request = next(r for r in server.requests if "/models" in r["path"])
    assert request["path"].startswith("/v1/models") and request["headers"]["x-api-key"] == KEY
    sonnet = listed.find("claude-sonnet-4-5-20250929")
    haiku = listed.find("claude-3-5-haiku-20241022")
    assert sonnet is not None and haiku is not None
    assert (sonnet.name, sonnet.context_length, sonnet.max_completion_tokens) == (
        "Claude Sonnet 4.5",
        200_000,
        64_000,
    )
    assert sonnet.supports_tools and sonnet.supports_reasoning
    assert sonnet.supports_images is True and haiku.supports_images is False
    # A model that takes only adaptive thinking says so (a budget would be refused).
    opus = listed.find("claude-opus-4-7")
    assert opus is not None and opus.adaptive_thinking is True
    assert sonnet.adaptive_thinking is False
    assert sonnet.pricing.prompt == pytest.approx(3e-6)
    assert sonnet.pricing.completion == pytest.approx(15e-6)
    assert sonnet.pricing.cache_read == pytest.approx(0.3e-6)
    assert sonnet.pricing.cache_write == pytest.approx(3.75e-6)
    assert haiku.pricing.prompt == pytest.approx(0.8e-6)
