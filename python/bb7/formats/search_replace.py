"""SEARCH/REPLACE text blocks (Aider/Roo style): one block's marker state machine.

    path/to/file.py
    ```python
    <<<<<<< SEARCH
    :start_line:12        (optional hint)
    -------               (optional, ends the header)
    lines to find
    =======
    lines to put there
    >>>>>>> REPLACE
    ```

Markers count only as whole lines. One empty line right before `=======` or `>>>>>>> REPLACE`
is layout, not content (as in Aider, whose format models learned). A content line starting
with a backslash followed by `<<<<<<<`, `=======`, `>>>>>>>`, `-------` or `:start_line:` loses
the backslash (Roo's rule: how files holding git conflict markers are edited). The first marker
out of sequence is reported with its line number. Finding block starts and path lines is
`bb7.formats.stream`'s job.
"""

from __future__ import annotations

import re

import msgspec

from bb7.formats.blocks import CONTINUE, BlockParser, Step, closes_fence, join_lines, marker

# For the system prompt when diff_mode asks for SEARCH/REPLACE blocks.
INSTRUCTIONS = """\
To change files, write SEARCH/REPLACE blocks; nothing else in your answer changes a file.

path/to/file.py
<<<<<<< SEARCH
lines copied exactly from the file, enough to match one place only
=======
the lines to put in their place
>>>>>>> REPLACE

- The path line comes right before <<<<<<< SEARCH, alone on its line, relative to the project
  root. One block changes one place; use several blocks for several places.
- Copy the SEARCH lines exactly, indentation included. An empty REPLACE section deletes them.
- A new file: an empty SEARCH section and the whole content in REPLACE.
- A content line that looks like a marker (=======, <<<<<<<, >>>>>>>) gets a backslash in front.
- Blocks apply in order, each to the file as the earlier blocks left it. If any block fails,
  none is applied and you are told what to fix.
"""

_START = re.compile(r"<{5,9} ?SEARCH>?")
_END = re.compile(r">{5,9} ?REPLACE<?")
DIVIDER = "======="
HEADER_RULE = "-------"
_START_LINE = re.compile(r":start_line:\s*(\d+)")
_END_LINE = re.compile(r":end_line:\s*\d+")
_ESCAPED = ("<<<<<<<", "=======", ">>>>>>>", "-------", ":start_line:", ":end_line:")


class SearchReplaceBlock(msgspec.Struct, frozen=True, kw_only=True):
    """One parsed block; `search` and `replace` are whole lines, each ending with a newline."""

    index: int
    path: str
    line: int  # of the <<<<<<< SEARCH marker
    end_line: int  # of the >>>>>>> REPLACE marker
    search: str
    replace: str
    start_line: int | None = None


def unescape(line: str) -> str:
    if line.startswith("\\") and line[1:].startswith(_ESCAPED):
        return line[1:]
    return line


class SearchReplaceParser(BlockParser):
    """Parses one block, from the line after `<<<<<<< SEARCH` to `>>>>>>> REPLACE`."""

    title = "SEARCH/REPLACE block"
    start_marker = "<<<<<<< SEARCH"
    layout = (
        "<<<<<<< SEARCH, the exact lines to find, =======, the new lines, >>>>>>> REPLACE; "
        "content lines that look like a marker start with a backslash (\\=======)"
    )

    start_pattern = _START
    end_pattern = _END

    def __init__(self, index: int, path: str, line: int) -> None:
        super().__init__(index, path, line)
        self.header = True  # :start_line: and ------- may still come
        self.start_line: int | None = None
        self.search: list[str] = []
        self.replace: list[str] = []

    @classmethod
    def is_stray(cls, line: str) -> bool:
        """A marker that only makes sense inside a block. A lone ======= is not one: prose
        shows git conflicts and setext headings with it."""
        return cls.is_end(line)

    def expected(self) -> str:
        return ">>>>>>> REPLACE" if self.state == "second" else DIVIDER

    def section(self, text: str, number: int) -> Step:
        mark = marker(text)
        if self.header:
            hint = _START_LINE.fullmatch(mark)
            if hint is not None:
                self.start_line = int(hint.group(1))
                return CONTINUE
            if _END_LINE.fullmatch(mark) is not None:
                return CONTINUE  # Roo's older header; the start line is what matters
            self.header = False
            if mark == HEADER_RULE:
                return CONTINUE
        if self.state == "first":
            if mark == DIVIDER:
                self.state = "second"
            elif self.is_end(text):
                return Step([self.error(number, f"{mark} came before the ======= line")], True)
            else:
                self.search.append(unescape(text))
            return CONTINUE
        if self.is_end(text):
            return Step([self._block(number)], True)
        if mark == DIVIDER:
            return self.broken(number, "a second ======= line inside the block")
        if _START_LINE.fullmatch(mark):
            return self.broken(number, ":start_line: belongs right after <<<<<<< SEARCH")
        self.replace.append(unescape(text))
        return CONTINUE

    def _block(self, number: int) -> msgspec.Struct:
        search, replace = self.search, self.replace
        if (
            search
            and replace
            and closes_fence(search[-1], self.fence)
            and closes_fence(replace[-1], self.fence)
        ):
            # Both sections end by closing the code fence the block sits in: the model's fence
            # leaked into the block (dropping an unchanged last line from both changes nothing
            # when it is real content).
            search, replace = search[:-1], replace[:-1]
        return SearchReplaceBlock(
            index=self.index,
            path=self.path,
            line=self.line,
            end_line=number,
            search=join_lines(_without_closing_blank(search)),
            replace=join_lines(_without_closing_blank(replace)),
            start_line=self.start_line,
        )


def _without_closing_blank(lines: list[str]) -> list[str]:
    """A section without the one empty line right before its closing marker.

    Models trained on Aider's format leave a blank line before ======= or >>>>>>> REPLACE as
    layout, and Aider drops it: a SEARCH ending with one therefore does not mean that blank
    line of the file goes (nor does a REPLACE ending with one add a line). A section that is
    nothing but that line keeps it.
    """
    if len(lines) > 1 and lines[-1] == "":
        return lines[:-1]
    return lines
