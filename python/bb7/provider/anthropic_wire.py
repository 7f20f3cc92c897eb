"""Anthropic's Messages API on the wire: the request body we send, the stream events we read.

`messages_body` turns a provider-neutral `ChatRequest` into the JSON of POST /v1/messages: the
system prompt as top-level `system` blocks, the tools with `input_schema`, extended thinking from
the reasoning effort (a token budget, or adaptive thinking at an effort for the models that take
it: the newest refuse a budget), and the prompt's cache marks as native
`cache_control` breakpoints, at most four (Anthropic refuses a fifth): the last tool, the system
prompt, the conversation's first mark (the context as first shared) and its last (the history
the next turn starts with). Anthropic looks for a cached prefix at the block boundaries up to 20
blocks before each breakpoint, so the last mark also finds what the turn before wrote.

The event types mirror the streamed JSON loosely: every field optional, unknown fields ignored,
and an event or block type this module does not know is the reader's to skip (Anthropic's
versioning policy says new ones may appear). What the events mean for bb7 is
`anthropic_deltas`'s business; the HTTP exchange is the client's.
"""

from __future__ import annotations

from typing import Any

import msgspec

from bb7.provider.events import ThinkingBlock
from bb7.provider.wire import (
    ANSWER_ROOM,
    THINKING_BUDGET,
    ChatRequest,
    ContentPart,
    ImagePart,
    Part,
    ToolResultPart,
    ToolUsePart,
)

# The API version every request names (`anthropic-version`); the Messages API's stable one.
API_VERSION = "2023-06-01"
# Anthropic takes at most this many `cache_control` breakpoints in one request.
MAX_BREAKPOINTS = 4
# `max_tokens` is required: a request that does not set it gets this, which every Claude model
# with tool use takes; the thinking budget is added on top.
DEFAULT_MAX_TOKENS = 8192
# A model that takes more gets at most this: a larger cap only reserves more of the account's
# output-token rate limit (a whole file of bb7's 1 MiB limit would not fit in any).
MAX_TOKENS_CAP = 32000

_EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
# Adaptive thinking's effort for bb7's (Anthropic's has no "minimal"). Its thinking is asked
# for summarized: the newest models send it empty by default, leaving nothing to show.
ADAPTIVE_EFFORT: dict[str, str] = {
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
}
_ADAPTIVE: dict[str, str] = {"type": "adaptive", "display": "summarized"}


def headers(key: str | None) -> dict[str, str]:
    """The request headers Anthropic wants besides the content type: the key (when there is
    one) as `x-api-key`, and the API version."""
    out = {"anthropic-version": API_VERSION}
    if key is not None:
        out["x-api-key"] = key
    return out


def max_tokens_for(model_max: int | None) -> int:
    """The `max_tokens` to ask for with a model whose models list says `model_max`."""
    return min(model_max, MAX_TOKENS_CAP) if model_max else DEFAULT_MAX_TOKENS


def messages_body(request: ChatRequest, *, stream: bool) -> bytes:
    """JSON body for POST /v1/messages.

    The system message becomes `system`, the others `messages` (user and assistant turns, in
    order); a prompt marked for caching (`ContentPart.cache_control`) gets its breakpoints as
    described in the module docstring, and the last tool one more. `reasoning_effort` "none"
    (or None) sends no `thinking`; any other effort a budget (`THINKING_BUDGET`), or with
    `adaptive_thinking` adaptive thinking at that effort (`output_config.effort`); either way
    `max_tokens` is raised to leave the answer room beside the thinking, and no `temperature`
    is sent (Anthropic refuses one with thinking on). OpenRouter's `provider` and OpenAI's
    `prompt_cache_key` do not apply.
    """
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for message in request.messages:
        blocks = [*map(_thinking, message.thinking), *_blocks(message.content)]
        if message.role == "system":
            system.extend(blocks)
        elif blocks:
            turns.append({"role": message.role, "content": blocks})
    tools = [
        {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
        for tool in request.tools
    ]
    _breakpoints(tools, system, turns)

    max_tokens = request.max_tokens or DEFAULT_MAX_TOKENS
    body: dict[str, Any] = {"model": request.model, "max_tokens": max_tokens, "stream": stream}
    if tools:
        body["tools"] = tools
    if system:
        body["system"] = system
    body["messages"] = turns
    effort = request.reasoning_effort
    if effort is not None and effort != "none":
        budget = THINKING_BUDGET[effort]
        if request.adaptive_thinking:
            body["thinking"] = dict(_ADAPTIVE)
            body["output_config"] = {"effort": ADAPTIVE_EFFORT[effort]}
        else:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        body["max_tokens"] = max(max_tokens, budget + ANSWER_ROOM)
    elif request.temperature is not None:
        body["temperature"] = request.temperature
    body.update(request.extra)
    return msgspec.json.encode(body)


def _blocks(content: str | list[Part]) -> list[dict[str, Any]]:
    """A message's content as Anthropic content blocks (an empty text block is refused)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for part in content:
        block = _block(part)
        if block is None:
            continue
        if getattr(part, "cache_control", None) is not None:
            block["cache_control"] = dict(_EPHEMERAL)
        blocks.append(block)
    return blocks


def _block(part: Part) -> dict[str, Any] | None:
    if isinstance(part, ContentPart):
        return {"type": "text", "text": part.text} if part.text else None
    if isinstance(part, ImagePart):
        source = {"type": "base64", "media_type": part.media_type, "data": part.data}
        return {"type": "image", "source": source}
    if isinstance(part, ToolUsePart):
        # The input as an object: the caller sends back only calls whose arguments are one.
        arguments = msgspec.json.decode(part.arguments or "{}")
        return {"type": "tool_use", "id": part.id, "name": part.name, "input": arguments}
    assert isinstance(part, ToolResultPart)
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": part.call_id}
    block["content"] = part.content
    if part.is_error:
        block["is_error"] = True
    return block


def _thinking(block: ThinkingBlock) -> dict[str, Any]:
    """A thinking block sent back as it came (signature included), or a redacted one."""
    if block.data:
        return {"type": "redacted_thinking", "data": block.data}
    return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}


def _breakpoints(
    tools: list[dict[str, Any]], system: list[dict[str, Any]], turns: list[dict[str, Any]]
) -> None:
    """Mark the last tool when the prompt asks for caching at all, then keep at most
    MAX_BREAKPOINTS marks: the first three (tools, system, the conversation's first) and the
    last (where the next request will read from)."""
    marked = [block for block in system if "cache_control" in block]
    marked += [block for turn in turns for block in turn["content"] if "cache_control" in block]
    if not marked:
        return
    if tools:
        tools[-1]["cache_control"] = dict(_EPHEMERAL)
        marked.insert(0, tools[-1])
    for block in marked[MAX_BREAKPOINTS - 1 : -1]:
        del block["cache_control"]


# ---- stream events ---------------------------------------------------------------------------


class WireUsage(msgspec.Struct):
    """Token counts. `input_tokens` excludes the tokens read from the cache and those written
    to it: the prompt is the sum of the three. In `message_delta` the counts are cumulative."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None


class StartedMessage(msgspec.Struct):
    """`message_start`'s message: empty content, the model that answers, the prompt's usage."""

    id: str | None = None
    model: str | None = None
    usage: WireUsage | None = None


class Block(msgspec.Struct):
    """A content block as `content_block_start` opens it: `text`, `thinking` (its signature
    comes later as a delta), `redacted_thinking` (only `data`), `tool_use` (id, name, and an
    `input` that is empty while its JSON streams)."""

    type: str = ""
    text: str | None = None
    thinking: str | None = None
    signature: str | None = None
    data: str | None = None
    id: str | None = None
    name: str | None = None
    input: dict[str, Any] | None = None


class Delta(msgspec.Struct):
    """`content_block_delta`'s delta (`text_delta`, `input_json_delta`, `thinking_delta`,
    `signature_delta`) or `message_delta`'s (`stop_reason`)."""

    type: str | None = None
    text: str | None = None
    partial_json: str | None = None
    thinking: str | None = None
    signature: str | None = None
    stop_reason: str | None = None


class ErrorDetail(msgspec.Struct):
    """An error object: `type` is Anthropic's kind (`overloaded_error`, ...)."""

    type: str | None = None
    message: str | None = None


class Event(msgspec.Struct):
    """One stream event; `type` says which fields it fills. A whole answer (`type` "message":
    a server that ignored `stream: true`) fills `content`, `model`, `stop_reason` and `usage`."""

    type: str = ""
    index: int | None = None
    message: StartedMessage | None = None
    content_block: Block | None = None
    delta: Delta | None = None
    usage: WireUsage | None = None
    error: ErrorDetail | None = None
    content: list[Block] | None = None
    model: str | None = None
    stop_reason: str | None = None


class ErrorBody(msgspec.Struct):
    """An HTTP error's body: `{"type": "error", "error": {"type", "message"}, "request_id"}`."""

    error: ErrorDetail | None = None
    request_id: str | None = None


EVENT_DECODER = msgspec.json.Decoder(Event)
ERROR_BODY_DECODER = msgspec.json.Decoder(ErrorBody)
