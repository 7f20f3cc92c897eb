"""The places a check's output names (`file:line:col: ...`, `file:line: ...`, Python's
`File "file", line N`), as project paths: for the quickfix list, where a pending file's line is
a line of its pending text (the text the check ran on), not of the file on disk.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from pathlib import Path

import msgspec

_PLACE = re.compile(
    r"^\s*(?P<path>[^\s:\"'<>|]+):(?P<line>\d+)(?::(?P<col>\d+))?(?::|\s|$)(?P<rest>.*)"
)
_PYTHON = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?P<rest>.*)')
LIMIT = 500


class Location(msgspec.Struct, frozen=True, kw_only=True):
    """One place: a project path, its 1-based line and column (0: none), the output's words
    there, and whether the path is pending (the line is one of its pending text)."""

    path: str
    line: int
    col: int = 0
    text: str = ""
    pending: bool = False
    check: str = ""


def _project_path(raw: str, cwd: Path, root: Path) -> str | None:
    """`raw` as a root-relative path, when it names something inside the copy (`cwd`) or the
    project."""
    place = Path(raw) if os.path.isabs(raw) else cwd / raw
    normal = Path(os.path.normpath(place))
    for base in (cwd, root):
        try:
            relative = normal.relative_to(base)
        except ValueError:
            continue
        text = relative.as_posix()
        return None if text in (".", "") or text.startswith("../") else text
    return None


def locations(
    output: str,
    cwd: Path,
    root: Path,
    pending: Collection[str],
    exists: Callable[[str], bool] | None = None,
    check: str = "",
) -> list[Location]:
    """Every place `output` names in the project, in order, each once (at most `LIMIT`)."""
    found: list[Location] = []
    seen: set[tuple[str, int, int]] = set()
    there = exists or (lambda path: (root / path).exists())
    for line in output.splitlines():
        match = _PLACE.match(line) or _PYTHON.match(line)
        if match is None:
            continue
        path = _project_path(match.group("path"), cwd, root)
        if path is None or not (path in pending or there(path)):
            continue
        col = int(match.groupdict().get("col") or 0)
        key = (path, int(match.group("line")), col)
        if key in seen:
            continue
        seen.add(key)
        text = match.group("rest").strip(" :,") or line.strip()
        found.append(
            Location(
                path=path,
                line=key[1],
                col=col,
                text=text,
                pending=path in pending,
                check=check,
            )
        )
        if len(found) >= LIMIT:
            break
    return found
