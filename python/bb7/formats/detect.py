"""Which edit format a response uses: tool-call JSON, SEARCH/REPLACE blocks, EDIT blocks."""

from __future__ import annotations

from typing import Literal

from bb7.formats.arguments import ArgumentError
from bb7.formats.edit_blocks import EditBlockParser
from bb7.formats.response import parse_response
from bb7.formats.search_replace import SearchReplaceParser
from bb7.text.lines import split_lines

Format = Literal["tool_calls", "search_replace", "edit_blocks", "mixed", "none"]


def detect_format(text: str) -> Format:
    """The format of `text`; "mixed" when it uses more than one, "none" when it has no edits.

    Broken JSON that is not text with blocks still counts as "tool_calls": it was meant as such,
    and applying it reports why it cannot be read.
    """
    response = parse_response(text)
    if isinstance(response, ArgumentError):
        return "tool_calls"
    found: list[Format] = ["tool_calls"] if response.tool_calls else []
    lines = split_lines(response.text, crlf=True)  # the lines the parsers read (LF only)
    if any(SearchReplaceParser.is_start(line) for line in lines):
        found.append("search_replace")
    if any(EditBlockParser.is_start(line) for line in lines):
        found.append("edit_blocks")
    if not found:
        return "none"
    return found[0] if len(found) == 1 else "mixed"
