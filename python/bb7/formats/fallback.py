"""The edits of a tool-mode answer that called no tool but wrote them in its text.

Local models often ignore the tools they are offered and write SEARCH/REPLACE or EDIT blocks,
or a whole file in a code fence under its path, as they were trained to. `text_edits` finds
them so the answer still lands: every block of the text (a malformed one included, so the
answer fails whole and is repaired like any other: all or nothing), else every fenced whole
file under a path line, as write_file calls. Prose, and code shown as an example (an excerpt
of a longer file, a read-only file quoted, a file quoted unchanged), hold none.
Not for answers with tool calls (their text is prose) nor for text modes (their blocks are
read as always); applying is `bb7.formats.apply`'s job.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from bb7.formats.blocks import BlockError, clean_path, is_fence
from bb7.formats.response import Response, ToolCall
from bb7.formats.stream import parse_text

NOTE = "edits read from the answer's text"
# A path line: no spaces, a file name with an extension or a directory in it.
_PATH = re.compile(r"[\w.@+-]+(/[\w.@+-]+)*")
# A fence shorter than this share of an existing file's lines is an excerpt, not the file.
_EXCERPT = 0.5


def text_edits(
    text: str,
    files: Mapping[str, str | None] | None = None,
    readonly: Collection[str] = (),
) -> Response | None:
    """The answer as a response to apply, or None when its text holds no edits.

    `files`: the chat's files by path (None: does not exist) and `readonly` the paths it may
    not write, to tell a fenced whole file from code shown: when any fence under a path is an
    excerpt of a longer file or quotes a read-only one, the text is taken as explanation and
    no file is read from it; a file quoted unchanged is no edit.
    """
    items = parse_text(text)
    if any(not isinstance(item, BlockError) or item.index is not None for item in items):
        return Response(text=text)
    writes = _fenced_files(text)
    if not writes:
        return None
    known = files or {}
    changed = []
    for path, content in writes:
        before = known.get(path)
        if path in readonly or (before and _lines(content) < _EXCERPT * _lines(before)):
            return None
        if before is None or content.rstrip("\n") != before.rstrip("\n"):
            changed.append((path, content))
    if not changed:
        return None
    calls = tuple(
        ToolCall(name="write_file", arguments={"path": path, "content": content})
        for path, content in changed
    )
    return Response(tool_calls=calls)


def _fenced_files(text: str) -> list[tuple[str, str]]:
    """(path, content) of each code fence whose line before names a path."""
    lines = text.split("\n")
    found: list[tuple[str, str]] = []
    at = 0
    while at < len(lines):
        line = lines[at].rstrip("\r")
        if not is_fence(line) or at == 0:
            at += 1
            continue
        closing = _closing(lines, at)
        if closing is None:
            break
        path = clean_path(lines[at - 1]).removeprefix("./")
        if _looks_like_path(path):
            body = [raw.rstrip("\r") for raw in lines[at + 1 : closing]]
            found.append((path, "".join(f"{row}\n" for row in body)))
        at = closing + 1
    return found


def _closing(lines: list[str], opening: int) -> int | None:
    fence = lines[opening].strip()
    mark = fence[0] * (len(fence) - len(fence.lstrip(fence[0])))
    for at in range(opening + 1, len(lines)):
        if lines[at].strip() == mark:
            return at
    return None


def _looks_like_path(path: str) -> bool:
    if not _PATH.fullmatch(path):
        return False
    name = path.rsplit("/", 1)[-1]
    return "/" in path or ("." in name.strip(".") and not name.endswith("."))


def _lines(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1)
