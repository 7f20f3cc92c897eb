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
- `message_stop` ends the response (`stopped`); an `error` event ends it with that `error`.
An event type this module does not know is skipped without a word (Anthropic may add some); a
block type it does not know is skipped and named in `skipped`. No network, no threads.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from bb7.provider.anthropic_wire import EVENT_DECODER, Block, Delta, ErrorDetail, Event, WireUsage
from bb7.provider.events import ReasoningDelta, TextDelta, ToolCall, ToolCallDelta, Usage

DeltaEvent = TextDelta | ReasoningDelta | ToolCallDelta

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


class ThinkingBlock(msgspec.Struct, frozen=True, omit_defaults=True):
    """A thinking block as Anthropic sent it: its text and signature, or, for a redacted
    block, only its encrypted `data`. Passed back unchanged, or Anthropic refuses the turn."""

    thinking: str = ""
    signature: str = ""
    data: str = ""


class _Call:
    __slots__ = ("id", "length", "name", "pieces", "seq", "start_input")

    def __init__(self, seq: int, block: Block) -> None:
        self.seq = seq
        self.id = block.id or ""
        self.name = block.name or ""
        self.pieces: list[str] = []
        self.length = 0
        self.start_input = block.input

    def arguments(self) -> str:
        if self.pieces:
            return "".join(self.pieces)
        return msgspec.json.encode(self.start_input or {}).decode()


class _Thinking:
    __slots__ = ("data", "signature", "text")

    def __init__(self, block: Block) -> None:
        self.text: list[str] = []
        self.signature = block.signature or ""
        self.data = block.data or ""


_Open = Literal["text", "thinking", "redacted", "tool_use", "skipped"]
_PROSE: frozenset[_Open] = frozenset(("text", "thinking"))


class MessagesAccumulator:
    """Accumulates one response; `apply(event)` returns the events that event produced."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[_Call] = []
        self._thinking: list[_Thinking] = []
        # The blocks by their stream index; the kinds (text, thinking) that other blocks
        # interrupted since their last piece: their next piece starts a paragraph.
        self._open: dict[int, tuple[_Open, _Call | _Thinking | None]] = {}
        self._broken: set[_Open] = set()
        self._started = WireUsage()
        self._delta = WireUsage()
        self._has_usage = False
        # Characters of text, reasoning and tool-call arguments so far: what the answer holds.
        self.size = 0
        self.finish_reason: str | None = None
        self.model: str | None = None
        # True once any text, reasoning or tool-call event was produced: from then on a failed
        # request must not be retried (the caller has already shown output).
        self.emitted = False
        self.stopped = False
        self.error: ErrorDetail | None = None
        # Block types skipped since the caller last looked (it empties the list).
        self.skipped: list[str] = []

    # -- reading -------------------------------------------------------------------------------

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
                self._has_usage = True
        elif kind == "message_delta":
            if event.delta is not None and event.delta.stop_reason:
                reason = event.delta.stop_reason
                self.finish_reason = FINISH_REASONS.get(reason, reason)
            if event.usage is not None:
                self._delta = event.usage
                self._has_usage = True
        elif kind == "message_stop":
            self.stopped = True
        elif kind == "error":
            self.error = event.error or ErrorDetail()
        if events:
            self.emitted = True
        return events

    def _block_start(self, index: int | None, block: Block, events: list[DeltaEvent]) -> None:
        kind: _Open
        state: _Call | _Thinking | None = None
        if block.type == "text":
            kind = "text"
        elif block.type in ("thinking", "redacted_thinking"):
            kind = "thinking" if block.type == "thinking" else "redacted"
            state = _Thinking(block)
            self._thinking.append(state)
        elif block.type == "tool_use":
            kind = "tool_use"
            state = _Call(len(self._calls), block)
            self._calls.append(state)
            events.append(ToolCallDelta(state.seq, state.id, state.name, "", 0))
        else:
            kind = "skipped"
            self.skipped.append(f"a content block of type {block.type or 'none'!r}")
        if index is not None:
            self._open[index] = (kind, state)
        self._broken |= _PROSE - {kind}
        if kind in _PROSE:
            # A start that carries text (the docs show it empty) counts as its first delta.
            first = block.text if kind == "text" else block.thinking
            if first:
                if isinstance(state, _Thinking):
                    state.text.append(first)
                self._add(kind, first, events)

    def _block_delta(self, index: int | None, delta: Delta, events: list[DeltaEvent]) -> None:
        kind, state = self._open.get(-1 if index is None else index, ("skipped", None))
        if delta.type == "text_delta" and delta.text:
            self._add("text", delta.text, events)
        elif delta.type == "thinking_delta" and delta.thinking:
            if isinstance(state, _Thinking):
                state.text.append(delta.thinking)
            self._add("thinking", delta.thinking, events)
        elif delta.type == "signature_delta" and delta.signature:
            if isinstance(state, _Thinking):
                state.signature += delta.signature
        elif delta.type == "input_json_delta" and delta.partial_json and kind == "tool_use":
            assert isinstance(state, _Call)
            piece = delta.partial_json
            state.pieces.append(piece)
            state.length += len(piece)
            self.size += len(piece)
            events.append(ToolCallDelta(state.seq, state.id, state.name, piece, state.length))

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

    # -- the response so far -------------------------------------------------------------------

    @property
    def text(self) -> str:
        return "".join(self._text)

    @property
    def reasoning(self) -> str:
        return "".join(self._reasoning)

    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Calls in the order the model made them."""
        return tuple(
            ToolCall(
                index=call.seq,
                id=call.id or f"call_{call.seq}",
                name=call.name,
                arguments=call.arguments(),
            )
            for call in self._calls
        )

    def thinking(self) -> tuple[ThinkingBlock, ...]:
        """The thinking blocks, whole, in order: what a tool turn sends back."""
        return tuple(
            ThinkingBlock(thinking="".join(block.text), signature=block.signature, data=block.data)
            for block in self._thinking
        )

    @property
    def usage(self) -> Usage | None:
        if not self._has_usage:
            return None
        start, delta = self._started, self._delta
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


def decode_event(payload: bytes) -> Event | None:
    """One event's JSON; None when it is not an event at all."""
    try:
        return EVENT_DECODER.decode(payload)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
