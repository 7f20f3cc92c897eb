"""A file's lines, indexed once per content and reused by every edit and tier that searches it.

Not for matching logic: this module only knows where lines start and end and how to look a
normalised line up quickly.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

Normalizer = Callable[[str], str]


class LineIndex:
    """Lines of one content string (split on LF only; CR before LF belongs to the line ending)."""

    def __init__(self, content: str) -> None:
        self.content = content
        texts: list[str] = []
        eols: list[str] = []
        starts: list[int] = []
        pos = 0
        size = len(content)
        while pos < size:
            nl = content.find("\n", pos)
            if nl < 0:
                texts.append(content[pos:])
                eols.append("")
                starts.append(pos)
                break
            end = nl - 1 if nl > pos and content[nl - 1] == "\r" else nl
            texts.append(content[pos:end])
            eols.append(content[end : nl + 1])
            starts.append(pos)
            pos = nl + 1
        self.texts = texts
        self.eols = eols
        self.starts = starts
        crlf = sum(1 for e in eols if e == "\r\n")
        self.eol = "\r\n" if crlf and crlf * 2 >= sum(1 for e in eols if e) else "\n"
        self._normalized: dict[str, list[str]] = {}
        self._positions: dict[str, dict[str, list[int]]] = {}
        self._nonblank: dict[str, tuple[list[int], dict[str, list[int]]]] = {}

    def __len__(self) -> int:
        return len(self.texts)

    def normalized(self, name: str, fn: Normalizer) -> list[str]:
        """Every line passed through `fn`, computed once per normaliser name."""
        lines = self._normalized.get(name)
        if lines is None:
            lines = [fn(t) for t in self.texts]
            self._normalized[name] = lines
        return lines

    def positions(self, name: str, fn: Normalizer) -> dict[str, list[int]]:
        """Map from normalised line to the 0-based line numbers holding it."""
        table = self._positions.get(name)
        if table is None:
            table = {}
            for i, key in enumerate(self.normalized(name, fn)):
                table.setdefault(key, []).append(i)
            self._positions[name] = table
        return table

    def nonblank(self, name: str, fn: Normalizer) -> tuple[list[int], dict[str, list[int]]]:
        """Line numbers of lines non-empty under `fn`, and where each key sits in that list."""
        cached = self._nonblank.get(name)
        if cached is None:
            norm = self.normalized(name, fn)
            lines = [i for i, key in enumerate(norm) if key]
            table: dict[str, list[int]] = {}
            for pos, i in enumerate(lines):
                table.setdefault(norm[i], []).append(pos)
            cached = (lines, table)
            self._nonblank[name] = cached
        return cached

    def line_of(self, offset: int) -> int:
        """0-based line number containing the character at `offset`."""
        return max(0, bisect_right(self.starts, offset) - 1)

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Character span of lines first..last (inclusive), without the last line's ending."""
        return self.starts[first], self.starts[last] + len(self.texts[last])

    def span_with_eol(self, first: int, last: int) -> tuple[int, int]:
        """Character span of lines first..last (inclusive), including the last line's ending."""
        start, end = self.span(first, last)
        return start, end + len(self.eols[last])

    def indent_style(self, first: int = 0, last: int | None = None) -> str:
        """Tab or space: what indented lines in the range mostly start with ('' if none are)."""
        stop = len(self.texts) if last is None else last + 1
        tabs = spaces = 0
        for text in self.texts[first:stop]:
            if text.startswith("\t"):
                tabs += 1
            elif text.startswith(" ") and text.strip():
                spaces += 1
        if tabs == spaces == 0:
            return ""
        return "\t" if tabs > spaces else " "


def split_lines(text: str) -> list[str]:
    """Lines of a model-sent string (LF or CRLF), without endings; a final newline adds no line."""
    text = text.replace("\r\n", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")
