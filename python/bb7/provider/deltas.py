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
No network and no threads here: `StreamAccumulator` is fed by one thread at a time.
"""

from __future__ import annotations

import msgspec

from bb7.provider.events import ReasoningDelta, TextDelta, ToolCall, ToolCallDelta, Usage
from bb7.provider.wire import Chunk, ContentPiece, Delta, ToolCallFragment, WireUsage

DeltaEvent = TextDelta | ReasoningDelta | ToolCallDelta


class _CallBuilder:
    __slots__ = ("arguments", "id", "length", "name", "seq")

    def __init__(self, seq: int) -> None:
        self.seq = seq
        self.id = ""
        self.name = ""
        self.arguments: list[str] = []
        self.length = 0


class StreamAccumulator:
    """Accumulates one response; `apply(chunk)` returns the events that chunk produced."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[_CallBuilder] = []
        self._by_index: dict[int, _CallBuilder] = {}
        self.usage: Usage | None = None
        # Characters of text, reasoning and tool-call arguments so far: what the answer holds.
        self.size = 0
        self.finish_reason: str | None = None
        self.model: str | None = None
        # True once any text, reasoning or tool-call event was produced: from then on a failed
        # request must not be retried (the caller has already shown output).
        self.emitted = False

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
                arguments="".join(call.arguments),
            )
            for position, call in enumerate(self._calls)
        )

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
                call.arguments.append(piece)
                call.length += len(piece)
                self.size += len(piece)
        return ToolCallDelta(
            index=call.seq,
            id=call.id,
            name=call.name,
            arguments_delta=piece,
            arguments_length=call.length,
        )

    def _call_for(self, fragment: ToolCallFragment) -> _CallBuilder:
        if fragment.index is None:
            # No index: match by id, else continue the latest call, else start one.
            if fragment.id:
                for call in self._calls:
                    if call.id == fragment.id:
                        return call
                return self._new_call(None)
            return self._calls[-1] if self._calls else self._new_call(None)
        known = self._by_index.get(fragment.index)
        if known is None or (fragment.id and known.id and fragment.id != known.id):
            return self._new_call(fragment.index)
        return known

    def _new_call(self, provider_index: int | None) -> _CallBuilder:
        call = _CallBuilder(len(self._calls))
        self._calls.append(call)
        if provider_index is not None:
            self._by_index[provider_index] = call
        return call


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
