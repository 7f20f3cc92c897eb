"""SSE decoding and delta accumulation: every byte split, reasoning fields, tool-call quirks."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from bb7.provider.deltas import StreamAccumulator
from bb7.provider.events import ReasoningDelta, TextDelta, ToolCall, ToolCallDelta
from bb7.provider.lenient import Decoded, decode_chunk
from bb7.provider.sse import SSEDecoder, SSEOverflow
from bb7.provider.wire import CHUNK_DECODER
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
        "prompt_tokens_details": {"cached_tokens": 80, "cache_write_tokens": 15},
        "completion_tokens_details": {"reasoning_tokens": 7},
    }
    acc, _ = run(sse({"data": {"choices": [], "usage": usage}}))
    assert acc.usage is not None
    assert msgspec.structs.asdict(acc.usage) == {
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "total_tokens": 120,
        "cached_tokens": 80,
        "cache_write_tokens": 15,
        "reasoning_tokens": 7,
        "cost": 0.0042,
    }


def test_content_parts_give_answer_text_and_thinking_reasoning() -> None:
    # Mistral's magistral models: `content` as a list of parts, thinking nested in its own list.
    thinking = {"type": "thinking", "thinking": [{"type": "text", "text": "2+2 is 4."}]}
    acc, events = run(
        sse(
            delta(content=[thinking]),
            delta(content=[{"type": "text", "text": "2 + 2 = 4"}]),
            delta(content="!"),
            finish(),
        )
    )
    assert (acc.reasoning, acc.text) == ("2+2 is 4.", "2 + 2 = 4!")
    assert events == [ReasoningDelta("2+2 is 4."), TextDelta("2 + 2 = 4"), TextDelta("!")]


def test_usage_only_inside_x_groq_is_read() -> None:
    usage = {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57, "queue_time": 0.2}
    acc, _ = run(sse(delta(content="hi"), chunk({}, "stop", x_groq={"usage": usage})))
    assert acc.usage is not None
    assert (acc.usage.prompt_tokens, acc.usage.completion_tokens) == (50, 7)


def payload(step: dict[str, Any]) -> bytes:
    return json.dumps(step["data"]).encode()


def test_a_field_of_unexpected_type_costs_only_that_field() -> None:
    step = chunk({"content": 42, "reasoning": "still here", "tool_calls": "nonsense"}, "stop")
    step["data"]["usage"] = {"prompt_tokens": "many", "completion_tokens": 3}
    decoded = decode_chunk(payload(step))
    assert decoded.skipped == (
        "choices[0].delta.content (number)",
        "choices[0].delta.tool_calls (string)",
        "usage.prompt_tokens (string)",
    )
    acc = StreamAccumulator()
    assert decoded.chunk is not None
    assert acc.apply(decoded.chunk) == [ReasoningDelta("still here")]
    assert acc.finish_reason == "stop"
    assert acc.usage is not None and acc.usage.completion_tokens == 3


def test_one_bad_tool_call_fragment_keeps_the_others() -> None:
    good = {"index": 1, "id": "b", "function": {"name": "write_file", "arguments": "{}"}}
    step = chunk({"tool_calls": [{"index": "zero", "function": {"name": "x"}}, good]})
    decoded = decode_chunk(payload(step))
    assert decoded.skipped == ("choices[0].delta.tool_calls[0].index (string)",)
    acc = StreamAccumulator()
    assert decoded.chunk is not None
    acc.apply(decoded.chunk)
    assert [(c.id, c.name, c.arguments) for c in acc.tool_calls()] == [
        ("call_0", "x", ""),
        ("b", "write_file", "{}"),
    ]


def test_an_error_object_survives_the_lenient_path_verbatim() -> None:
    step = chunk({"content": ["?"]}, error={"code": 400, "message": "Token limit reached"})
    decoded = decode_chunk(payload(step))
    assert decoded.chunk is not None
    assert json.loads(bytes(decoded.chunk.error)) == {"code": 400, "message": "Token limit reached"}


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"{not json", "a chunk that is not valid JSON (9 bytes)"),
        (b'["a", "list"]', "a chunk that is not a JSON object (list)"),
    ],
)
def test_a_payload_that_is_not_a_chunk_is_skipped_with_a_reason(raw: bytes, why: str) -> None:
    assert decode_chunk(raw) == Decoded(None, (why,))
