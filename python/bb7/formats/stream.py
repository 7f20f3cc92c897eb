"""Incremental parsing of a response's text blocks: feed chunks, get each block once it closes.

Both text formats (SEARCH/REPLACE and EDIT blocks) may be mixed in one response; each block is
parsed by its format's state machine. The path of a block is the nearest non-blank line before
it, skipping a code fence; a block with no line of its own right after another block edits the
same file. Malformed, unclosed and stray-marker problems come out as `BlockError`s with line
numbers, never silently dropped. `parse_text` is the same parser fed in one piece.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

from bb7.formats.blocks import BlockError, BlockParser, clean_path, is_fence, marker
from bb7.formats.edit_blocks import EditBlock, EditBlockParser
from bb7.formats.search_replace import SearchReplaceBlock, SearchReplaceParser

TextItem = SearchReplaceBlock | EditBlock | BlockError
_PARSERS: tuple[type[BlockParser], ...] = (SearchReplaceParser, EditBlockParser)


class TextParser:
    """Feed text in chunks of any size; each call returns the items completed so far."""

    def __init__(self) -> None:
        self._pending = ""
        self._number = 0  # 1-based number of the last complete line
        self._block: BlockParser | None = None
        self._candidate: str | None = None  # nearest path-like line since the last block
        self._previous_path: str | None = None
        self._count = 0  # blocks started so far
        self._fence = ""  # the code fence line right before a block start, if any

    def feed(self, chunk: str) -> list[TextItem]:
        self._pending += chunk
        if "\n" not in chunk:
            return []
        *lines, self._pending = self._pending.split("\n")
        return [item for line in lines for item in self._line(line)]

    def close(self) -> list[TextItem]:
        """The end of the response: the last line, and any block left open."""
        items = list(self._line(self._pending)) if self._pending else []
        self._pending = ""
        if self._block is not None:
            items.extend(cast("list[TextItem]", self._block.unclosed(self._number)))
            self._block = None
        return items

    def _line(self, text: str) -> Iterator[TextItem]:
        self._number += 1
        text = text.removesuffix("\r")
        if self._block is not None:
            step = self._block.feed(text, self._number)
            yield from cast("list[TextItem]", step.items)
            if step.done:
                self._block = None
            if step.consumed:
                return
        for parser in _PARSERS:
            if parser.is_start(text):
                self._count += 1
                self._block = parser(self._count, self._take_path(), self._number)
                self._block.fence, self._fence = self._fence, ""
                return
        if is_fence(text):
            self._fence = text.strip()
        elif marker(text):
            self._fence = ""
        if any(parser.is_stray(text) for parser in _PARSERS):
            yield BlockError(
                index=None,
                path="",
                line=self._number,
                block_line=None,
                message=(
                    f"Line {self._number} ({marker(text)}) is a block marker outside any block: "
                    "a block's opening marker is missing or misspelt. Send that block again, "
                    "complete."
                ),
            )
        elif marker(text) and not is_fence(text):
            self._candidate = clean_path(text)

    def _take_path(self) -> str:
        """The path for a block starting now ("" when there is none; the block then fails)."""
        path = self._candidate if self._candidate is not None else self._previous_path
        self._candidate = None
        self._previous_path = path
        return path or ""


def parse_text(text: str) -> list[TextItem]:
    """Every block and block error of `text`, in order."""
    parser = TextParser()
    return [*parser.feed(text), *parser.close()]
