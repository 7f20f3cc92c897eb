"""A file's lines, indexed lazily once per content and reused by every edit and tier.

Built for speed on large files: splitting and offsets use C-level string operations, words are
looked up with `str.find` on the raw content, and whole-file per-line work happens only when an
edit has no word to anchor on. Not for matching logic: this module only knows where lines are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import accumulate

Normalizer = Callable[[str], str]


class LineIndex:
    """Lines of one content string (split on LF only; CR before LF belongs to the line ending)."""

    def __init__(self, content: str) -> None:
        self.content = content
        self._texts: list[str] | None = None
        self._raw: list[str] | None = None  # split on LF, CRs kept: for offsets
        self._cum: list[int] | None = None
        self._starts: dict[int, int] = {}
        self._crlf: bool = "\r\n" in content
        self._normalized: dict[str, list[str]] = {}
        self._positions: dict[str, dict[str, list[int]]] = {}
        self._word_lines: dict[str, list[int]] = {}
        self._word_counts: dict[str, int] = {}

    @property
    def texts(self) -> list[str]:
        """Each line's text without its line ending."""
        if self._texts is None:
            parts = self.content.split("\n")
            self._raw = parts
            if parts and parts[-1] == "":
                parts = parts[:-1]
            if self._crlf:
                # Only a CR right before LF is part of the ending; the last line has no LF.
                last = len(parts) - 1
                lf_ended = self.content.endswith("\n")
                parts = [
                    p[:-1] if p.endswith("\r") and (i < last or lf_ended) else p
                    for i, p in enumerate(parts)
                ]
            self._texts = parts
        return self._texts

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def has_crlf(self) -> bool:
        return self._crlf

    @property
    def eol(self) -> str:
        """The file's usual line ending: CRLF when at least half of its line breaks are CRLF."""
        if not self._crlf:
            return "\n"
        return "\r\n" if self.content.count("\r\n") * 2 >= self.content.count("\n") else "\n"

    def eol_at(self, line: int) -> str:
        """The ending of one line ('' for a last line without a newline)."""
        start = self.start(line) + len(self.texts[line])
        if self.content.startswith("\r\n", start):
            return "\r\n"
        return "\n" if self.content.startswith("\n", start) else ""

    def start(self, line: int) -> int:
        """Offset of the first character of `line` (0-based)."""
        if self._cum is not None:
            return self._cum[line] + line
        found = self._starts.get(line)
        if found is None:
            if self._raw is None:
                self.texts  # noqa: B018 - splits the content once, for both uses
            assert self._raw is not None
            if len(self._starts) >= 8:  # many lookups (replace_all): build the whole table
                self._cum = list(accumulate(map(len, self._raw), initial=0))
                return self._cum[line] + line
            found = sum(map(len, self._raw[:line])) + line
            self._starts[line] = found
        return found

    def line_bounds(self, offset: int) -> tuple[int, int, str]:
        """(start, end of text, ending) of the line holding `offset`, without indexing lines."""
        content = self.content
        start = content.rfind("\n", 0, offset) + 1
        newline = content.find("\n", offset)
        if newline < 0:
            return start, len(content), ""
        if newline > start and content[newline - 1] == "\r":
            return start, newline - 1, "\r\n"
        return start, newline, "\n"

    def line_of(self, offset: int) -> int:
        """0-based line number containing the character at `offset`."""
        return self.content.count("\n", 0, offset)

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Character span of lines first..last (inclusive), without the last line's ending."""
        return self.start(first), self.start(last) + len(self.texts[last])

    def span_with_eol(self, first: int, last: int) -> tuple[int, int]:
        """Character span of lines first..last (inclusive), including the last line's ending."""
        start, end = self.span(first, last)
        return start, end + len(self.eol_at(last))

    def word_count(self, word: str) -> int:
        """How often `word` occurs in the content (as a substring; a rarity estimate)."""
        count = self._word_counts.get(word)
        if count is None:
            count = self.content.count(word)
            self._word_counts[word] = count
        return count

    def word_lines(self, word: str) -> list[int]:
        """Sorted 0-based numbers of the lines containing `word`."""
        lines = self._word_lines.get(word)
        if lines is None:
            lines = []
            content = self.content
            at = content.find(word)
            offset = line = 0
            while at >= 0:
                line += content.count("\n", offset, at)
                offset = at
                if not lines or lines[-1] != line:
                    lines.append(line)
                at = content.find(word, at + 1)
            self._word_lines[word] = lines
        return lines

    def has_line(self, text: str) -> bool:
        """Whether some line of the content is exactly `text`."""
        pattern = r"(?m)^" + re.escape(text) + r"\r?$"
        return re.search(pattern, self.content) is not None

    def normalized(self, name: str, fn: Normalizer) -> list[str]:
        """Every line passed through `fn`, computed once per normaliser name (whole-file work:
        used only when `old` has no word to anchor on)."""
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

    def indent_style(self, first: int, last: int) -> str:
        """Tab or space: what indented lines in the range mostly start with; the whole file's
        habit when the range has no indented line."""
        tabs = spaces = 0
        for text in self.texts[first : last + 1]:
            if text.startswith("\t"):
                tabs += 1
            elif text.startswith(" ") and text.strip():
                spaces += 1
        if tabs == spaces == 0:
            tabs, spaces = self.content.count("\n\t"), self.content.count("\n ")
        if tabs == spaces == 0:
            return ""
        return "\t" if tabs > spaces else " "
