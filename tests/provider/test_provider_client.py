"""The streaming client against a real HTTP server on 127.0.0.1 speaking the protocol."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest

from bb7.provider.client import OpenAICompatClient, ProviderConfig, RetryPolicy, Timeouts
from bb7.provider.events import (
    Done,
    ReasoningDelta,
    Retrying,
    StreamError,
    StreamEvent,
    StreamWarning,
    TextDelta,
    ToolCall,
    ToolCallDelta,
)
from bb7.provider.keys import ApiKey
from bb7.provider.wire import ChatRequest, Message, ToolSpec
from llm_server import (
    LLMServer,
    chunk,
    error_response,
    finish,
    reasoning_chunk,
    stream,
    text_chunk,
    tool_call_chunk,
    usage_chunk,
)
from waits import WAIT_S, until

# A cancelled stream's connection closes long before the server's 10 s stall would end it,
# with room for a busy machine; how soon (< 100 ms) is benchmarks/llm_stream.py's figure.
STALL_LEFT = 5.0

SECRET = "sk-or-v1-test-secret-0123456789"
REQUEST = ChatRequest(model="test/model", messages=[Message("user", "hello")])
FAST_RETRY = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.05, max_retry_after=5.0)


class Recorder:
    """Collects events and checks the callback contract: one thread, terminal event last."""

    def __init__(self) -> None:
        self.events: list[StreamEvent] = []
        self.threads: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, event: StreamEvent) -> None:
        with self.lock:
            assert not any(isinstance(e, (Done, StreamError)) for e in self.events), (
                "event after the end"
            )
            self.events.append(event)
            self.threads.add(threading.current_thread().name)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def client_for(
    server: LLMServer, *, read: float = 2.0, key: ApiKey | None = None
) -> OpenAICompatClient:
    config = ProviderConfig(
        base_url=server.base_url, timeouts=Timeouts(connect=2.0, read=read), retry=FAST_RETRY
    )
    return OpenAICompatClient(config, key)


def run(
    server: LLMServer, *, request: ChatRequest = REQUEST, **kwargs: Any
) -> tuple[Any, Recorder]:
    recorder = Recorder()
    handle = client_for(server, **kwargs).stream(request, recorder)
    result = handle.wait(10)
    assert result is not None and recorder.events[-1] is result
    assert recorder.threads == {"bb7-llm-stream"}
    return result, recorder


def test_streams_text_then_done_with_usage_and_cost(server: LLMServer) -> None:
    server.push(
        stream(
            text_chunk("Hel"),
            text_chunk("lo"),
            finish("stop"),
            usage_chunk(12, 3, cost=0.00042, cached=8),
        )
    )
    result, recorder = run(server)
    assert isinstance(result, Done)
    assert [e.text for e in recorder.of(TextDelta)] == ["Hel", "lo"]
    assert (result.text, result.finish_reason, result.model, result.attempts) == (
        "Hello",
        "stop",
        "test/model",
        1,
    )
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.cached_tokens, result.usage.cost) == (
        12,
        8,
        0.00042,
    )


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content", "reasoning_details"])
def test_streams_reasoning_in_each_provider_field(server: LLMServer, field: str) -> None:
    server.push(
        stream(
            reasoning_chunk("Let me ", field),
            reasoning_chunk("think.", field),
            text_chunk("Done."),
            finish(),
        )
    )
    result, recorder = run(server)
    assert isinstance(result, Done)
    assert (result.reasoning, result.text) == ("Let me think.", "Done.")
    assert [e.text for e in recorder.of(ReasoningDelta)] == ["Let me ", "think."]


def test_tool_calls_sent_one_byte_per_tcp_write_arrive_whole(server: LLMServer) -> None:
    server.push(
        stream(
            text_chunk("Editing. "),
            tool_call_chunk(
                0, id="call_1", name="edit_file", arguments='{"edits": [{"path": "src/ä.py", '
            ),
            tool_call_chunk(0, arguments='"old_string": "a\\n", "new_string": "b\\n"}]}'),
            finish("tool_calls"),
            byte_by_byte=True,
        )
    )
    result, recorder = run(server)
    assert isinstance(result, Done)
    assert result.tool_calls == (
        ToolCall(
            0,
            "call_1",
            "edit_file",
            '{"edits": [{"path": "src/ä.py", "old_string": "a\\n", "new_string": "b\\n"}]}',
        ),
    )
    assert recorder.of(ToolCallDelta)[-1].arguments_length == len(result.tool_calls[0].arguments)


def test_parallel_tool_calls_with_missing_and_repeated_ids(server: LLMServer) -> None:
    server.push(
        stream(
            tool_call_chunk(0, name="write_file", arguments='{"path": "a"'),
            tool_call_chunk(1, id="call_b", name="write_file", arguments='{"path": "b"'),
            tool_call_chunk(0, id="call_a", arguments=', "content": "A"}'),
            tool_call_chunk(1, id="call_b", arguments=', "content": "B"}'),
            finish("tool_calls"),
        )
    )
    result, _ = run(server)
    assert isinstance(result, Done)
    assert result.tool_calls == (
        ToolCall(0, "call_a", "write_file", '{"path": "a", "content": "A"}'),
        ToolCall(1, "call_b", "write_file", '{"path": "b", "content": "B"}'),
    )


def test_malformed_tool_arguments_are_delivered_raw(server: LLMServer) -> None:
    server.push(
        stream(
            tool_call_chunk(0, id="c", name="edit_file", arguments='{"path": "a.py", "edits": [}'),
            finish("tool_calls"),
        )
    )
    result, _ = run(server)
    assert isinstance(result, Done)
    assert result.tool_calls[0].arguments == '{"path": "a.py", "edits": [}'


def test_request_body_carries_model_messages_tools_and_streaming_options(server: LLMServer) -> None:
    server.push(stream(text_chunk("ok"), finish()))
    tool = ToolSpec(
        "write_file",
        "Write a file.",
        {"type": "object", "properties": {"path": {"type": "string"}}},
    )
    request = ChatRequest(
        model="m",
        messages=[Message("system", "S"), Message("user", "U")],
        tools=[tool],
        reasoning_effort="high",
    )
    run(server, request=request, key=ApiKey(SECRET, "test"))
    sent = server.chat_requests()[0]
    assert sent["headers"]["authorization"] == f"Bearer {SECRET}"
    assert sent["headers"]["accept"] == "text/event-stream"
    body = sent["json"]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "U"},
    ]
    assert body["tools"][0]["function"]["name"] == "write_file"
    assert body["reasoning_effort"] == "high"  # not OpenRouter: the OpenAI spelling


def test_429_with_retry_after_is_honoured_then_succeeds(server: LLMServer) -> None:
    server.push(
        error_response(429, "slow down", headers={"Retry-After": "1"}),
        stream(text_chunk("ok"), finish()),
    )
    started = time.monotonic()
    result, recorder = run(server)
    elapsed = time.monotonic() - started
    assert isinstance(result, Done) and result.text == "ok" and result.attempts == 2
    assert elapsed >= 1.0
    (notice,) = recorder.of(Retrying)
    assert (notice.attempt, notice.delay) == (2, 1.0)
    assert "HTTP 429: slow down" in notice.reason


def test_500_then_success_is_retried(server: LLMServer) -> None:
    server.push(error_response(500, "upstream boom"), stream(text_chunk("fine"), finish()))
    result, _ = run(server)
    assert isinstance(result, Done) and result.text == "fine" and result.attempts == 2
    assert len(server.chat_requests()) == 2


def test_persistent_5xx_gives_up_after_the_attempts_with_the_provider_message(
    server: LLMServer,
) -> None:
    server.push(*[error_response(503, "overloaded")] * 3)
    result, recorder = run(server)
    assert isinstance(result, StreamError)
    assert (result.kind, result.status, result.attempts) == ("server", 503, 3)
    assert "overloaded" in result.message and "gave up after 3 attempts" in result.message
    assert '"message": "overloaded"' in (result.provider_error or "")
    assert len(recorder.of(Retrying)) == 2


def test_a_retry_after_beyond_the_limit_fails_at_once_and_says_how_long(server: LLMServer) -> None:
    server.push(error_response(429, "quota", headers={"Retry-After": "3600"}))
    result, _ = run(server)
    assert isinstance(result, StreamError)
    assert (result.kind, result.retry_after, result.attempts) == ("rate_limited", 3600.0, 1)
    assert "wait 3600 s" in result.message


def test_client_errors_are_not_retried(server: LLMServer) -> None:
    server.push(error_response(400, "unknown parameter"))
    result, _ = run(server)
    assert isinstance(result, StreamError)
    assert (result.kind, result.attempts) == ("bad_request", 1)
    assert "unknown parameter" in result.message


def test_connection_dropped_before_any_output_is_retried(server: LLMServer) -> None:
    server.push(
        stream({"comment": "OPENROUTER PROCESSING"}, {"drop": True}, done=False),
        stream(text_chunk("again"), finish()),
    )
    result, _ = run(server)
    assert isinstance(result, Done) and result.text == "again" and result.attempts == 2


def test_connection_dropped_mid_stream_keeps_the_partial_text(server: LLMServer) -> None:
    server.push(stream(text_chunk("partial "), text_chunk("answer"), {"drop": True}, done=False))
    result, _ = run(server)
    assert isinstance(result, StreamError)
    assert (result.kind, result.text, result.after_first_token, result.attempts) == (
        "connection",
        "partial answer",
        True,
        1,
    )
    assert "partial answer is kept" in result.message
    assert len(server.chat_requests()) == 1


def test_a_stream_that_stalls_ends_with_a_read_timeout_keeping_the_text(server: LLMServer) -> None:
    server.push(stream(text_chunk("so far"), {"stall": 5}, done=False))
    started = time.monotonic()
    result, _ = run(server, read=0.3)
    assert isinstance(result, StreamError)
    assert (result.kind, result.text) == ("timeout", "so far")
    assert "0.3 s" in result.message
    assert time.monotonic() - started < 2


def test_a_stall_before_any_output_is_retried(server: LLMServer) -> None:
    server.push(stream({"stall": 5}, done=False), stream(text_chunk("woke"), finish()))
    result, _ = run(server, read=0.3)
    assert isinstance(result, Done) and result.text == "woke" and result.attempts == 2


def test_cancel_mid_stream_closes_the_connection_at_once_and_keeps_the_text(
    server: LLMServer,
) -> None:
    server.push(stream(text_chunk("first words"), {"stall": 10}, done=False))
    recorder = Recorder()
    handle = client_for(server, read=30).stream(REQUEST, recorder)
    until(lambda: recorder.of(TextDelta), "the first words")
    cancelled_at = time.monotonic()
    handle.cancel()
    closed_at = server.wait_for_disconnect(timeout=WAIT_S)
    result = handle.wait(WAIT_S)
    assert closed_at is not None
    assert closed_at - cancelled_at < STALL_LEFT  # not held by the stall, nor the read timeout
    assert isinstance(result, StreamError)
    assert (result.kind, result.text) == ("cancelled", "first words")


def test_cancel_while_waiting_for_response_headers(server: LLMServer) -> None:
    # The server reads the request, then sends nothing at all: no headers, no body.
    server.push(stream(text_chunk("never sent"), stall_before_headers=10))
    recorder = Recorder()
    handle = client_for(server, read=30).stream(REQUEST, recorder)
    until(server.chat_requests, "the request")
    time.sleep(0.05)
    cancelled_at = time.monotonic()
    handle.cancel()
    closed_at = server.wait_for_disconnect(timeout=WAIT_S)
    assert closed_at is not None and closed_at - cancelled_at < STALL_LEFT
    result = handle.wait(WAIT_S)
    assert isinstance(result, StreamError) and result.kind == "cancelled"


def test_cancel_during_retry_backoff_ends_at_once(server: LLMServer) -> None:
    server.push(error_response(429, "wait", headers={"Retry-After": "4"}))
    recorder = Recorder()
    handle = client_for(server).stream(REQUEST, recorder)
    until(lambda: recorder.of(Retrying), "the retry")
    started = time.monotonic()
    handle.cancel()
    result = handle.wait(WAIT_S)
    assert time.monotonic() - started < 3  # not the 4 s Retry-After
    assert isinstance(result, StreamError) and result.kind == "cancelled"


def test_provider_error_object_in_the_stream_is_surfaced_verbatim(server: LLMServer) -> None:
    error = {
        "code": 502,
        "message": "Provider returned error",
        "metadata": {"raw": "upstream timeout"},
    }
    server.push(
        stream(
            text_chunk("Start"),
            chunk({"content": ""}, finish_reason="error", error=error),
            done=False,
        )
    )
    result, _ = run(server)
    assert isinstance(result, StreamError)
    assert (result.kind, result.text, result.attempts) == ("provider", "Start", 1)
    assert "Provider returned error (code 502)" in result.message
    assert result.provider_error is not None
    assert '"metadata": {"raw": "upstream timeout"}' in result.provider_error


def test_an_overload_error_object_before_any_output_is_retried(server: LLMServer) -> None:
    overloaded = {"code": 503, "message": "Upstream overloaded"}
    server.push(
        stream(
            {"comment": "OPENROUTER PROCESSING"}, chunk({}, finish_reason="error", error=overloaded)
        ),
        stream(text_chunk("second try"), finish()),
    )
    result, recorder = run(server)
    assert isinstance(result, Done) and result.text == "second try" and result.attempts == 2
    assert "Upstream overloaded (code 503)" in recorder.of(Retrying)[0].reason


def test_finish_reason_error_without_details_is_an_error(server: LLMServer) -> None:
    server.push(stream(text_chunk("x"), finish("error")))
    result, _ = run(server)
    assert isinstance(result, StreamError) and result.kind == "provider"


def test_a_server_that_answers_with_plain_json_still_works(server: LLMServer) -> None:
    body = {
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "whole"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
    }
    server.push({"status": 200, "body": body})
    result, _ = run(server)
    assert isinstance(result, Done) and result.text == "whole" and result.usage is not None


def test_the_api_key_never_appears_in_errors_or_logs(
    server: LLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server.push(error_response(401, f"Invalid key {SECRET} for this account"))
    result, _ = run(server, key=ApiKey(SECRET, "environment variable OPENROUTER_API_KEY"))
    assert isinstance(result, StreamError) and result.kind == "auth"
    assert SECRET not in result.message and SECRET not in (result.provider_error or "")
    assert "[redacted]" in result.message
    assert "environment variable OPENROUTER_API_KEY" in result.message
    assert SECRET not in repr(result) and SECRET not in caplog.text
    assert SECRET not in repr(ApiKey(SECRET, "x"))


def test_a_callback_that_raises_does_not_stop_the_stream(
    server: LLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.push(stream(text_chunk("a"), text_chunk("b"), finish()))
    seen: list[StreamEvent] = []

    def flaky(event: StreamEvent) -> None:
        seen.append(event)
        if isinstance(event, TextDelta):
            raise RuntimeError("UI bug")

    result = client_for(server).stream(REQUEST, flaky).wait(5)
    assert isinstance(result, Done) and result.text == "ab"
    assert seen[-1] is result
    assert "on_event raised" in caplog.text


def test_connection_refused_is_retried_then_reported() -> None:
    with LLMServer() as gone:
        base_url = gone.base_url
    config = ProviderConfig(
        base_url=base_url, timeouts=Timeouts(connect=1, read=1), retry=FAST_RETRY
    )
    result = OpenAICompatClient(config).complete(REQUEST, timeout=5)
    assert isinstance(result, StreamError)
    assert (result.kind, result.attempts) == ("connection", 3)
    assert "Could not reach 127.0.0.1" in result.message


def test_a_chunk_with_a_field_of_unexpected_type_keeps_the_rest_and_warns_once(
    server: LLMServer,
) -> None:
    server.push(
        stream(
            chunk({"content": "Hello", "reasoning": {"unexpected": "object"}}),
            chunk({"content": " world", "reasoning": {"again": True}}),
            {"raw": "data: {broken\n\n"},
            finish(),
        )
    )
    result, recorder = run(server)
    assert isinstance(result, Done) and result.text == "Hello world"
    assert [w.message for w in recorder.of(StreamWarning)] == [
        "Skipped part of the provider's stream that bb7 cannot read: "
        "choices[0].delta.reasoning (object).",
        "Skipped part of the provider's stream that bb7 cannot read: "
        "a chunk that is not valid JSON (7 bytes).",
    ]


def test_usage_sent_with_an_error_chunk_is_kept(server: LLMServer) -> None:
    usage = {"prompt_tokens": 43, "completion_tokens": 10, "total_tokens": 53, "cost": 0.002}
    error = {"code": 400, "message": "Token limit reached"}
    server.push(
        stream(
            reasoning_chunk("thinking"),
            finish("length"),
            chunk({"content": ""}, error=error, usage=usage),
        )
    )
    result, _ = run(server)
    assert isinstance(result, StreamError)
    assert (result.kind, result.reasoning, result.finish_reason) == (
        "provider",
        "thinking",
        "length",
    )
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (43, 10)
    assert result.usage.cost == 0.002


def test_an_answer_that_outgrows_what_bb7_reads_is_stopped_with_one_line(
    server: LLMServer,
) -> None:
    # A runaway model streams a write_file without end: reading stops past the answer limit,
    # the connection is closed, and memory holds the limit, not the whole answer.
    piece = "x" * (1024 * 1024)
    server.push(
        stream(
            tool_call_chunk(0, id="call_1", name="write_file", arguments='{"content": "'),
            {"repeat": tool_call_chunk(0, arguments=piece), "every": 0},
            done=False,
        )
    )
    result, recorder = run(server)
    assert isinstance(result, StreamError)
    assert result.kind == "too_large"
    assert result.message.startswith("The answer grew past 8 MB, more than bb7 reads")
    assert "\n" not in result.message
    assert server.wait_for_disconnect(5) is not None  # bb7 hung up; the server did not stop
    received = sum(len(e.arguments_delta) for e in recorder.of(ToolCallDelta))
    assert received < 9 * len(piece) + 100
