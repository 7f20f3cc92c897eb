"""`.bb7/ignore`: files a project keeps away from the model, in gitignore syntax. Globs,
directories, the picker and `@` completion leave them out; a path the user names exactly is
not filtered (naming it is the choice). Not git's ignore rules (git itself applies those).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import msgspec

from bb7.files.fsio import FileProblem, load_text

IGNORE_FILE = ".bb7/ignore"


def glob_regex(pattern: str) -> str:
    """The regex of a gitignore-style glob over `/`-separated paths: `*` and `?` stay inside
    one name, `**` spans directories, `[...]` is a class."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


class Rule(msgspec.Struct, frozen=True):
    regex: str
    negated: bool
    dir_only: bool


class IgnoreRules(msgspec.Struct, frozen=True):
    """The parsed rules; the last matching rule decides, as in git."""

    rules: tuple[Rule, ...] = ()

    def ignores(self, path: str) -> bool:
        """Whether the root-relative `path` (a file) is ignored, by itself or a parent."""
        parts = path.split("/")
        ignored = False
        for depth in range(1, len(parts) + 1):
            sub = "/".join(parts[:depth])
            is_dir = depth < len(parts)
            for rule in self.rules:
                if rule.dir_only and not is_dir:
                    continue
                if re.fullmatch(rule.regex, sub):
                    ignored = not rule.negated
            if ignored and is_dir:
                return True  # git cannot re-include a file below an ignored directory
        return ignored

    def keep(self, paths: Iterable[str]) -> list[str]:
        return [p for p in paths if not self.ignores(p)] if self.rules else list(paths)


def parse_ignore(text: str) -> IgnoreRules:
    rules: list[Rule] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated or line.startswith("\\"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        body = glob_regex(line.lstrip("/"))
        regex = body if anchored else f"(?:.*/)?{body}"
        rules.append(Rule(regex, negated, dir_only))
    return IgnoreRules(tuple(rules))


def load_ignore(root: Path | None) -> IgnoreRules:
    """The project's `.bb7/ignore` (no rules when there is none or no project)."""
    if root is None:
        return IgnoreRules()
    text = load_text(root / IGNORE_FILE)
    return IgnoreRules() if isinstance(text, FileProblem) else parse_ignore(text)
