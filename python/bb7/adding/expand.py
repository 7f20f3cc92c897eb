"""What `:BB7Add` and `bb7 add` name, made into the files to add: paths, `PATH:START-END`
sections, directories (recursive) and globs (`src/**/*.py`, matched below the directory before
the first wildcard). A directory or glob skips git-ignored, hidden, binary and too large files,
those `.bb7/ignore` names (as found or where a symlink leads, see `bb7.files.guard`), images
and, saying so, symlinks that lead out of the project (out of the named directory, outside a
project): a file outside the project gets in only when the user names it. A path named exactly
is taken as it is (adding it says what is wrong with it; an image named is added as an image).
Each file comes with its text, for the token count and the secret guard. Not for adding
(`bb7.state.context` does that).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from bb7.adding.project_files import files_under
from bb7.files.fsio import DEFAULT_MAX_BYTES, FileProblem, load_text
from bb7.files.guard import readable
from bb7.files.ignore import IgnoreRules, glob_regex, load_ignore
from bb7.files.images import Image, is_image_name, read_image
from bb7.files.paths import PROTECTED, PathProblem
from bb7.files.secrets import secret_reason
from bb7.refusal import Problem
from bb7.state.context import Target, parse_target
from bb7.text.lines import split_lines
from bb7.text.tokens import estimate_tokens
from bb7.text.words import plural

# More files than this under one directory or glob is a mistake, not a context.
MAX_FILES = 2000
_WILDCARD = re.compile(r"[*?\[]")


class Found(msgspec.Struct, frozen=True):
    """One file (or section) to add: `target.path` is absolute. `named`: the user named it
    (not a file under a directory or glob), so adding it is all or nothing with the rest."""

    target: Target
    tokens: int
    secret: str | None  # why it looks like a secret, else None
    named: bool = True


class Expansion(msgspec.Struct, frozen=True):
    found: list[Found]
    wide: bool  # a directory or glob was expanded (the user did not name each file)
    # Files a directory or glob found that lead out of the project through a symlink: left out.
    links_out: list[str] = msgspec.field(default_factory=list)

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
    links_out: list[str] = []
    wide = False
    named = [_absolute(parse_target(spec), cwd) for spec in specs]
    sections = merge_sections([t for t in named if t.start])
    for spec, target in zip(specs, named, strict=True):
        got: list[Found] | Problem
        if target.start:
            got = [_read(t, max_bytes) for t in sections.pop(target.path, [])]
        elif is_glob(spec):
            got = _glob(spec, cwd, _Walk(root, ignore, max_bytes, links_out))
            wide = True
        elif (cwd / spec).is_dir():
            got = _listed(spec, cwd / spec, None, _Walk(root, ignore, max_bytes, links_out))
            wide = True
        else:
            got = [_read(target, max_bytes)]
        if isinstance(got, Problem):
            return got
        for f in got:
            found.setdefault((f.target.path, f.target.start, f.target.end), f)
    return Expansion(list(found.values()), wide, links_out)


def links_out_line(exp: Expansion, shown: Callable[[str], str]) -> str:
    """What a directory or glob left out because it leads out of the project, in one line
    ('' when nothing was)."""
    if not exp.links_out:
        return ""
    names = ", ".join(shown(path) for path in exp.links_out[:3])
    more = f" and {len(exp.links_out) - 3} more" if len(exp.links_out) > 3 else ""
    count = plural(len(exp.links_out), "file")
    return f"left out {count} linked out of the project: {names}{more}"


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
    if not target.start and is_image_name(target.path):
        image = read_image(Path(target.path))
        tokens = image.tokens if isinstance(image, Image) else 0
        return Found(target, tokens, None)
    return _found(target, _text(Path(target.path), max_bytes))


class _Walk(msgspec.Struct):
    """What a directory or glob walk keeps to: the project (None: a global chat), its ignore
    rules and size limit; `links_out` collects the files it leaves out for leading out."""

    root: Path | None
    ignore: IgnoreRules
    max_bytes: int
    links_out: list[str]


def _glob(spec: str, cwd: Path, walk: _Walk) -> list[Found] | Problem:
    parts = spec.split("/")
    literal = next(i for i, part in enumerate(parts) if is_glob(part))
    base = Path(os.path.join(cwd, "/".join(parts[:literal]))) if literal else cwd
    if not base.is_dir():
        return Problem("missing", f"{spec}: {'/'.join(parts[:literal])} is not a directory")
    pattern = re.compile(glob_regex("/".join(parts[literal:])))
    return _listed(spec, base, pattern, walk)


def _listed(
    spec: str, base: Path, pattern: re.Pattern[str] | None, walk: _Walk
) -> list[Found] | Problem:
    names = files_under(base, MAX_FILES)
    if len(names) > MAX_FILES:
        return Problem("too_many", f"{spec} names over {MAX_FILES} files; name fewer")
    # Outside a project (or a directory outside it) the named directory is the bound.
    inside = walk.root is not None and _within(os.path.abspath(base), os.path.abspath(walk.root))
    bound = os.path.realpath(base)
    out: list[Found] = []
    left_out = 0
    for name in names:
        if pattern is not None and not pattern.fullmatch(name):
            continue
        if any(part.startswith(".") or part in PROTECTED for part in name.split("/")):
            continue
        if is_image_name(name):
            continue  # a picture goes into a chat only when the user names it
        path = os.path.normpath(base / name)
        if inside:
            assert walk.root is not None
            rel = Path(os.path.relpath(path, walk.root)).as_posix()
            checked = readable(walk.root, rel, walk.ignore)
            leads_out = isinstance(checked, PathProblem) and checked.kind == "outside_root"
            if isinstance(checked, PathProblem) and not leads_out:
                continue  # ignored, or git's or bb7's own state behind a link
        else:
            leads_out = not _within(os.path.realpath(path), bound)
        if leads_out:
            walk.links_out.append(path)
            left_out += 1
            continue
        text = _text(Path(path), walk.max_bytes)
        if text is None:
            continue  # binary, too large or unreadable: a directory holds such files
        out.append(msgspec.structs.replace(_found(Target(path), text), named=False))
    if not out:
        why = f" (left out {plural(left_out, 'file')} linked out of the project)"
        return Problem("no_match", f"{spec} names no text file to add{why if left_out else ''}")
    return out


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _text(path: Path, max_bytes: int) -> str | None:
    loaded = load_text(path, max_bytes=max_bytes)
    return None if isinstance(loaded, FileProblem) else loaded


def _found(target: Target, text: str | None) -> Found:
    shown = text
    if text is not None and target.start:
        shown = "".join(split_lines(text, keepends=True)[target.start - 1 : target.end])
    tokens = estimate_tokens(shown) if shown is not None else 0
    return Found(target, tokens, secret_reason(target.path, text))
