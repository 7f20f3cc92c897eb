"""Time limits against real local servers: keep-alives forever, silence, a stream without end.

Every answer ends within its configured limit (small limits here) with a message that names
the limit, and keeps what had arrived. Retries stay inside the retry window and the deadline.
"""

from __future__ import annotations

import time
from typing import Any

from bb7.provider.client import OpenAICompatClient, ProviderConfig, RetryPolicy, Timeouts
from bb7.provider.events import Done, Retrying, StreamError, StreamEvent
from bb7.provider.wire import ChatRequest, Message
from llm_server import LLMServer, finish, reasoning_chunk, stream, text_chunk

REQUEST = ChatRequest(model="test/model", messages=[Message("user", "hello")])
KEEP_ALIVES_FOREVER = {"repeat": {"comment": "OPENROUTER PROCESSING"}, "every": 0.02}
TEXT_FOREVER = {"repeat": text_chunk("more "), "every": 0.02}
# How late the terminal event may come after its limit fired: generous, for a CI machine busy
# with four test workers (0.5 s was missed once). Which limit fired is told by the message; the
# bound only tells a limit from a stream that never ends.
SLACK = 3.0


def run(
    server: LLMServer,
    *,
    idle: float = 30,
    total: float = 60,
    read: float = 30,
    retry: RetryPolicy | None = None,
) -> tuple[StreamError | Done, list[StreamEvent], float]:
    config = ProviderConfig(
        base_url=server.base_url,
        timeouts=Timeouts(connect=2, read=read, idle=idle, total=total),
        retry=retry or RetryPolicy(max_attempts=1),
    )
    client = OpenAICompatClient(config)
    events: list[StreamEvent] = []
    started = time.monotonic()
    try:
        result = client.stream(REQUEST, events.append).wait(20)
    finally:
        client.close()
    assert result is not None
    return result, events, time.monotonic() - started


def test_keep_alives_forever_end_at_the_idle_limit_keeping_the_answer(server: LLMServer) -> None:
    server.push(stream(text_chunk("Half an "), KEEP_ALIVES_FOREVER, done=False))
    result, _, took = run(server, idle=0.4)
    assert isinstance(result, StreamError)
    assert (result.kind, result.text) == ("timeout", "Half an ")
    assert result.message == (
        "The provider sent only keep-alive comments, no answer, for 0.4 s (the idle limit). "
        "The partial answer is kept; send again to get a complete one."
    )
    assert 0.4 <= took < 0.4 + SLACK
    assert server.wait_for_disconnect(2) is not None  # the connection was closed, not leaked


def test_keep_alives_only_before_any_output_end_at_the_idle_limit(server: LLMServer) -> None:
    server.push(stream(KEEP_ALIVES_FOREVER, done=False))
    result, _, took = run(server, idle=0.3)
    assert isinstance(result, StreamError) and result.kind == "timeout"
    assert "only keep-alive comments" in result.message and result.text == ""
    assert 0.3 <= took < 0.3 + SLACK


def test_a_server_that_sends_nothing_more_ends_at_the_idle_limit(server: LLMServer) -> None:
    server.push(stream(reasoning_chunk("Let me think"), {"stall": 10}, done=False))
    result, _, took = run(server, idle=0.3)
    assert isinstance(result, StreamError)
    assert (result.kind, result.reasoning) == ("timeout", "Let me think")
    assert result.message.startswith("The provider sent nothing for 0.3 s (the idle limit).")
    assert "partial answer is kept" in result.message
    assert 0.3 <= took < 0.3 + SLACK


def test_a_server_that_never_sends_headers_ends_at_the_idle_limit(server: LLMServer) -> None:
    server.push(stream(finish(), stall_before_headers=10))
    result, _, took = run(server, idle=0.3)
    assert isinstance(result, StreamError) and result.kind == "timeout"
    assert result.message.startswith("The provider sent nothing for 0.3 s (the idle limit).")
    assert 0.3 <= took < 0.3 + SLACK


def test_a_stream_without_end_stops_at_the_overall_limit_keeping_the_text(
    server: LLMServer,
) -> None:
    server.push(stream(TEXT_FOREVER, done=False))
    result, events, took = run(server, idle=0.3, total=0.8)
    assert isinstance(result, StreamError) and result.kind == "timeout"
    assert result.message == (
        "The answer took longer than the overall limit of 0.8 s. "
        "The partial answer is kept; send again to get a complete one."
    )
    assert result.text.startswith("more more ") and set(result.text.split()) == {"more"}
    assert 0.8 <= took < 0.8 + SLACK
    assert not any(isinstance(e, Retrying) for e in events)


def test_text_progress_resets_the_idle_clock(server: LLMServer) -> None:
    # Six pieces 0.1 s apart: 0.6 s in all, longer than the 0.25 s idle limit.
    steps: list[dict[str, Any]] = []
    for n in range(6):
        steps += [{"sleep": 0.1}, text_chunk(f"{n}")]
    server.push(stream(*steps, finish()))
    result, _, _ = run(server, idle=0.25)
    assert isinstance(result, Done) and result.text == "012345"


def test_retries_after_idle_timeouts_stop_at_the_overall_limit(server: LLMServer) -> None:
    silent = stream({"stall": 10}, done=False)
    server.push(silent, silent, silent, silent, silent)
    retry = RetryPolicy(max_attempts=5, base_delay=0.01, max_delay=0.02, max_elapsed=30)
    result, events, took = run(server, idle=0.3, total=0.8, retry=retry)
    assert isinstance(result, StreamError) and result.kind == "timeout"
    assert took < 0.8 + SLACK
    assert len(server.chat_requests()) == result.attempts < 5
    assert len([e for e in events if isinstance(e, Retrying)]) == result.attempts - 1


def test_no_retry_starts_after_the_retry_window(server: LLMServer) -> None:
    silent = stream({"stall": 10}, done=False)
    server.push(silent, silent)
    retry = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.02, max_elapsed=0.2)
    result, events, took = run(server, idle=0.3, total=10, retry=retry)
    assert isinstance(result, StreamError) and result.attempts == 1
    assert result.message.endswith("(gave up after 1 attempt in 0 s)")
    assert not any(isinstance(e, Retrying) for e in events)
    assert took < 0.3 + SLACK
