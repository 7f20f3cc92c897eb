"""`git ls-files` of a directory: what git tracks there and what it ignores, for the file picker
and the checks' copy. None whenever git cannot say (no repository, no git, too slow): callers
then walk the tree themselves."""

from __future__ import annotations

import subprocess
from pathlib import Path


def in_git(root: Path) -> bool:
    """Whether `root` is inside a git work tree, judged by a `.git` in it or above it (asking
    git costs a process start, ~10 ms, that a plain directory need not pay)."""
    return any((directory / ".git").exists() for directory in (root, *root.parents))


def ls_files(
    root: Path, *args: str, timeout: float = 5.0, errors: str = "replace"
) -> list[str] | None:
    """`git ls-files` output (NUL-separated, so any name works), or None when git cannot say;
    `errors`: how names that are not UTF-8 are decoded."""
    if not in_git(root):
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", *args],
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [name for name in done.stdout.decode("utf-8", errors).split("\0") if name]
