"""The project's files for the chat view's file picker and `@` completion: git-tracked files
first, then the untracked ones git does not ignore; outside a git repository, a walk of the
tree that skips hidden directories. Paths are relative to the root, `/`-separated, at most
`limit` of them. Not for deciding what the model may see (the chat's context does that).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from bb7.adding.ignore import load_ignore

LIMIT = 20_000
GIT_TIMEOUT = 5.0
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "target", "build", "dist"})


def _git(root: Path, *args: str) -> list[str] | None:
    """`git ls-files` output (NUL-separated, so any name works), or None when git cannot say."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", *args],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [name for name in done.stdout.decode("utf-8", "replace").split("\0") if name]


def _walk(root: Path, limit: int) -> list[str]:
    found: list[str] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        rel = Path(directory).relative_to(root).as_posix()
        for name in sorted(files):
            found.append(name if rel == "." else f"{rel}/{name}")
            if len(found) >= limit:
                return found
    return found


def files_under(directory: Path, limit: int = LIMIT) -> list[str]:
    """The files under `directory` (relative to it) that git does not ignore, tracked or not;
    outside git, a walk that skips hidden directories. At most `limit` (+1, to tell a cut)."""
    listed = _git(directory, "--cached", "--others", "--exclude-standard")
    if listed is None:
        return _walk(directory, limit + 1)
    return sorted(set(listed))[: limit + 1]


def project_files(root: Path, limit: int = LIMIT) -> list[str]:
    """The files under `root`, git-tracked ones first (each group in git's order), without
    those `.bb7/ignore` names."""
    ignore = load_ignore(root)
    tracked = _git(root)
    if tracked is None:
        return ignore.keep(_walk(root, limit))
    untracked = _git(root, "--others", "--exclude-standard") or []
    seen: set[str] = set()
    out: list[str] = []
    for name in tracked + untracked:
        # A deleted but still tracked file cannot be added.
        fresh = name not in seen and name != ".bb7" and not name.startswith(".bb7/")
        if fresh and (root / name).is_file():
            seen.add(name)
            out.append(name)
            if len(out) >= limit:
                break
    return ignore.keep(out)
