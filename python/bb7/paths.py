"""Project path rules: every path bb7 stores or writes is relative to the root and inside it.

Refused: empty paths, `..` that leaves the root, absolute paths outside it, paths through a
symlink that resolves outside it, and anything inside `.git/` or `.bb7/`.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import msgspec

PROTECTED = (".git", ".bb7")


class PathProblem(msgspec.Struct, frozen=True):
    """Why a path was refused: `empty`, `outside_root`, `protected`."""

    kind: str
    message: str


def project_path(root: Path, path: str) -> str | PathProblem:
    """The normalised root-relative POSIX path for `path` (relative to root, or absolute)."""
    raw = path.strip()
    if not raw:
        return PathProblem("empty", "the path is empty")
    root_real = Path(os.path.realpath(root))
    candidate = Path(raw) if os.path.isabs(raw) else root_real / raw
    lexical = Path(os.path.normpath(candidate))
    try:
        relative = lexical.relative_to(root_real)
    except ValueError:
        try:
            relative = lexical.relative_to(Path(os.path.abspath(root)))
        except ValueError:
            return PathProblem("outside_root", f"{raw} is outside the project root {root_real}")
    parts = PurePosixPath(relative.as_posix()).parts
    if not parts or parts == (".",):
        return PathProblem("empty", f"{raw} names the project root, not a file")
    if parts[0] in PROTECTED:
        return PathProblem("protected", f"{raw} is inside {parts[0]}/, which bb7 never edits")
    real = Path(os.path.realpath(root_real / relative))
    if real != root_real and root_real not in real.parents:
        return PathProblem(
            "outside_root", f"{raw} resolves through a symlink to {real}, outside the project"
        )
    return PurePosixPath(*parts).as_posix()
