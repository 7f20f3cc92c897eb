"""Replaying a provider's stream, byte for byte, through the real local server and
`OpenAICompatClient.stream`, and checking what came out against what the stream holds.

Used by test_provider_stream_quirks.py (our fixtures in streams/) and
test_provider_wire_replay.py (the recordings in ../shared/wire, when present)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from bb7.provider.client import OpenAICompatClient, ProviderConfig, RetryPolicy, Timeouts
from bb7.provider.events import (
    Done,
    ReasoningDelta,
    StreamError,
    StreamWarning,
    TextDelta,
    ToolCallDelta,
)
from bb7.provider.wire import ChatRequest, Message
from llm_server import LLMServer

Served = tuple[LLMServer, OpenAICompatClient]


class Expect(NamedTuple):
    """What a stream holds, read off the stream itself: the answer's start and length, the
    reasoning's start and length, the tool calls with parsed arguments, usage (prompt,
    completion, cost), the finish reason, and for an error the start of its message."""

    answer: str
    answer_len: int
    reasoning: str
    reasoning_len: int
    calls: tuple[tuple[str, dict[str, Any]], ...]
    usage: tuple[int, int, float | None] | None
    finish: str | None
    error: str | None = None


@contextmanager
def serving() -> Iterator[Served]:
    """One server and one client (no retries) for many replays."""
    with LLMServer() as server:
        config = ProviderConfig(
            base_url=server.base_url,
            timeouts=Timeouts(connect=2, read=5, idle=5, total=10),
            retry=RetryPolicy(max_attempts=1),
        )
        client = OpenAICompatClient(config)
        try:
            yield server, client
        finally:
            client.close()


def body_of(path: Path) -> bytes:
    """An `.sse` file as served: byte for byte, or, for JSON lines (a file starting with `{`),
    as `data: <line>` events plus `data: [DONE]`."""
    raw = path.read_bytes()
    if not raw.lstrip().startswith(b"{"):
        return raw
    lines = [line for line in raw.splitlines() if line.strip()]
    return b"".join(b"data: " + line + b"\n\n" for line in lines) + b"data: [DONE]\n\n"


def replay(served: Served, body: bytes) -> tuple[Done | StreamError, list[Any]]:
    server, client = served
    server.push({"status": 200, "events": [{"raw": body}]})
    events: list[Any] = []
    request = ChatRequest(model="m", messages=[Message("user", "hi")])
    result = client.stream(request, events.append).wait(10)
    assert result is not None and events[-1] is result
    return result, events


def check(result: Done | StreamError, events: list[Any], expect: Expect) -> None:
    """Nothing lost, the deltas add up to the end, and the end is what the stream holds."""
    assert not [e for e in events if isinstance(e, StreamWarning)], "part of the stream was lost"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == result.text
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == result.reasoning
    for call in result.tool_calls:
        progress = [e for e in events if isinstance(e, ToolCallDelta) and e.index == call.index]
        assert progress[-1].arguments_length == len(call.arguments)
    assert (result.text[:16], len(result.text)) == (expect.answer, expect.answer_len)
    assert (result.reasoning[:16], len(result.reasoning)) == (
        expect.reasoning,
        expect.reasoning_len,
    )
    assert tuple((c.name, json.loads(c.arguments)) for c in result.tool_calls) == expect.calls
    assert len({c.id for c in result.tool_calls}) == len(result.tool_calls)
    usage = result.usage
    got = None if usage is None else (usage.prompt_tokens, usage.completion_tokens, usage.cost)
    assert got == expect.usage
    assert result.finish_reason == expect.finish
    if expect.error is None:
        assert isinstance(result, Done), getattr(result, "message", "")
    else:
        assert isinstance(result, StreamError)
        assert result.kind == "provider"
        assert result.message.startswith(f"The provider reported an error: {expect.error}")
        assert result.provider_error is not None and expect.error in result.provider_error
