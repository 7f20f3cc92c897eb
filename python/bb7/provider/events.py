"""What a streaming request reports to its caller: deltas while it runs, then exactly one end.

Every event is a tagged msgspec Struct (`msgspec.to_builtins(event)` gives a dict with a `type`
field), so the Neovim host can forward events unchanged. Order of delivery for one request:
any number of `TextDelta` / `ReasoningDelta` / `ToolCallDelta` / `Retrying` / `StreamWarning`,
then exactly one `Done` or `StreamError`, after which nothing more arrives.
"""

from __future__ import annotations

from typing import Literal

import msgspec


class ToolCall(msgspec.Struct, frozen=True):
    """One complete tool call; `arguments` is the raw JSON text exactly as the model sent it.

    Parsing and repairing the arguments belongs to the formats layer, not here.
    `index` is the call's position in the response (0, 1, ...), in the order the model made them.
    `id` is the provider's call id, or `call_<index>` when the provider never sent one.
    """

    index: int
    id: str
    name: str
    arguments: str


class ThinkingBlock(msgspec.Struct, frozen=True, omit_defaults=True):
    """A block of reasoning as a provider signed it (Anthropic's `thinking`, with its
    `signature`), or, redacted, only its encrypted `data`: a tool turn must send it back
    unchanged, before the calls it led to, or the provider refuses the turn."""

    thinking: str = ""
    signature: str = ""
    data: str = ""


class Usage(msgspec.Struct, frozen=True):
    """Token counts and cost as the provider reported them (OpenRouter's cost is in USD).
    `prompt_tokens` includes the `cached_tokens` read from the provider's prompt cache and the
    `cache_write_tokens` written to it."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None


class TextDelta(msgspec.Struct, frozen=True, tag="text", tag_field="type"):
    """A piece of the answer text."""

    text: str


class ReasoningDelta(msgspec.Struct, frozen=True, tag="reasoning", tag_field="type"):
    """A piece of the model's reasoning (thinking) text."""

    text: str


class ToolCallDelta(msgspec.Struct, frozen=True, tag="tool_call", tag_field="type"):
    """Progress of one tool call: its name once known, the new argument text, the length so far."""

    index: int
    id: str
    name: str
    arguments_delta: str
    arguments_length: int


class Retrying(msgspec.Struct, frozen=True, tag="retrying", tag_field="type"):
    """The request failed before any output and will be sent again after `delay` seconds."""

    attempt: int
    max_attempts: int
    delay: float
    reason: str


class StreamWarning(msgspec.Struct, frozen=True, tag="warning", tag_field="type"):
    """Part of the stream could not be read (a field of an unexpected type, a chunk that is not
    JSON) and was skipped; the rest of the answer goes on. Said once per kind of problem."""

    message: str


class Done(msgspec.Struct, frozen=True, tag="done", tag_field="type"):
    """The response ended normally."""

    text: str
    reasoning: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage | None
    finish_reason: str | None
    model: str | None
    attempts: int
    duration: float
    # Seconds from the request's start to its first text, reasoning or tool-call delta.
    first_token: float | None = None
    # The reasoning as signed blocks, when the provider signs it (Anthropic).
    thinking: tuple[ThinkingBlock, ...] = ()


ErrorKind = Literal[
    "cancelled",  # the caller cancelled; partial output kept
    "auth",  # 401/403: key missing, wrong or not allowed
    "payment",  # 402: out of credits
    "bad_request",  # other 4xx: the request itself is wrong (model name, size, parameters)
    "rate_limited",  # 429 after the retries (or a Retry-After too long to wait)
    "server",  # 5xx after the retries
    "connection",  # could not connect, or the connection broke
    "timeout",  # connect timeout, or the idle or overall time limit
    "provider",  # an error object inside the stream, or finish_reason "error"
    "protocol",  # the server did not speak the streaming protocol
    "too_large",  # the answer outgrew MAX_ANSWER_CHARS: reading stopped, partial output kept
]


class StreamError(msgspec.Struct, frozen=True, tag="error", tag_field="type"):
    """The response ended abnormally; whatever arrived before the end is kept.

    `message` is written for the user (what happened, what to do next) and never contains the
    API key. `provider_error` is the provider's own error object or body, verbatim (key redacted).
    `after_first_token` tells whether any output had been delivered (then no retry was made).
    """

    kind: ErrorKind
    message: str
    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    status: int | None = None
    provider_error: str | None = None
    retry_after: float | None = None
    after_first_token: bool = False
    attempts: int = 1
    duration: float = 0.0
    finish_reason: str | None = None
    first_token: float | None = None


StreamEvent = (
    TextDelta | ReasoningDelta | ToolCallDelta | Retrying | StreamWarning | Done | StreamError
)
Terminal = Done | StreamError
