"""Scripted answers in Anthropic's Messages API for tests/llm_server.py, built from the
documented event shapes: `message_start` (with the prompt's usage), content blocks (`text`,
`thinking` with its signature, `tool_use` with its input in `input_json_delta` pieces), then
`message_delta` (stop reason, output tokens) and `message_stop`; an `error` event; an HTTP
error body; and a models list as GET /v1/models gives it.

    server.push(messages(text_block("Hi"), stop="end_turn"))
"""

from __future__ import annotations

import json
from typing import Any

MODEL = "claude-sonnet-4-5-20250929"


def event(name: str, **data: Any) -> dict[str, Any]:
    return {"event": name, "data": {"type": name, **data}}


def message_start(
    *, input_tokens: int = 40, cache_read: int = 0, cache_write: int = 0, model: str = MODEL
) -> dict[str, Any]:
    usage = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cache_write,
        "cache_read_input_tokens": cache_read,
        "output_tokens": 1,
    }
    message = {
        "id": "msg_01Scripted",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": model,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return event("message_start", message=message)


def text_block(text: str, *, index: int = 0, piece: int = 16) -> list[dict[str, Any]]:
    steps = [event("content_block_start", index=index, content_block={"type": "text", "text": ""})]
    for i in range(0, len(text), piece):
        delta = {"type": "text_delta", "text": text[i : i + piece]}
        steps.append(event("content_block_delta", index=index, delta=delta))
    return [*steps, event("content_block_stop", index=index)]


def thinking_block(text: str, signature: str, *, index: int = 0) -> list[dict[str, Any]]:
    start = {"type": "thinking", "thinking": "", "signature": ""}
    steps = [event("content_block_start", index=index, content_block=start)]
    for i in range(0, len(text), 24):
        delta = {"type": "thinking_delta", "thinking": text[i : i + 24]}
        steps.append(event("content_block_delta", index=index, delta=delta))
    signed = {"type": "signature_delta", "signature": signature}
    return [
        *steps,
        event("content_block_delta", index=index, delta=signed),
        event("content_block_stop", index=index),
    ]


def tool_use_block(
    name: str, arguments: dict[str, Any], *, index: int = 0, id: str = "", piece: int = 9
) -> list[dict[str, Any]]:
    """A tool call as Anthropic streams it: the block with an empty input, then the input's
    JSON in pieces."""
    start = {"type": "tool_use", "id": id or f"toolu_{index:02d}", "name": name, "input": {}}
    steps = [event("content_block_start", index=index, content_block=start)]
    text = json.dumps(arguments)
    for i in range(0, len(text), piece):
        delta = {"type": "input_json_delta", "partial_json": text[i : i + piece]}
        steps.append(event("content_block_delta", index=index, delta=delta))
    return [*steps, event("content_block_stop", index=index)]


def message_end(stop: str = "end_turn", *, output_tokens: int = 12) -> list[dict[str, Any]]:
    delta = {"stop_reason": stop, "stop_sequence": None}
    usage = {"output_tokens": output_tokens}
    return [event("message_delta", delta=delta, usage=usage), event("message_stop")]


def messages(
    *blocks: list[dict[str, Any]],
    stop: str = "end_turn",
    input_tokens: int = 40,
    cache_read: int = 0,
    cache_write: int = 0,
    output_tokens: int = 12,
    **options: Any,
) -> dict[str, Any]:
    """A whole streamed answer: its blocks between the start and the end events."""
    start = message_start(input_tokens=input_tokens, cache_read=cache_read, cache_write=cache_write)
    steps = [start, *(step for block in blocks for step in block)]
    steps += message_end(stop, output_tokens=output_tokens)
    return {"status": 200, "events": steps, **options}


def error_event(kind: str = "overloaded_error", message: str = "Overloaded") -> dict[str, Any]:
    return event("error", error={"type": kind, "message": message})


def error_body(status: int, kind: str, message: str) -> dict[str, Any]:
    """An HTTP error as Anthropic answers one (529 is `overloaded_error`)."""
    body = {
        "type": "error",
        "error": {"type": kind, "message": message},
        "request_id": "req_011Scripted",
    }
    return {"status": status, "body": body}


def model(
    id: str = MODEL,
    *,
    name: str = "Claude Sonnet 4.5",
    context: int = 200_000,
    max_tokens: int = 64_000,
    images: bool = True,
    thinking: bool = True,
    kinds: tuple[str, ...] = ("enabled",),
) -> dict[str, Any]:
    """One model as GET /v1/models lists it (with the capabilities newer API versions add);
    `kinds`: the kinds of thinking it takes (`enabled`: a budget, `adaptive`)."""
    return {
        "type": "model",
        "id": id,
        "display_name": name,
        "created_at": "2025-09-29T00:00:00Z",
        "max_input_tokens": context,
        "max_tokens": max_tokens,
        "capabilities": {
            "image_input": {"supported": images},
            "thinking": {
                "supported": thinking,
                "types": {
                    kind: {"supported": thinking and kind in kinds}
                    for kind in ("enabled", "adaptive")
                },
            },
        },
    }
