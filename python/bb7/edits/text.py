"""A file's lines, indexed lazily once per content and reused by every edit and tier.

Built for speed on large files: splitting and offsets use C-level string operations, words are
looked up with `str.find` on the raw content, and whole-file per-line work happens only when an
edit has no word to anchor on. Not for matching logic: this module only knows where lines are.
"""

from __future__ import annotations

import re
from bisect import bisect_right, insort
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate
from typing import TypeVar, cast, overload

from bb7.edits.indent import width

Normalizer = Callable[[str], str]
T = TypeVar("T")
# Occurrences of a word counted before it counts as common (and is not worth anchoring on).
COUNT_CAP = 64
# Lines walked from an anchor before splitting the whole content is cheaper.
_WALK_MAX = 2000


class LineIndex:
    """Lines of one content string (split on LF only; CR before LF belongs to the line ending).

    `texts` reads single lines and slices near lines it has seen without splitting the file:
    the lines a word was found on (and offsets looked up) become anchors, and a line is read by
    walking from the nearest anchor. Only whole-file work (iterating every line) splits it.
    """

    def __init__(self, content: str) -> None:
        self.content = content
        self._split: list[str] | None = None
        self._raw: list[str] | None = None  # split on LF, CRs kept: for offsets
        self._cum: list[int] | None = None
        self._anchors: dict[int, int] = {0: 0}  # line -> offset of its first character
        self._sorted: list[int] = [0]  # the anchors' lines, in order
        self._count: int | None = None
        self._crlf: bool | None = None
        self._normalized: dict[str, list[str]] = {}
        self._positions: dict[str, dict[str, list[int]]] = {}
        self._word_lines: dict[str, list[int]] = {}
        self._word_hits: dict[str, list[int]] = {}
        self._pattern_hits: dict[tuple[str, int], list[int] | None] = {}
        self._read: dict[int, str] = {}  # lines read one by one
        # Per-edit findings several tiers ask for again (see `memo`).
        self._memo: dict[tuple[object, ...], object] = {}
        self._declared: int | None = 0  # tab widths; 0: not computed yet
        self._aligned: int | None = 0
        self.texts = _Lines(self)

    def all_texts(self) -> list[str]:
        """Every line's text without its line ending (splits the whole content once)."""
        if self._split is None:
            parts = self.content.split("\n")
            self._raw = parts
            if parts and parts[-1] == "":
                parts = parts[:-1]
            if self.has_crlf:
                # Only a CR right before LF is part of the ending; the last line has no LF.
                last = len(parts) - 1
                lf_ended = self.content.endswith("\n")
                parts = [
                    p[:-1] if p.endswith("\r") and (i < last or lf_ended) else p
                    for i, p in enumerate(parts)
                ]
            self._split = parts
        return self._split

    def __len__(self) -> int:
        if self._count is None:
            content = self.content
            self._count = content.count("\n") + (0 if not content or content[-1] == "\n" else 1)
        return self._count

    @property
    def has_crlf(self) -> bool:
        if self._crlf is None:
            # A lone-character search is a memchr: most files have no CR at all.
            self._crlf = "\r" in self.content and "\r\n" in self.content
        return self._crlf

    @property
    def eol(self) -> str:
        """The file's usual line ending: CRLF when at least half of its line breaks are CRLF."""
        if not self.has_crlf:
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
        found = self._anchors.get(line)
        if found is not None:
            return found
        if self._raw is not None and len(self._anchors) >= 64:
            # Many lookups on a split file (replace_all): one table for all.
            self._cum = list(accumulate(map(len, self._raw), initial=0))
            return self._cum[line] + line
        return self._walk(line)

    def _walk(self, line: int) -> int:
        """Offset of `line`, found from the nearest anchor with C-level find/rfind."""
        nearest = self._sorted[max(bisect_right(self._sorted, line) - 1, 0)]
        after = bisect_right(self._sorted, line)
        if after < len(self._sorted) and self._sorted[after] - line < line - nearest:
            nearest = self._sorted[after]
        if abs(line - nearest) > _WALK_MAX:
            self.all_texts()
            assert self._raw is not None
            self._cum = list(accumulate(map(len, self._raw), initial=0))
            return self._cum[line] + line
        content = self.content
        at = self._anchors[nearest]
        for _ in range(line - nearest):
            at = content.find("\n", at) + 1
        for _ in range(nearest - line):
            at = content.rfind("\n", 0, at - 1) + 1
        self._anchor(line, at)
        return at

    def _anchor(self, line: int, offset: int) -> None:
        if line not in self._anchors:
            self._anchors[line] = offset
            insort(self._sorted, line)

    def text(self, line: int) -> str:
        """One line's text without its ending (kept: tiers read the same windows again)."""
        if self._split is not None:
            return self._split[line]
        found = self._read.get(line)
        if found is not None:
            return found
        if not 0 <= line < len(self):
            raise IndexError(line)
        start = self.start(line)
        newline = self.content.find("\n", start)
        if newline < 0:
            found = self.content[start:]
        else:
            self._anchor(line + 1, newline + 1)
            end = newline - 1 if newline > start and self.content[newline - 1] == "\r" else newline
            found = self.content[start:end]
        self._read[line] = found
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
        line = self.content.count("\n", 0, offset)
        self._anchor(line, self.content.rfind("\n", 0, offset) + 1)
        return line

    def lines_of(self, offsets: list[int]) -> list[int]:
        """`line_of` for ascending offsets, counting each stretch of the content once."""
        out: list[int] = []
        line = previous = 0
        for offset in offsets:
            line += self.content.count("\n", previous, offset)
            previous = offset
            out.append(line)
        return out

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Character span of lines first..last (inclusive), without the last line's ending."""
        return self.start(first), self.start(last) + len(self.texts[last])

    def span_with_eol(self, first: int, last: int) -> tuple[int, int]:
        """Character span of lines first..last (inclusive), including the last line's ending."""
        start, end = self.span(first, last)
        return start, end + len(self.eol_at(last))

    def word_count(self, word: str) -> int:
        """How often `word` occurs in the content (as a substring), counted up to COUNT_CAP:
        a rarity estimate. A word's offsets are kept for `word_lines`."""
        hits = self._word_hits.get(word)
        if hits is None:
            hits = []
            content = self.content
            at = content.find(word)
            while at >= 0 and len(hits) <= COUNT_CAP:
                hits.append(at)
                at = content.find(word, at + 1)
            self._word_hits[word] = hits
        return len(hits)

    @property
    def has_zero_width(self) -> bool:
        """Whether the content has a character unicode folding deletes (zero-width space, BOM)."""
        return "\u200b" in self.content or "\ufeff" in self.content

    def pattern_lines(self, pattern: re.Pattern[str], most: int) -> list[int] | None:
        """Sorted 0-based numbers of the lines where `pattern` matches; None beyond `most`.
        Remembered per pattern: several tiers look for the same lines."""
        key = (pattern.pattern, most)
        if key not in self._pattern_hits:
            self._pattern_hits[key] = self._scan(pattern, most)
        return self._pattern_hits[key]

    def _scan(self, pattern: re.Pattern[str], most: int) -> list[int] | None:
        lines: list[int] = []
        content = self.content
        line = offset = 0
        for found in pattern.finditer(content):
            at = found.start()
            line += content.count("\n", offset, at)
            offset = at
            if not lines or lines[-1] != line:
                if len(lines) >= most:
                    return None
                lines.append(line)
                self._anchor(line, content.rfind("\n", 0, at) + 1)
        return lines

    def memo(self, key: tuple[object, ...], compute: Callable[[], T]) -> T:
        """`compute()`, remembered under `key` for this content: what one edit's tiers each
        work out from the same lines of `old` (its rarest word, say) is worked out once."""
        if key not in self._memo:
            self._memo[key] = compute()
        return cast("T", self._memo[key])

    def counted(self, word: str) -> bool:
        """Whether `word_count(word)` is known already (costs nothing)."""
        return word in self._word_hits

    def word_lines(self, word: str) -> list[int]:
        """Sorted 0-based numbers of the lines containing `word`."""
        lines = self._word_lines.get(word)
        if lines is None:
            lines = []
            content = self.content
            known = self._word_hits.get(word)
            hits = known if known is not None and len(known) <= COUNT_CAP else None
            at = hits[0] if hits else (-1 if hits is not None else content.find(word))
            k = offset = line = 0
            while at >= 0:
                line += content.count("\n", offset, at)
                offset = at
                if not lines or lines[-1] != line:
                    lines.append(line)
                    self._anchor(line, content.rfind("\n", 0, at) + 1)
                k += 1
                if hits is not None:
                    at = hits[k] if k < len(hits) else -1
                else:
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
            lines = [fn(t) for t in self.all_texts()]
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

    def tab_width(self, configured: int | None = None) -> int | None:
        """The file's tab width: a vim/emacs modeline, else `configured` (the project's
        .editorconfig), else what its tab-indented continuation lines show by lining up under an
        open bracket of the line above; None when nothing says. Computed once per content."""
        if self._declared == 0:
            self._declared = _declared_tab_width(self.content)
        if self._declared is not None or configured:
            return self._declared or configured
        if self._aligned == 0:
            self._aligned = _aligned_tab_width(self)
        return self._aligned

    def indent_style(self, first: int, last: int) -> str:
        """Tab or space: what indented lines in the range mostly start with; the whole file's
        habit when the range has no indented line. One blank before the text is alignment
        (` * ` inside a C comment), not indentation."""
        tabs = spaces = 0
        for text in self.texts[first : last + 1]:
            if text.startswith("\t"):
                tabs += 1
            elif text.startswith("  ") and text.strip():
                spaces += 1
        if tabs == spaces == 0:
            tabs, spaces = self.content.count("\n\t"), self.content.count("\n  ")
        if tabs == spaces == 0:
            return ""
        return "\t" if tabs > spaces else " "


_MODELINE = re.compile(
    r"(?:\bvim?:|\bex:).*?\b(?:ts|tabstop)=(\d+)|-\*-.*?\btab-width:\s*(\d+)", re.IGNORECASE
)
_MIXED = re.compile(r"\t+ +(?=\S)")  # at a line's start: tabs, then alignment blanks
# Continuation lines looked at for alignment evidence.
_ALIGNED_SAMPLE = 64


def _declared_tab_width(content: str) -> int | None:
    """A modeline's tab width (vim `ts=`/`tabstop=`, emacs `tab-width:`) in the first or last
    few lines, where editors look for it."""
    head = content[:2000]
    tail = content[-2000:] if len(content) > 2000 else ""
    for part in (head, tail):
        found = _MODELINE.search(part)
        if found is not None:
            width = int(found.group(1) or found.group(2))
            if 1 <= width <= 16:
                return width
    return None


def _aligned_tab_width(index: LineIndex) -> int | None:
    """The tab width under which lines indented by tabs then spaces line up one column after
    an open bracket of the line above (how such alignment is made); None without evidence.

    Such lines are found with `str.find` on their tab-blank pair, and only their line and the
    one above are read: the cost follows the sample, not the file."""
    content = index.content
    votes: dict[int, int] = {}
    seen = 0
    at = content.find("\t ")
    while at >= 0 and seen < _ALIGNED_SAMPLE:
        start = content.rfind("\n", 0, at) + 1
        end = content.find("\n", at)
        end = len(content) if end < 0 else end
        found = _MIXED.match(content, start, end)
        if found is not None and start > 0:
            seen += 1
            above = content[content.rfind("\n", 0, start - 1) + 1 : start - 1].rstrip("\r")
            _vote_alignment(votes, found.group(), above)
        at = content.find("\t ", end)
    if not votes:
        return None
    return max(votes, key=lambda t: (votes[t], t))


def _vote_alignment(votes: dict[int, int], indent: str, above: str) -> None:
    """Count the tab widths under which `indent` lines up one column after the last bracket
    `above` leaves open."""
    body = above.lstrip(" \t")
    bracket = _open_bracket(body)
    if bracket is None:
        return
    lead = above[: len(above) - len(body)]
    for tab in (8, 4, 2, 3):
        if width(indent, tab) == width(lead, tab) + bracket + 1:
            votes[tab] = votes.get(tab, 0) + 1


def _open_bracket(text: str) -> int | None:
    """Index of the last bracket of `text` still open at its end."""
    stack: list[int] = []
    for at, ch in enumerate(text):
        if ch in "([{":
            stack.append(at)
        elif ch in ")]}" and stack:
            stack.pop()
    return stack[-1] if stack else None


class _Lines(Sequence[str]):
    """The lines of a `LineIndex` as a sequence that reads lines on demand."""

    def __init__(self, index: LineIndex) -> None:
        self._index = index

    def __len__(self) -> int:
        return len(self._index)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        index = self._index
        if index._split is not None:
            return index._split[i]
        if isinstance(i, slice):
            first, stop, step = i.indices(len(index))
            if step != 1 or stop - first > _WALK_MAX:
                return index.all_texts()[i]
            return [index.text(k) for k in range(first, stop)]
        if i < 0:
            i += len(index)
        return index.text(i)

    def __iter__(self) -> Iterator[str]:
        return iter(self._index.all_texts())
