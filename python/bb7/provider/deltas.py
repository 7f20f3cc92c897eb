"""Turning decoded stream chunks into caller events and the accumulated response.

Providers disagree on details, so the rules here are lenient where it is safe:
- reasoning arrives as `reasoning`, `reasoning_content` or `reasoning_details` (OpenRouter sends
  both `reasoning` and the same text in `reasoning_details`: the details are used only when
  neither string field is present, so nothing is doubled), or as `thinking` parts of a
  `content` list (Mistral), whose `text` parts are answer text;
- tool calls are keyed by `index`; the id may be missing on the first fragment, repeated on
  later ones, or never sent; a fragment carrying a different id at an index already in use
  starts a new call (some servers send every parallel call with index 0);
- usage may come in any chunk (or only in Groq's `x_groq`); the last one wins.
`Answer` is the response so far, as every API's reader keeps it (text, reasoning, tool calls,
usage, finish), and `Read` what one payload did to it; `StreamAccumulator` reads Chat
Completions chunks into it, `bb7.provider.anthropic_deltas` Anthropic's events. No network and
no threads here: an answer is fed by one thread at a time.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import msgspec

from bb7.provider.events import (
    ReasoningDelta,
    TextDelta,
    ThinkingBlock,
    ToolCall,
    ToolCallDelta,
    Usage,
)
from bb7.provider.lenient import decode_chunk
from bb7.provider.wire import Chunk, ContentPiece, Delta, ToolCallFragment, WireUsage

DeltaEvent = TextDelta | ReasoningDelta | ToolCallDelta
# How a payload ended the stream: "complete", "error_finish" (an error with no details), or
# the provider's error object (its JSON, verbatim).
End = Literal["complete", "error_finish"] | bytes


class Read(NamedTuple):
    """What one payload did: the events it produced, what of it had to be skipped (one phrase
    each, for a warning), and whether it ended the stream."""

    events: list[DeltaEvent]
    skipped: tuple[str, ...] = ()
    end: End | None = None


class CallBuilder:
    """A tool call being streamed: `arguments` in pieces; `fallback` stands for them when no
    piece comes (Anthropic's whole `input`)."""

    __slots__ = ("arguments", "fallback", "id", "length", "name", "seq")

    def __init__(self, seq: int, id: str = "", name: str = "") -> None:
        self.seq = seq
        self.id = id
        self.name = name
        self.arguments: list[str] = []
        self.length = 0
        self.fallback = ""

    def add(self, piece: str) -> ToolCallDelta:
        self.arguments.append(piece)
        self.length += len(piece)
        return ToolCallDelta(self.seq, self.id, self.name, piece, self.length)


class Answer:
    """The response so far, whichever API streams it; `read(payload)` is the API's."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[CallBuilder] = []
        self.usage: Usage | None = None
        # Characters of text, reasoning and tool-call arguments so far: what the answer holds.
        self.size = 0
        self.finish_reason: str | None = None
        self.model: str | None = None
        # True once any text, reasoning or tool-call event was produced: from then on a failed
        # request must not be retried (the caller has already shown output).
        self.emitted = False

    def read(self, payload: bytes) -> Read:
        raise NotImplementedError

    @property
    def text(self) -> str:
        return "".join(self._text)

    @property
    def reasoning(self) -> str:
        return "".join(self._reasoning)

    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Calls in the order they started streaming (the model's order)."""
        return tuple(
            ToolCall(
                index=position,
                id=call.id or f"call_{position}",
                name=call.name,
                arguments="".join(call.arguments) or call.fallback,
            )
            for position, call in enumerate(self._calls)
        )

    def thinking(self) -> tuple[ThinkingBlock, ...]:
        """The reasoning as signed blocks (none where the API does not sign it)."""
        return ()

    def _new_call(self, id: str = "", name: str = "") -> CallBuilder:
        call = CallBuilder(len(self._calls), id, name)
        self._calls.append(call)
        return call


class StreamAccumulator(Answer):
    """A Chat Completions answer; `apply(chunk)` returns the events that chunk produced."""

    def __init__(self) -> None:
        super().__init__()
        self._by_index: dict[int, CallBuilder] = {}

    def read(self, payload: bytes) -> Read:
        """One SSE payload: `[DONE]`, a chunk (or several joined by single newlines)."""
        if payload.strip() == b"[DONE]":
            return Read([], end="complete")
        decoded = decode_chunk(payload)
        chunk = decoded.chunk
        if chunk is None and b"\n" in payload:
            # Events separated by single newlines arrive joined; take them line by line.
            events: list[DeltaEvent] = []
            skipped: list[str] = []
            for line in payload.split(b"\n"):
                if line.strip():
                    read = self.read(line)
                    events += read.events
                    skipped += read.skipped
                    if read.end is not None:
                        return Read(events, tuple(skipped), read.end)
            return Read(events, tuple(skipped))
        if chunk is None:
            return Read([], decoded.skipped)
        # Usage and text that came with an error object are kept with the error.
        events = self.apply(chunk)
        error = bytes(chunk.error)
        end: End | None = None
        if error and error != b"null":
            end = error
        elif self.finish_reason == "error":
            end = "error_finish"
        return Read(events, decoded.skipped, end)

    def apply(self, chunk: Chunk) -> list[DeltaEvent]:
        if chunk.model and self.model is None:
            self.model = chunk.model
        usage = chunk.usage
        if usage is None and chunk.x_groq is not None:
            usage = chunk.x_groq.usage
        if usage is not None:
            self.usage = _usage(usage)
        events: list[DeltaEvent] = []
        for choice in chunk.choices or ():
            if choice.index != 0:
                continue  # we always ask for one choice
            delta = choice.delta if choice.delta is not None else choice.message
            if delta is not None:
                self._delta(delta, events)
            if choice.finish_reason:
                self.finish_reason = choice.finish_reason
        if events:
            self.emitted = True
        return events

    def _delta(self, delta: Delta, events: list[DeltaEvent]) -> None:
        text, thinking = _content(delta.content)
        reasoning = delta.reasoning or delta.reasoning_content or thinking
        if not reasoning and delta.reasoning_details:
            reasoning = "".join(
                detail.text or detail.summary or "" for detail in delta.reasoning_details
            )
        if reasoning:
            self.size += len(reasoning)
            self._reasoning.append(reasoning)
            events.append(ReasoningDelta(reasoning))
        if text:
            self.size += len(text)
            self._text.append(text)
            events.append(TextDelta(text))
        for fragment in delta.tool_calls or ():
            events.append(self._fragment(fragment))

    def _fragment(self, fragment: ToolCallFragment) -> ToolCallDelta:
        call = self._call_for(fragment)
        if fragment.id and not call.id:
            call.id = fragment.id
        function = fragment.function
        piece = ""
        if function is not None:
            name = function.name
            # Names normally arrive whole in the first fragment; a repeat is ignored, while a
            # different piece is appended (servers that stream the name in parts).
            if name and name != call.name:
                call.name = call.name + name if call.name else name
            arguments = function.arguments
            if isinstance(arguments, dict):
                piece = msgspec.json.encode(arguments).decode()
            elif arguments:
                piece = arguments
            if piece:
                self.size += len(piece)
                return call.add(piece)
        return ToolCallDelta(call.seq, call.id, call.name, "", call.length)

    def _call_for(self, fragment: ToolCallFragment) -> CallBuilder:
        if fragment.index is None:
            # No index: match by id, else continue the latest call, else start one.
            if fragment.id:
                for call in self._calls:
                    if call.id == fragment.id:
                        return call
                return self._new_call()
            return self._calls[-1] if self._calls else self._new_call()
        known = self._by_index.get(fragment.index)
        if known is None or (fragment.id and known.id and fragment.id != known.id):
            known = self._by_index[fragment.index] = self._new_call()
        return known


def _content(content: str | list[ContentPiece] | None) -> tuple[str, str]:
    """(answer text, reasoning) of a `content` field, a string or a list of parts."""
    if content is None or isinstance(content, str):
        return content or "", ""
    text: list[str] = []
    thinking: list[str] = []
    for piece in content:
        if piece.type == "thinking":
            inner = piece.thinking
            if isinstance(inner, str):
                thinking.append(inner)
            elif inner is not None:
                thinking.append(_content(inner)[0])
        elif piece.type in (None, "text") and piece.text:
            text.append(piece.text)
    return "".join(text), "".join(thinking)


def _usage(wire: WireUsage) -> Usage:
    prompt_details = wire.prompt_tokens_details
    completion_details = wire.completion_tokens_details
    cached = wire.cached_tokens
    if cached is None and prompt_details is not None:
        cached = prompt_details.cached_tokens
    if cached is None:
        cached = wire.prompt_cache_hit_tokens
    written = prompt_details.cache_write_tokens if prompt_details is not None else None
    reasoning = completion_details.reasoning_tokens if completion_details is not None else None
    prompt = wire.prompt_tokens or 0
    completion = wire.completion_tokens or 0
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=wire.total_tokens or prompt + completion,
        cached_tokens=cached or 0,
        cache_write_tokens=written or 0,
        reasoning_tokens=reasoning or 0,
        cost=wire.cost,
    )
