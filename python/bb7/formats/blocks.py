"""What the text block formats share: the malformed-block error, the parsing step, path lines.

A text format module (`search_replace`, `edit_blocks`) parses one block at a time, line by
line, and answers each line with a `Step`; `bb7.formats.stream` finds where blocks start and
which path line belongs to them. Not for applying blocks (`bb7.formats.apply`).
"""

from __future__ import annotations

import re
from typing import ClassVar, NamedTuple

import msgspec


class BlockError(msgspec.Struct, frozen=True, kw_only=True):
    """A malformed, unclosed or stray piece of block syntax; lines are 1-based.

    `index` is the 1-based position of the block among the response's blocks (None for a stray
    marker outside any block), `line` where the problem was found, `block_line` where the block
    began.
    """

    index: int | None
    path: str
    line: int
    block_line: int | None
    message: str
    kind: str = "malformed"


class Step(NamedTuple):
    """A block parser's answer to one line."""

    items: list[msgspec.Struct]  # finished blocks and errors, ready to emit
    done: bool  # the block is over: scanning for the next one resumes
    consumed: bool = True  # False: the line belongs to whatever follows the block


CONTINUE = Step([], False)


class BlockParser:
    """The frame every block format shares: a block's lines go to `section` until the block
    ends; after an error the rest of the block is skipped; a new block start inside a block
    means the block was never closed."""

    title: ClassVar[str]  # e.g. "EDIT block"
    start_marker: ClassVar[str]
    layout: ClassVar[str]  # how a correct block looks, for the model
    start_pattern: ClassVar[re.Pattern[str]]
    end_pattern: ClassVar[re.Pattern[str]]

    def __init__(self, index: int, path: str, line: int) -> None:
        self.index, self.path, self.line = index, path, line
        self.state = "first"  # first section -> second section; "broken" after an error
        self.fence = ""  # the code fence line the block sits in (set by the stream parser)

    @classmethod
    def is_start(cls, line: str) -> bool:
        return cls.start_pattern.fullmatch(marker(line)) is not None

    @classmethod
    def is_end(cls, line: str) -> bool:
        return cls.end_pattern.fullmatch(marker(line)) is not None

    @classmethod
    def is_stray(cls, line: str) -> bool:
        """A marker of this format that only makes sense inside a block."""
        raise NotImplementedError

    def section(self, text: str, number: int) -> Step:
        """One line inside the block (not a start marker, block not broken)."""
        raise NotImplementedError

    def expected(self) -> str:
        """The marker the block is waiting for."""
        raise NotImplementedError

    def feed(self, text: str, number: int) -> Step:
        if self.state == "broken":
            if self.is_end(text):
                return Step([], True)
            return Step([], True, consumed=False) if self.is_start(text) else CONTINUE
        if self.is_start(text):
            problem = f"a new {self.start_marker} starts before this block ended"
            return Step([self.error(number, problem)], True, consumed=False)
        return self.section(text, number)

    def broken(self, number: int, problem: str) -> Step:
        """Report `problem` and skip the rest of the block."""
        self.state = "broken"
        return Step([self.error(number, problem)], False)

    def unclosed(self, number: int) -> list[msgspec.Struct]:
        """The block never ended (the response stopped at line `number`)."""
        if self.state == "broken":
            return []
        problem = f"the response ended before its {self.expected()} line"
        return [self.error(number, problem)]

    def error(self, number: int, problem: str) -> BlockError:
        return BlockError(
            index=self.index,
            path=self.path,
            line=number,
            block_line=self.line,
            message=(
                f"{self.title} {self.index} (line {self.line}, {self.path or 'no path'}) is "
                f"malformed at line {number}: {problem}. A block is: the file path on its own "
                f"line, {self.layout}. Send the block again, complete."
            ),
        )


def marker(line: str) -> str:
    """A line as compared with markers: markers count only as whole lines, blanks around ok."""
    return line.strip()


# CommonMark: an info string (the language, perhaps after blanks: ``` Haskell) may follow the
# run; a backtick fence's info string has no backtick.
_FENCE = re.compile(r"`{3,}[^`]*|~{3,}.*")
_LABEL = re.compile(r"(?i)(file(name)?|path)\s*:\s*")


def closes_fence(line: str, fence: str) -> bool:
    """Whether `line` is a bare fence that would end a code block opened by `fence`."""
    run = fence[: len(fence) - len(fence.lstrip(fence[:1]))] if fence else ""
    text = line.strip()
    return bool(run) and len(text) >= len(run) and text == run[0] * len(text)


def is_fence(line: str) -> bool:
    """A markdown code fence line (opening, possibly with a language, or closing)."""
    return _FENCE.fullmatch(line.strip()) is not None


def clean_path(line: str) -> str:
    """The path a path line names, without markdown decoration (`#`, `**`, backticks, quotes),
    a `File:` label or a trailing colon."""
    text = line.strip().lstrip("#").strip()
    text = _LABEL.sub("", text, count=1) if _LABEL.match(text) else text
    previous = None
    while text != previous:
        previous = text
        text = text.strip().removesuffix(":").strip()
        for mark in ("**", "*", "`", '"', "'"):
            if len(text) > 2 * len(mark) and text.startswith(mark) and text.endswith(mark):
                text = text[len(mark) : -len(mark)]
    return text


def join_lines(lines: list[str]) -> str:
    """Block lines as text: every line ends with a newline (blocks hold whole lines)."""
    return "".join(line + "\n" for line in lines)
