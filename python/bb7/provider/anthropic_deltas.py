"""Turning Anthropic's stream events into bb7's stream events and the accumulated response.

The same events come out as from a Chat Completions stream (`bb7.llm.deltas`), so nothing above
the client knows which API answered:
- `text` blocks are the answer, `thinking` blocks the reasoning; a block that follows blocks of
  another kind starts a new paragraph, so text before and after a tool call does not run
  together;
- a `tool_use` block is one tool call: its arguments are the `input_json_delta` pieces joined
  (the `input` of its start when no piece came), its index the call's position in the answer;
- thinking blocks are also kept whole, with their signatures, and redacted ones with their
  data (`ThinkingBlock`): a tool turn must send them back unchanged;
- usage is `message_start`'s, updated by `message_delta`'s cumulative counts; the prompt's
  tokens are the uncached input plus the cache reads plus the cache writes;
- the stop reason becomes the finish reason in Chat Completions' words (`end_turn`: stop,
  `max_tokens`: length, `tool_use`: tool_calls, `refusal`: content_filter);
- `message_stop` ends the response (`stopped`); an `error` event ends it with that `error`;
- a whole message (a server that ignored `stream: true` answers one JSON object) is read as
  the events that would have streamed it, and ends the response.
An event type this module does not know is skipped without a word (Anthropic may add some); a
block type it does not know is skipped and named in `skipped`. No network, no threads.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from bb7.provider.anthropic_wire import (
    EVENT_DECODER,
    Block,
    Delta,
    Event,
    StartedMessage,
    WireUsage,
)
from bb7.provider.deltas import Answer, CallBuilder, DeltaEvent, Read
from bb7.provider.events import ReasoningDelta, TextDelta, ThinkingBlock, ToolCallDelta, Usage
from bb7.provider.lenient import decode_lenient

FINISH_REASONS: dict[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
_PARAGRAPH = "\n\n"


class _Thinking:
    __slots__ = ("data", "signature", "text")

    def __init__(self, block: Block) -> None:
        self.text: list[str] = []
        self.signature = block.signature or ""
        self.data = block.data or ""


_Open = Literal["text", "thinking", "redacted", "tool_use", "skipped"]
_PROSE: frozenset[_Open] = frozenset(("text", "thinking"))


class MessagesAccumulator(Answer):
    """An Anthropic Messages answer; `apply(event)` returns the events that event produced."""

    def __init__(self) -> None:
        super().__init__()
        self._thinking: list[_Thinking] = []
        # The blocks by their stream index; the kinds (text, thinking) that other blocks
        # interrupted since their last piece: their next piece starts a paragraph.
        self._open: dict[int, CallBuilder | _Thinking | None] = {}
        self._broken: set[_Open] = set()
        self._started = WireUsage()
        # Block types skipped since the last `read`.
        self._skipped: list[str] = []

    def read(self, payload: bytes) -> Read:
        """One SSE payload: an event (`message_stop` ends the answer, `error` ends it so)."""
        decoded = decode_lenient(payload, EVENT_DECODER)
        event = decoded[0]
        if event is None:
            return Read([], decoded[1])
        events = self._whole(event) if event.type == "message" else self.apply(event)
        skipped = (*decoded[1], *self._skipped)
        self._skipped.clear()
        if event.type in ("message_stop", "message"):
            return Read(events, skipped, "complete")
        if event.type == "error":
            # The error object verbatim, as the provider's error words are read from it.
            error = msgspec.json.decode(payload).get("error") or {}
            return Read(events, skipped, msgspec.json.encode(error))
        return Read(events, skipped)

    def apply(self, event: Event) -> list[DeltaEvent]:
        events: list[DeltaEvent] = []
        kind = event.type
        if kind == "content_block_delta" and event.delta is not None:
            self._block_delta(event.index, event.delta, events)
        elif kind == "content_block_start" and event.content_block is not None:
            self._block_start(event.index, event.content_block, events)
        elif kind == "message_start" and event.message is not None:
            self.model = self.model or event.message.model
            if event.message.usage is not None:
                self._started = event.message.usage
                self.usage = _usage(self._started, WireUsage())
        elif kind == "message_delta":
            if event.delta is not None and event.delta.stop_reason:
                reason = event.delta.stop_reason
                self.finish_reason = FINISH_REASONS.get(reason, reason)
            if event.usage is not None:
                self.usage = _usage(self._started, event.usage)
        if events:
            self.emitted = True
        return events

    def _whole(self, message: Event) -> list[DeltaEvent]:
        """A whole answer, as the events that stream one: each block opened with what it
        holds (a tool call's input as one piece of its JSON), then the stop reason."""
        started = StartedMessage(model=message.model, usage=message.usage)
        events = self.apply(Event("message_start", message=started))
        for index, block in enumerate(message.content or ()):
            if block.type != "tool_use":
                events += self.apply(Event("content_block_start", index=index, content_block=block))
                continue
            opened = msgspec.structs.replace(block, input={})
            events += self.apply(Event("content_block_start", index=index, content_block=opened))
            arguments = msgspec.json.encode(block.input or {}).decode()
            piece = Delta(type="input_json_delta", partial_json=arguments)
            events += self.apply(Event("content_block_delta", index=index, delta=piece))
        events += self.apply(Event("message_delta", delta=Delta(stop_reason=message.stop_reason)))
        return events

    def _block_start(self, index: int | None, block: Block, events: list[DeltaEvent]) -> None:
        kind: _Open
        state: CallBuilder | _Thinking | None = None
        if block.type == "text":
            kind = "text"
        elif block.type in ("thinking", "redacted_thinking"):
            kind = "thinking" if block.type == "thinking" else "redacted"
            state = _Thinking(block)
            self._thinking.append(state)
        elif block.type == "tool_use":
            kind = "tool_use"
            state = self._new_call(block.id or "", block.name or "")
            state.fallback = msgspec.json.encode(block.input or {}).decode()
            events.append(ToolCallDelta(state.seq, state.id, state.name, "", 0))
        else:
            kind = "skipped"
            self._skipped.append(f"a content block of type {block.type or 'none'!r}")
        if index is not None:
            self._open[index] = state
        self._broken |= _PROSE - {kind}
        if kind in _PROSE:
            # A start that carries text (the docs show it empty) counts as its first delta.
            first = block.text if kind == "text" else block.thinking
            if first:
                if isinstance(state, _Thinking):
                    state.text.append(first)
                self._add(kind, first, events)

    def _block_delta(self, index: int | None, delta: Delta, events: list[DeltaEvent]) -> None:
        state = self._open.get(-1 if index is None else index)
        if delta.type == "text_delta" and delta.text:
            self._add("text", delta.text, events)
        elif delta.type == "thinking_delta" and delta.thinking:
            if isinstance(state, _Thinking):
                state.text.append(delta.thinking)
            self._add("thinking", delta.thinking, events)
        elif delta.type == "signature_delta" and delta.signature:
            if isinstance(state, _Thinking):
                state.signature += delta.signature
        elif (
            delta.type == "input_json_delta"
            and delta.partial_json
            and isinstance(state, CallBuilder)
        ):
            self.size += len(delta.partial_json)
            events.append(state.add(delta.partial_json))

    def _add(self, kind: _Open, piece: str, events: list[DeltaEvent]) -> None:
        """Answer text or reasoning, after a paragraph break when other blocks came between."""
        into = self._text if kind == "text" else self._reasoning
        if kind in self._broken:
            self._broken.discard(kind)
            if into and not into[-1].endswith("\n"):
                piece = _PARAGRAPH + piece
        into.append(piece)
        self.size += len(piece)
        events.append(TextDelta(piece) if kind == "text" else ReasoningDelta(piece))

    def thinking(self) -> tuple[ThinkingBlock, ...]:
        """The thinking blocks, whole, in order: what a tool turn sends back."""
        return tuple(
            ThinkingBlock(thinking="".join(block.text), signature=block.signature, data=block.data)
            for block in self._thinking
        )


def _usage(start: WireUsage, delta: WireUsage) -> Usage:
    """`message_start`'s counts updated by `message_delta`'s cumulative ones."""
    fresh = _latest(delta.input_tokens, start.input_tokens)
    read = _latest(delta.cache_read_input_tokens, start.cache_read_input_tokens)
    written = _latest(delta.cache_creation_input_tokens, start.cache_creation_input_tokens)
    output = _latest(delta.output_tokens, start.output_tokens)
    prompt = fresh + read + written
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=output,
        total_tokens=prompt + output,
        cached_tokens=read,
        cache_write_tokens=written,
    )


def _latest(later: int | None, earlier: int | None) -> int:
    return later if later is not None else (earlier or 0)
