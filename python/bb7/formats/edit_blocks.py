"""EDIT blocks (v3, common prefix): one block's marker state machine and its anchor.

    path/to/file.py
    ««« EDIT
    lines as they are now
    ═══════ REPL
    the same lines as they should be
    »»» EDIT END

The anchor is the common prefix of the two sections: the EDIT section (anchor + old lines) must
match one place of the file, and becomes the REPL section (anchor + new lines). An empty EDIT
section creates a new file; a REPL section that is only the anchor removes the old lines.
Markers count only as whole lines (extra spaces inside them are fine); there is no escaping.
Finding block starts and path lines is `bb7.formats.stream`'s job.
"""

from __future__ import annotations

import re

import msgspec

from bb7.formats.blocks import CONTINUE, BlockParser, Step, join_lines, marker
from bb7.text.lines import split_lines

# For the system prompt of a model without tool calls (or when diff_mode asks for text).
INSTRUCTIONS = """\
To change files, write EDIT blocks; nothing else in your answer changes a file.

path/to/file.py
««« EDIT
lines copied exactly from the file, enough to match one place only
═══════ REPL
the same lines as they should become
»»» EDIT END

- The path line comes right before ««« EDIT, alone on its line, relative to the project root.
- Lines the two sections start with in common locate the change; copy them exactly,
  indentation included. Lines the REPL section leaves out are removed.
- A new file: an empty EDIT section (««« EDIT directly followed by ═══════ REPL) and the whole
  content in REPL.
- Blocks apply in order, each to the file as the earlier blocks left it. If any block fails,
  none is applied and you are told what to fix.
"""

_START = re.compile(r"«{3,}\s*EDIT")
_SEPARATOR = re.compile(r"═{3,}\s*REPL")
_END = re.compile(r"»{3,}\s*EDIT\s*END")


class EditBlock(msgspec.Struct, frozen=True, kw_only=True):
    """One parsed block; `edit` and `repl` are whole lines, each ending with a newline."""

    index: int
    path: str
    line: int  # of the ««« EDIT marker
    end_line: int  # of the »»» EDIT END marker
    edit: str
    repl: str

    @property
    def anchor(self) -> str:
        """The lines both sections start with: context that locates the change."""
        edit, repl = split_lines(self.edit, keepends=True), split_lines(self.repl, keepends=True)
        size = 0
        while size < min(len(edit), len(repl)) and edit[size] == repl[size]:
            size += 1
        return "".join(edit[:size])

    @property
    def old(self) -> str:
        return self.edit[len(self.anchor) :]

    @property
    def new(self) -> str:
        return self.repl[len(self.anchor) :]


def is_separator(line: str) -> bool:
    return _SEPARATOR.fullmatch(marker(line)) is not None


class EditBlockParser(BlockParser):
    """Parses one block, from the line after `««« EDIT` to `»»» EDIT END`."""

    title = "EDIT block"
    start_marker = "««« EDIT"
    layout = (
        "««« EDIT, the current lines, ═══════ REPL, the same lines as they should be, »»» EDIT END"
    )

    start_pattern = _START
    end_pattern = _END

    def __init__(self, index: int, path: str, line: int) -> None:
        super().__init__(index, path, line)
        self.edit: list[str] = []
        self.repl: list[str] = []

    @classmethod
    def is_stray(cls, line: str) -> bool:
        """A marker that only makes sense inside a block."""
        return is_separator(line) or cls.is_end(line)

    def expected(self) -> str:
        return "»»» EDIT END" if self.state == "second" else "═══════ REPL"

    def section(self, text: str, number: int) -> Step:
        if self.state == "first":
            if is_separator(text):
                self.state = "second"
            elif self.is_end(text):
                return Step([self.error(number, "»»» EDIT END came before ═══════ REPL")], True)
            else:
                self.edit.append(text)
            return CONTINUE
        if self.is_end(text):
            return Step([self._block(number)], True)
        if is_separator(text):
            return self.broken(number, "a second ═══════ REPL inside the block")
        self.repl.append(text)
        return CONTINUE

    def _block(self, number: int) -> msgspec.Struct:
        return EditBlock(
            index=self.index,
            path=self.path,
            line=self.line,
            end_line=number,
            edit=join_lines(self.edit),
            repl=join_lines(self.repl),
        )
