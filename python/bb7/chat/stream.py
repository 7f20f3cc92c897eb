"""A send's stream forwarding: the client's stream events (`bb7.provider.events`) as send events
(`bb7.chat.events`), in the client's worker thread.

Text and reasoning pass on as `Chunk` and `Reasoning`; a tool call in pieces becomes
`ToolProgress` with the first path its arguments name, found while they stream; in text-block
mode each block becomes a `BlockStatus` as it closes. Not for: applying the answer (the send
loop, `bb7.chat.send`) or the host's translation to wire events.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec

from bb7.chat import events as ev
from bb7.formats.blocks import BlockError
from bb7.formats.stream import TextItem, TextParser
from bb7.provider import events as llm

_PATH_ARGUMENT = re.compile(r'"path"\s*:\s*"((?:[^"\\]|\\.)*)"')


class Forward:
    """Turns the client's stream events into send events, in the client's thread."""

    def __init__(self, emit: Callable[[ev.SendEvent], None], *, text_blocks: bool) -> None:
        self.emit = emit
        self.parser = TextParser() if text_blocks else None
        self.arguments: dict[int, str] = {}
        self.paths: dict[int, str] = {}

    def __call__(self, event: llm.StreamEvent) -> None:
        if isinstance(event, llm.TextDelta):
            self.emit(ev.Chunk(event.text))
            if self.parser is not None:
                self._blocks(self.parser.feed(event.text))
        elif isinstance(event, llm.ReasoningDelta):
            self.emit(ev.Reasoning(event.text))
        elif isinstance(event, llm.ToolCallDelta):
            self.emit(
                ev.ToolProgress(
                    index=event.index,
                    name=event.name,
                    path=self._path(event),
                    arguments_length=event.arguments_length,
                    arguments_delta=event.arguments_delta,
                )
            )
        elif isinstance(event, llm.Retrying):
            self.emit(event)
        elif isinstance(event, llm.StreamWarning):
            self.emit(ev.Notice("stream", event.message))

    def close(self) -> None:
        """The stream ended: the last text block, if one is still open."""
        if self.parser is not None:
            self._blocks(self.parser.close())

    def _path(self, event: llm.ToolCallDelta) -> str:
        """The first path the call's arguments name; searched only until found."""
        if event.index in self.paths:
            return self.paths[event.index]
        text = self.arguments.get(event.index, "") + event.arguments_delta
        found = _PATH_ARGUMENT.search(text)
        if found is None:
            self.arguments[event.index] = text
            return ""
        self.arguments.pop(event.index, None)
        try:
            path = msgspec.json.decode(f'"{found.group(1)}"'.encode(), type=str)
        except msgspec.DecodeError:
            path = found.group(1)
        self.paths[event.index] = path
        return path

    def _blocks(self, items: list[TextItem]) -> None:
        for item in items:
            message = item.message if isinstance(item, BlockError) else ""
            self.emit(ev.BlockStatus(item.index, item.path, item.line, not message, message))
