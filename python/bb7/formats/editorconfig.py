"""The tab width `.editorconfig` files give a project file, for re-indenting edits.

Only what the edit engine needs: `tab_width` (or `indent_size` where `indent_style = tab`) from
the sections whose glob matches the path, in the `.editorconfig` files between the project root
and the file's directory (nearer files win; `root = true` stops the search upwards). Files
outside the project are not read. Not for anything else editorconfig describes.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path, PurePosixPath

NAME = ".editorconfig"


def tab_width(root: Path, path: str) -> int | None:
    """The tab width for project path `path` (POSIX, root-relative), or None."""
    parts = PurePosixPath(path).parts[:-1]
    settings: dict[str, str] = {}
    for depth in range(len(parts) + 1):
        directory = PurePosixPath(*parts[:depth]) if depth else PurePosixPath(".")
        found = _read(root / str(directory) / NAME)
        if found is None:
            continue
        is_root, sections = found
        if is_root:
            settings = {}  # nothing above a root file applies
        relative = PurePosixPath(*PurePosixPath(path).parts[depth:]).as_posix()
        for pattern, values in sections:
            if pattern.fullmatch(relative):
                settings.update(values)
    return _width(settings)


def _width(settings: dict[str, str]) -> int | None:
    for key in ("tab_width", "indent_size"):
        value = settings.get(key, "")
        if key == "indent_size" and settings.get("indent_style") != "tab":
            continue
        if value.isdigit() and 1 <= int(value) <= 16:
            return int(value)
    return None


Section = tuple[re.Pattern[str], dict[str, str]]


def _read(file: Path) -> tuple[bool, list[Section]] | None:
    try:
        text = file.read_text("utf-8", errors="replace")
    except OSError:
        return None
    return _parse(text)


@lru_cache(maxsize=64)
def _parse(text: str) -> tuple[bool, list[Section]]:
    is_root = False
    sections: list[Section] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            sections.append((_glob(line[1:-1]), {}))
            continue
        key, sep, value = line.partition("=")
        if not sep:
            continue
        key, value = key.strip().lower(), value.strip().lower()
        if sections:
            sections[-1][1][key] = value
        elif key == "root":
            is_root = value == "true"
    return is_root, sections


def _glob(pattern: str) -> re.Pattern[str]:
    """An editorconfig glob as a regex over the path relative to the file's directory: without
    a `/` it matches a file name in any subdirectory."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "{":
            close = pattern.find("}", i)
            if close < 0:
                out.append(re.escape(ch))
            else:
                choices = pattern[i + 1 : close].split(",")
                out.append("(?:" + "|".join(re.escape(c) for c in choices) + ")")
                i = close
        else:
            out.append(re.escape(ch))
        i += 1
    body = "".join(out)
    if "/" not in pattern:
        return re.compile(r"(?:.*/)?" + body)
    return re.compile(body.lstrip("/") if body.startswith("/") else body)
