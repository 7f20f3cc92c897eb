"""Project path rules: every path bb7 stores or writes is relative to the root and inside it.

Refused: empty paths, `..` that leaves the root, absolute paths outside it, paths through a
symlink that resolves outside it, and anything named `.git` or `.bb7` or inside one, at any depth
(a vendored repository, a submodule's `.git` file) and in any case (a case-insensitive disk folds
`.GIT/config` into `.git/config`). Both the path as given and the path it resolves to are
checked: a hostile clone's `gl -> .git` or `docs/g -> ../.git` symlink never lets a write (or a
directory it creates) reach git's state.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import msgspec

from bb7.refusal import PathProblemKind

PROTECTED = (".git", ".bb7")


class PathProblem(msgspec.Struct, frozen=True):
    """Why a path was refused."""

    kind: PathProblemKind
    message: str


def tilde(path: str) -> str:
    """`path` as people write it: the home directory as `~` (`~/project`)."""
    home = os.path.expanduser("~")
    if path == home or path.startswith(home + os.sep):
        return "~" + path[len(home) :]
    return path


def protected_part(parts: tuple[str, ...]) -> str | None:
    """The first of `parts` that names bb7's or git's own state (any case), if any."""
    for part in parts:
        if part.casefold() in PROTECTED:
            return part
    return None


def name_problem(path: str) -> PathProblem | None:
    """Why `path` (as the command line gave it) cannot be kept as text: a name that is not
    UTF-8 arrives with surrogate escapes, which neither the database nor a model can hold."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(path).decode("utf-8", errors="backslashreplace")
        return PathProblem(
            "bad_name",
            f"{shown}: the file name is not valid UTF-8; bb7 keeps names as UTF-8 text, so "
            "rename the file first",
        )
    return None


def project_path(root: Path, path: str) -> str | PathProblem:
    """The normalised root-relative POSIX path for `path` (relative to root, or absolute)."""
    raw = path.strip()
    if not raw:
        return PathProblem("empty", "the path is empty")
    bad = name_problem(raw)
    if bad is not None:
        return bad
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
    protected = protected_part(parts)
    if protected is not None:
        return PathProblem(
            "protected",
            f"{raw}: {protected}/ holds git's or bb7's own state, which bb7 never edits",
        )
    real = Path(os.path.realpath(root_real / relative))
    if real != root_real and root_real not in real.parents:
        return PathProblem(
            "outside_root", f"{raw} resolves through a symlink to {real}, outside the project"
        )
    protected = protected_part(real.relative_to(root_real).parts)
    if protected is not None:
        return PathProblem(
            "protected",
            f"{raw} resolves through a symlink to {real}, inside {protected}/, which holds "
            "git's or bb7's own state; bb7 never edits it",
        )
    return PurePosixPath(*parts).as_posix()
