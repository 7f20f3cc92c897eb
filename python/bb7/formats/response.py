"""A model response as bb7 receives it: its text and its tool calls, from any accepted shape.

Accepted as JSON: `{"tool_calls": [...]}` with each call in OpenAI shape
(`{"id", "type": "function", "function": {"name", "arguments": "<json text>"}}`) or simplified
(`{"name", "arguments": {...}}`), an assistant message (`{"content", "tool_calls"}`), a whole
Chat Completions answer (`{"choices": [{"message": ...}]}`) or a bare list of calls, optionally
inside one ```json fence. Anything else is text, where edit blocks are looked for. Decoding the
arguments is `bb7.formats.calls`' job.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from bb7.formats.arguments import ArgumentError, parse_json_object
from bb7.formats.stream import parse_text


class ToolCall(msgspec.Struct, frozen=True, kw_only=True):
    """One tool call; `arguments` is JSON text (OpenAI) or an already decoded object."""

    name: str
    arguments: Any = None
    id: str = ""


class Response(msgspec.Struct, frozen=True, kw_only=True):
    """What a model answered: text (may hold edit blocks) and tool calls, in call order."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


_FENCED = re.compile(r"\A\s*```[ \t]*[\w-]*[ \t]*\n(.*)\n```\s*\Z", re.DOTALL)


def parse_response(raw: str) -> Response | ArgumentError:
    """`raw` as a Response; an error only when it is evidently broken tool-call JSON."""
    fenced = _FENCED.match(raw)
    body = fenced.group(1) if fenced else raw
    if not body.lstrip().startswith(("{", "[")):
        return Response(text=raw)
    wrapped = f'{{"tool_calls": {body}}}' if body.lstrip().startswith("[") else body
    parsed = parse_json_object(wrapped)
    if isinstance(parsed, ArgumentError):
        if any(not isinstance(item, ArgumentError) for item in parse_text(raw)):
            return Response(text=raw)  # text that happens to start with a brace
        return ArgumentError(
            "invalid",
            "The response is neither tool-call JSON nor text with edit blocks. " + parsed.message,
        )
    return from_message(parsed.value, raw)


def from_message(message: dict[str, Any], raw: str = "") -> Response:
    """A Response from a decoded JSON object in any accepted shape (`raw`: its text if it has
    no tool calls, so edit blocks in it are still found)."""
    choices = message.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        inner = choices[0].get("message") or choices[0].get("delta") or {}
        message = inner if isinstance(inner, dict) else {}
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return Response(text=raw)
    content = message.get("content")
    return Response(
        text=content if isinstance(content, str) else "",
        tool_calls=tuple(_tool_call(call) for call in calls),
    )


def _tool_call(call: object) -> ToolCall:
    if not isinstance(call, dict):
        return ToolCall(name="", arguments=call)
    function = call.get("function")
    source = function if isinstance(function, dict) else call
    name = source.get("name")
    arguments = source.get("arguments", source.get("input"))
    call_id = call.get("id")
    return ToolCall(
        name=name if isinstance(name, str) else "",
        arguments=arguments,
        id=call_id if isinstance(call_id, str) else "",
    )
