"""Reading Anthropic's Messages stream into bb7's events: the fixtures in streams/anthropic/,
written from the documented event shapes, decoded as the client decodes them (SSE, then each
event), without a network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bb7.provider.anthropic_deltas import MessagesAccumulator
from bb7.provider.deltas import Read
from bb7.provider.events import ReasoningDelta, TextDelta, ThinkingBlock, ToolCallDelta
from bb7.provider.sse import SSEDecoder

STREAMS = Path(__file__).parent / "streams" / "anthropic"


def read(name: str, *, piece: int = 0) -> tuple[MessagesAccumulator, list[Any], Read]:
    """The fixture through the SSE decoder (whole, or `piece` bytes at a time) and the
    reader: the answer, every event it produced, and the last payload's `Read`."""
    raw = (STREAMS / name).read_bytes()
    decoder = SSEDecoder()
    parts = [raw] if not piece else [raw[i : i + piece] for i in range(0, len(raw), piece)]
    payloads = [p for part in parts for p in decoder.feed(part)] + decoder.close()
    acc = MessagesAccumulator()
    events: list[Any] = []
    last = Read([])
    for payload in payloads:
        assert last.end is None, "nothing after the end"
        last = acc.read(payload)
        assert last.skipped == (), payload
        events += last.events
    return acc, events, last


def test_text_stream_gives_the_answer_usage_and_finish() -> None:
    acc, events, last = read("text.sse")
    assert acc.text == "Hello! The greeting lives in `greet.py`."
    assert [e.text for e in events if isinstance(e, TextDelta)] == [
        "Hello",
        "! The greeting",
        " lives in `greet.py`.",
    ]
    assert last.end == "complete" and acc.finish_reason == "stop"
    assert acc.model == "claude-sonnet-4-5-20250929"
    assert acc.usage is not None
    assert (acc.usage.prompt_tokens, acc.usage.completion_tokens) == (25, 15)
    assert acc.tool_calls() == ()


def test_a_tool_call_in_many_pieces_is_one_call_with_the_whole_json() -> None:
    acc, events, _ = read("tool-call-in-pieces.sse", piece=13)
    (call,) = acc.tool_calls()
    assert (call.index, call.id, call.name) == (0, "toolu_01EditInPieces", "edit_file")
    arguments = json.loads(call.arguments)
    assert arguments["edits"][0]["path"] == "greet.py"
    assert arguments["edits"][0]["new_string"].startswith("def greet(name: str) -> str:")
    progress = [e for e in events if isinstance(e, ToolCallDelta)]
    assert len(progress) > 20  # one per piece, after the one that names the call
    assert progress[0].name == "edit_file" and progress[0].arguments_delta == ""
    assert "".join(e.arguments_delta for e in progress) == call.arguments
    assert progress[-1].arguments_length == len(call.arguments)
    assert acc.text == "I'll add type hints and an f-string."
    assert acc.finish_reason == "tool_calls"


def test_two_tool_calls_keep_their_order_and_ids() -> None:
    acc, _, _ = read("two-tool-calls.sse")
    first, second = acc.tool_calls()
    assert (first.index, first.id, first.name) == (0, "toolu_01First", "edit_file")
    assert (second.index, second.id, second.name) == (1, "toolu_02Second", "write_file")
    assert json.loads(second.arguments) == {
        "path": "NOTES.md",
        "content": "# Notes\n\nGreetings use f-strings.\n",
    }


def test_thinking_is_reasoning_and_kept_whole_with_its_signature() -> None:
    acc, events, _ = read("thinking-then-tool.sse", piece=7)
    thought = "The user wants type hints. `greet` takes a name and returns a string, so str -> str."
    assert acc.reasoning == thought
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == thought
    assert acc.thinking() == (
        ThinkingBlock(
            thinking=thought, signature="EqQBCkYIBxgCKkCFixtureSignatureForTestsOnlyAAAA=="
        ),
    )
    assert [call.name for call in acc.tool_calls()] == ["edit_file"]
    assert acc.text == ""


def test_cache_reads_and_writes_are_part_of_the_prompt() -> None:
    acc, _, _ = read("cache-usage.sse")
    usage = acc.usage
    assert usage is not None
    assert usage.cached_tokens == 18240
    assert usage.cache_write_tokens == 412
    assert usage.prompt_tokens == 31 + 412 + 18240
    assert usage.completion_tokens == 12
    assert usage.total_tokens == usage.prompt_tokens + 12


def test_an_error_event_mid_stream_keeps_what_arrived() -> None:
    acc, _, last = read("error-mid-stream.sse")
    assert acc.text == "Let me look at greet.py"
    assert isinstance(last.end, bytes)
    assert json.loads(last.end) == {"type": "overloaded_error", "message": "Overloaded"}
    assert acc.emitted


def feed(acc: MessagesAccumulator, steps: list[dict[str, Any]]) -> tuple[list[Any], list[str]]:
    """Events and skipped parts of `steps`, each read as one payload."""
    events: list[Any] = []
    skipped: list[str] = []
    for step in steps:
        read = acc.read(json.dumps(step).encode())
        events += read.events
        skipped += read.skipped
    return events, skipped


def test_text_after_a_tool_call_starts_a_new_paragraph_but_adjacent_blocks_join() -> None:
    acc = MessagesAccumulator()
    steps = [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "A"}},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text"}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "B."}},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "tool_use", "id": "t", "name": "write_file", "input": {}},
        },
        {"type": "content_block_start", "index": 3, "content_block": {"type": "text"}},
        {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "C"}},
    ]
    events, _ = feed(acc, steps)
    assert acc.text == "AB.\n\nC"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == acc.text
    # The call got no argument pieces: its start's input stands.
    assert acc.tool_calls()[0].arguments == "{}"


def test_redacted_thinking_is_kept_and_unknown_blocks_and_events_are_skipped() -> None:
    acc = MessagesAccumulator()
    steps = [
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "redacted_thinking", "data": "EnC"},
        },
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "server_tool_use", "id": "s"},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": "{}"},
        },
        {"type": "some_future_event", "index": 1},
        {"type": "ping"},
    ]
    events, skipped = feed(acc, steps)
    assert events == []
    assert acc.thinking() == (ThinkingBlock(data="EnC"),)
    assert skipped == ["a content block of type 'server_tool_use'"]
    assert acc.tool_calls() == () and not acc.emitted
