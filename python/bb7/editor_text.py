"""File text <-> editor buffer lines, the one conversion the host uses both ways.

A buffer holds lines without line endings; whether the file ends with a newline is the buffer's
'endofline' option, CRLF its 'fileformat' and a BOM its 'bomb' (Neovim writes those back as it
read them). So text becomes lines split at LF with a trailing CR and a leading BOM dropped, plus
an `eol` flag; lines become text joined with LF, which is how statuses compare them (line
endings alone never make two versions differ).
"""

from __future__ import annotations

import msgspec

BOM = "\ufeff"


class EditorLines(msgspec.Struct, frozen=True):
    """A buffer's content: `lines` and whether the text ended with a newline."""

    lines: list[str]
    eol: bool = True


def to_lines(text: str) -> EditorLines:
    """The lines (and 'endofline') a buffer needs to hold `text`."""
    text = text.removeprefix(BOM)
    eol = text.endswith("\n")
    parts = text.split("\n")
    if eol:
        parts.pop()
    lines = [part.removesuffix("\r") for part in parts]
    return EditorLines(lines=lines or [""], eol=eol)


def from_lines(lines: list[str], eol: bool = True) -> str:
    """The text of a buffer's lines (LF line endings)."""
    text = "\n".join(lines)
    return text + "\n" if eol and lines else text
