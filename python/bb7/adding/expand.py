"""What `:BB7Add` and `bb7 add` name, made into the files to add: paths, `PATH:START-END`
sections, directories (recursive) and globs (`src/**/*.py`, matched below the directory before
the first wildcard). A directory or glob skips git-ignored, hidden, binary and too large files
and those `.bb7/ignore` names; a path named exactly is taken as it is (adding it says what is
wrong with it). Each file comes with its text, for the token count and the secret guard. Not
for adding (`bb7.state.context` does that).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import msgspec

from bb7.adding.ignore import IgnoreRules, glob_regex, load_ignore
from bb7.adding.project_files import files_under
from bb7.adding.secrets import secret_reason
from bb7.files.fsio import DEFAULT_MAX_BYTES, FileProblem, load_text
from bb7.files.paths import PROTECTED
from bb7.refusal import Problem
from bb7.state.context import Target, parse_target
from bb7.text.lines import split_lines
from bb7.text.tokens import estimate_tokens

# More files than this under one directory or glob is a mistake, not a context.
MAX_FILES = 2000
_WILDCARD = re.compile(r"[*?\[]")


class Found(msgspec.Struct, frozen=True):
    """One file (or section) to add: `target.path` is absolute."""

    target: Target
    tokens: int
    secret: str | None  # why it looks like a secret, else None


class Expansion(msgspec.Struct, frozen=True):
    found: list[Found]
    wide: bool  # a directory or glob was expanded (the user did not name each file)

    @property
    def tokens(self) -> int:
        return sum(f.tokens for f in self.found)

    def secrets(self) -> list[Found]:
        return [f for f in self.found if f.secret is not None]


def is_glob(spec: str) -> bool:
    return _WILDCARD.search(spec) is not None


def expand(
    specs: Sequence[str],
    cwd: Path,
    root: Path | None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Expansion | Problem:
    """The files `specs` name, relative paths against `cwd`; `root` is the project's (for its
    `.bb7/ignore`; None in a global chat). The first spec that names nothing refuses all."""
    ignore = load_ignore(root)
    found: dict[tuple[str, int, int], Found] = {}
    wide = False
    named = [_absolute(parse_target(spec), cwd) for spec in specs]
    sections = merge_sections([t for t in named if t.start])
    for spec, target in zip(specs, named, strict=True):
        got: list[Found] | Problem
        if target.start:
            got = [_read(t, max_bytes) for t in sections.pop(target.path, [])]
        elif is_glob(spec):
            got = _glob(spec, cwd, root, ignore, max_bytes)
            wide = True
        elif (cwd / spec).is_dir():
            got = _listed(spec, cwd / spec, None, root, ignore, max_bytes)
            wide = True
        else:
            got = [_read(target, max_bytes)]
        if isinstance(got, Problem):
            return got
        for f in got:
            found.setdefault((f.target.path, f.target.start, f.target.end), f)
    return Expansion(list(found.values()), wide)


def merge_sections(targets: Sequence[Target]) -> dict[str, list[Target]]:
    """Sections by path, those that overlap or touch made one (a quickfix list's lines)."""
    by_path: dict[str, list[Target]] = {}
    for t in sorted(targets, key=lambda t: (t.path, t.start, t.end)):
        runs = by_path.setdefault(t.path, [])
        if runs and t.start <= runs[-1].end + 1 and t.start >= runs[-1].start:
            runs[-1] = Target(t.path, runs[-1].start, max(runs[-1].end, t.end))
        else:
            runs.append(t)
    return by_path


def _absolute(target: Target, cwd: Path) -> Target:
    return msgspec.structs.replace(target, path=os.path.normpath(cwd / target.path))


def _read(target: Target, max_bytes: int) -> Found:
    return _found(target, _text(Path(target.path), max_bytes))


def _glob(
    spec: str, cwd: Path, root: Path | None, ignore: IgnoreRules, max_bytes: int
) -> list[Found] | Problem:
    parts = spec.split("/")
    literal = next(i for i, part in enumerate(parts) if is_glob(part))
    base = Path(os.path.join(cwd, "/".join(parts[:literal]))) if literal else cwd
    if not base.is_dir():
        return Problem("missing", f"{spec}: {'/'.join(parts[:literal])} is not a directory")
    pattern = re.compile(glob_regex("/".join(parts[literal:])))
    return _listed(spec, base, pattern, root, ignore, max_bytes)


def _listed(
    spec: str,
    base: Path,
    pattern: re.Pattern[str] | None,
    root: Path | None,
    ignore: IgnoreRules,
    max_bytes: int,
) -> list[Found] | Problem:
    names = files_under(base, MAX_FILES)
    if len(names) > MAX_FILES:
        return Problem("too_many", f"{spec} names over {MAX_FILES} files; name fewer")
    out: list[Found] = []
    for name in names:
        if pattern is not None and not pattern.fullmatch(name):
            continue
        if any(part.startswith(".") or part in PROTECTED for part in name.split("/")):
            continue
        path = os.path.normpath(base / name)
        if root is not None and _ignored(ignore, root, path):
            continue
        text = _text(Path(path), max_bytes)
        if text is None:
            continue  # binary, too large or unreadable: a directory holds such files
        out.append(_found(Target(path), text))
    if not out:
        return Problem("no_match", f"{spec} names no text file to add")
    return out


def _ignored(ignore: IgnoreRules, root: Path, path: str) -> bool:
    rel = os.path.relpath(path, root)
    return not rel.startswith("..") and ignore.ignores(Path(rel).as_posix())


def _text(path: Path, max_bytes: int) -> str | None:
    loaded = load_text(path, max_bytes=max_bytes)
    return None if isinstance(loaded, FileProblem) else loaded


def _found(target: Target, text: str | None) -> Found:
    shown = text
    if text is not None and target.start:
        shown = "".join(split_lines(text, keepends=True)[target.start - 1 : target.end])
    tokens = estimate_tokens(shown) if shown is not None else 0
    return Found(target, tokens, secret_reason(target.path, text))
