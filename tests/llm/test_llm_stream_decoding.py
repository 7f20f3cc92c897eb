"""SSE decoding and delta accumulation: every byte split, reasoning fields, tool-call quirks."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from bb7.llm.deltas import StreamAccumulator
from bb7.llm.events import ReasoningDelta, TextDelta, ToolCall, ToolCallDelta
from bb7.llm.sse import SSEDecoder, SSEOverflow
from bb7.llm.wire import CHUNK_DECODER
from llm_server import chunk, encode_steps, finish, tool_call_chunk


def sse(*steps: dict[str, Any]) -> bytes:
    return encode_steps(*steps)


def delta(**fields: Any) -> dict[str, Any]:
    return chunk(fields)


def call(
    index: int | None, id: str | None = None, name: str | None = None, args: str | None = None
) -> dict[str, Any]:
    return tool_call_chunk(index, id=id, name=name, arguments=args)


def run(stream: bytes, pieces: list[bytes] | None = None) -> tuple[StreamAccumulator, list[Any]]:
    decoder = SSEDecoder()
    acc = StreamAccumulator()
    events: list[Any] = []
    for piece in pieces if pieces is not None else [stream]:
        for payload in decoder.feed(piece):
            if payload != b"[DONE]":
                events.extend(acc.apply(CHUNK_DECODER.decode(payload)))
    for payload in decoder.close():
        if payload != b"[DONE]":
            events.extend(acc.apply(CHUNK_DECODER.decode(payload)))
    return acc, events


TOOL_STREAM = sse(
    delta(content="Changing ünïcödé ✓ "),
    call(0, id="call_a", name="edit_file", args=""),
    call(0, args='{"path": "a.py", '),
    call(1, id="call_b", name="write_file", args='{"path": "b.py"'),
    call(0, id="call_a", args='"old_string": "x\\ny"}'),
    call(1, args=', "content": "é"}'),
    finish("tool_calls"),
    {"done": True},
)
EXPECTED_CALLS = (
    ToolCall(0, "call_a", "edit_file", '{"path": "a.py", "old_string": "x\\ny"}'),
    ToolCall(1, "call_b", "write_file", '{"path": "b.py", "content": "é"}'),
)


def test_decoder_skips_comments_and_other_fields_and_accepts_crlf() -> None:
    stream = (
        b": OPENROUTER PROCESSING\r\n\r\n"
        b'event: message\r\nid: 7\r\ndata: {"a":1}\r\n\r\n'
        b"data:[DONE]\n\n"
    )
    assert SSEDecoder().feed(stream) == [b'{"a":1}', b"[DONE]"]


def test_decoder_joins_multiline_data_and_flushes_an_unterminated_event_at_close() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: one\ndata: two\n\ndata: tail") == [b"one\ntwo"]
    assert decoder.close() == [b"tail"]


def test_decoder_refuses_an_event_that_never_ends() -> None:
    decoder = SSEDecoder(max_event_bytes=100)
    with pytest.raises(SSEOverflow):
        for _ in range(20):
            decoder.feed(b"data: " + b"x" * 10)


def test_tool_calls_survive_a_split_at_every_byte_boundary() -> None:
    whole, _ = run(TOOL_STREAM)
    assert whole.tool_calls() == EXPECTED_CALLS
    for cut in range(1, len(TOOL_STREAM)):
        acc, _ = run(TOOL_STREAM, [TOOL_STREAM[:cut], TOOL_STREAM[cut:]])
        assert acc.tool_calls() == EXPECTED_CALLS, cut
        assert acc.text == "Changing ünïcödé ✓ "


def test_tool_calls_survive_one_byte_at_a_time() -> None:
    acc, events = run(TOOL_STREAM, [TOOL_STREAM[i : i + 1] for i in range(len(TOOL_STREAM))])
    assert acc.tool_calls() == EXPECTED_CALLS
    assert acc.finish_reason == "tool_calls"
    progress = [e for e in events if isinstance(e, ToolCallDelta)]
    assert [p.arguments_length for p in progress if p.index == 1] == [15, 32]


def test_a_missing_first_id_is_filled_in_later_and_a_repeated_id_does_not_reset_arguments() -> None:
    acc, _ = run(
        sse(
            call(0, name="edit_file", args='{"a"'),
            call(0, id="c1", args=": 1"),
            call(0, id="c1", args="}"),
        )
    )
    assert acc.tool_calls() == (ToolCall(0, "c1", "edit_file", '{"a": 1}'),)


def test_a_call_without_any_id_gets_a_positional_one() -> None:
    acc, _ = run(sse(call(0, name="write_file", args="{}")))
    assert acc.tool_calls() == (ToolCall(0, "call_0", "write_file", "{}"),)


def test_parallel_calls_all_sent_at_index_zero_are_kept_apart_by_id() -> None:
    acc, _ = run(
        sse(
            call(0, id="a", name="f", args="1"),
            call(0, id="b", name="g", args="2"),
            call(0, args="3"),
        )
    )
    assert acc.tool_calls() == (ToolCall(0, "a", "f", "1"), ToolCall(1, "b", "g", "23"))


def test_fragments_without_index_follow_their_id_or_the_latest_call() -> None:
    acc, _ = run(
        sse(
            call(None, id="a", name="f", args="1"),
            call(None, args="2"),
            call(None, id="b", name="g"),
            call(None, id="a", args="3"),
        )
    )
    assert acc.tool_calls() == (ToolCall(0, "a", "f", "123"), ToolCall(1, "b", "g", ""))


def test_malformed_argument_json_is_passed_through_raw() -> None:
    acc, _ = run(
        sse(
            call(0, id="c", name="edit_file", args='{"path": "a.py", "edits": [,'),
            call(0, args="}"),
        )
    )
    assert acc.tool_calls()[0].arguments == '{"path": "a.py", "edits": [,}'


def test_arguments_sent_as_an_object_become_json_text() -> None:
    stream = sse(
        delta(
            tool_calls=[{"index": 0, "id": "c", "function": {"name": "f", "arguments": {"k": 1}}}]
        )
    )
    acc, _ = run(stream)
    assert json.loads(acc.tool_calls()[0].arguments) == {"k": 1}


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_reasoning_string_fields(field: str) -> None:
    acc, events = run(sse(delta(**{field: "think"}), delta(content="say")))
    assert acc.reasoning == "think"
    assert events == [ReasoningDelta("think"), TextDelta("say")]


def test_reasoning_details_count_only_when_no_reasoning_string_came_with_them() -> None:
    details = [
        {"type": "reasoning.text", "text": "A"},
        {"type": "reasoning.encrypted", "data": "zzz"},
    ]
    acc, _ = run(
        sse(
            delta(reasoning_details=details),
            delta(reasoning="B", reasoning_details=[{"type": "reasoning.text", "text": "B"}]),
        )
    )
    assert acc.reasoning == "AB"


def test_usage_with_cost_cached_and_reasoning_tokens() -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "total_tokens": 120,
        "cost": 0.0042,
        "prompt_tokens_details": {"cached_tokens": 80},
        "completion_tokens_details": {"reasoning_tokens": 7},
    }
    acc, _ = run(sse({"data": {"choices": [], "usage": usage}}))
    assert acc.usage is not None
    assert msgspec.structs.asdict(acc.usage) == {
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "total_tokens": 120,
        "cached_tokens": 80,
        "reasoning_tokens": 7,
        "cost": 0.0042,
    }
