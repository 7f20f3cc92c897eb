"""Files the model asks for: the `request_files` tool call or a FILES block, and which of them
the user can add.

    ««« FILES
    why: one line saying why
    src/app.py
    src/util.py:10-40
    »»» FILES END

A request never adds anything: it is shown under the answer, and only the user adds the files
(then sends the message again). Paths outside the project (as named or through a symlink),
bb7's and git's own state, files `.bb7/ignore` leaves out (`bb7.files.guard`), missing, binary
or unreadable files are shown as not available. Not for adding files (`bb7.state.context`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec

from bb7.files.fsio import load_text
from bb7.files.guard import readable
from bb7.files.ignore import IgnoreRules, load_ignore
from bb7.files.paths import PathProblem
from bb7.formats.arguments import ArgumentError, parse_arguments
from bb7.formats.blocks import clean_path, is_fence, marker
from bb7.formats.schemas import RequestFiles, WantedFile
from bb7.text.lines import split_lines
from bb7.text.tokens import estimate_tokens

TOOL = "request_files"
OPEN = "««« FILES"
CLOSE = "»»» FILES END"

# For the system prompt of the text modes (tool modes have the request_files tool).
INSTRUCTIONS = f"""\
If you need project files you do not have, ask for them instead of guessing, with one FILES
block at the end of your answer (the user decides; asking ends your answer):

{OPEN}
why: one line saying why you need them
path/to/file.py
path/to/other.py:10-40
{CLOSE}
"""

_RANGE = re.compile(r"(.+?):(\d+)-(\d+)")
_WHY = re.compile(r"(?i)why\s*:\s*(.*)")


class FileRequest(msgspec.Struct, frozen=True):
    """What the model asked for, in order, duplicates dropped."""

    files: list[WantedFile]
    why: str = ""


class AskedFile(msgspec.Struct, frozen=True, kw_only=True):
    """One requested file as the user sees it: its tokens when it can be added, else why not."""

    path: str
    start_line: int | None = None
    end_line: int | None = None
    available: bool
    tokens: int = 0
    reason: str = ""


def read_request(text: str, tool_calls: list[tuple[str, Any]]) -> FileRequest | None:
    """The files asked for by `request_files` calls (name, arguments) and FILES blocks in
    `text`; None when the answer asks for nothing."""
    wanted: list[WantedFile] = []
    whys: list[str] = []
    for name, arguments in tool_calls:
        if name != TOOL:
            continue
        parsed = parse_arguments(arguments)
        if isinstance(parsed, ArgumentError):
            continue
        try:
            args = msgspec.convert(parsed.value, RequestFiles, strict=False)
        except msgspec.ValidationError:
            continue
        wanted.extend(args.files)
        whys.append(args.why)
    for files, why in _blocks(text):
        wanted.extend(files)
        whys.append(why)
    if not wanted:
        return None
    unique = {(w.path, w.start_line, w.end_line): w for w in reversed(wanted)}
    ordered = list(reversed(unique.values()))
    return FileRequest(ordered, " ".join(w.strip() for w in whys if w.strip()))


def _blocks(text: str) -> list[tuple[list[WantedFile], str]]:
    found: list[tuple[list[WantedFile], str]] = []
    inside: list[WantedFile] | None = None
    why = ""
    for line in text.split("\n"):
        mark = marker(line)
        if mark == OPEN:
            inside, why = [], ""
        elif inside is None:
            continue
        elif mark == CLOSE:
            found.append((inside, why))
            inside = None
        elif (said := _WHY.fullmatch(mark)) is not None:
            why = said.group(1).strip()
        elif mark and not is_fence(mark):
            inside.append(_wanted(clean_path(mark.lstrip("-*• ").strip())))
    return found


def _wanted(spec: str) -> WantedFile:
    ranged = _RANGE.fullmatch(spec)
    if ranged is None:
        return WantedFile(path=spec)
    start, end = int(ranged.group(2)), int(ranged.group(3))
    if start < 1 or end < start:
        return WantedFile(path=spec)
    return WantedFile(path=ranged.group(1), start_line=start, end_line=end)


def check_request(root: Path, request: FileRequest) -> list[AskedFile]:
    """Each requested file, with its tokens if the user can add it, or why not."""
    ignore = load_ignore(root)
    return [_check(root, ignore, wanted) for wanted in request.files]


def _check(root: Path, ignore: IgnoreRules, wanted: WantedFile) -> AskedFile:
    start, end = wanted.start_line, wanted.end_line

    def missing(path: str, reason: str) -> AskedFile:
        return AskedFile(path=path, start_line=start, end_line=end, available=False, reason=reason)

    path = readable(root, wanted.path, ignore)
    if isinstance(path, PathProblem):
        return missing(wanted.path, _PATH_REASONS.get(path.kind, path.kind.replace("_", " ")))
    text = load_text(root / path)
    if not isinstance(text, str):
        return missing(path, text.kind.replace("_", " "))
    if start is not None and end is not None:
        lines = split_lines(text, keepends=True)
        if start > len(lines):
            return missing(path, f"it has {len(lines)} lines")
        text = "".join(lines[start - 1 : end])
    tokens = estimate_tokens(text)
    return AskedFile(path=path, start_line=start, end_line=end, available=True, tokens=tokens)


_PATH_REASONS = {
    "outside_root": "outside the project",
    "protected": "git's or bb7's own state",
    "ignored": "in .bb7/ignore",
}
