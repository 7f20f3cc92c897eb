"""The project's files for the chat view's file picker and `@` completion: git-tracked files
first, then the untracked ones git does not ignore; outside a git repository, a walk of the
tree that skips hidden directories. Paths are relative to the root, `/`-separated, at most
`limit` of them. A symlink is listed only where the path rule lets bb7 read it
(`bb7.files.guard`: a link out of the project, into `.git`/`.bb7` or onto what `.bb7/ignore`
leaves out is no project file to pick). Not for deciding what the model may see (the chat's
context does that).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

from bb7.files.git import ls_files
from bb7.files.guard import readable
from bb7.files.ignore import IgnoreRules, load_ignore

LIMIT = 20_000
GIT_TIMEOUT = 5.0
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "target", "build", "dist"})


def _git(root: Path, *args: str) -> list[str] | None:
    return ls_files(root, *args, timeout=GIT_TIMEOUT)


class _Listed(NamedTuple):
    mtime_ns: int
    files: list[str]
    subdirs: list[str]
    links: frozenset[str]  # the files that are symlinks


# Per directory walked: its names as of its mtime (adding, removing or renaming an entry
# changes a directory's mtime), so a walk again lists only directories that changed.
_LISTED: dict[str, _Listed] = {}
_LISTED_MAX = 100_000


def _list_dir(directory: str) -> _Listed | None:
    try:
        mtime = os.stat(directory).st_mtime_ns
    except OSError:
        return None
    cached = _LISTED.get(directory)
    if cached is not None and cached.mtime_ns == mtime:
        return cached
    files: list[str] = []
    subdirs: list[str] = []
    links: set[str] = set()
    try:
        with os.scandir(directory) as scan:
            for entry in scan:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if not is_dir:
                    if entry.is_symlink():
                        links.add(entry.name)
                    elif not entry.is_file(follow_symlinks=False):
                        continue  # a FIFO, socket or device is no file to read
                    files.append(entry.name)
                elif not (
                    entry.is_symlink() or entry.name.startswith(".") or entry.name in SKIPPED_DIRS
                ):
                    subdirs.append(entry.name)
    except OSError:
        return None
    if len(_LISTED) >= _LISTED_MAX:
        _LISTED.clear()
    listed = _LISTED[directory] = _Listed(mtime, sorted(files), sorted(subdirs), frozenset(links))
    return listed


def _walk(root: Path, limit: int, links: list[str] | None = None) -> list[str]:
    """Depth first, each directory's files (sorted) before its subdirectories (sorted), as
    `os.walk` goes; directory symlinks are not followed. Unchanged directories come from
    the last walk (a stat each instead of a listing). `links` gets the files that are
    symlinks."""
    found: list[str] = []
    stack = [("", str(root))]
    while stack:
        prefix, directory = stack.pop()
        listed = _list_dir(directory)
        if listed is None:
            continue
        found.extend(prefix + name for name in listed.files)
        if links is not None:
            links.extend(prefix + name for name in listed.links)
        if len(found) >= limit:
            return found[:limit]
        stack.extend(
            (f"{prefix}{name}/", os.path.join(directory, name)) for name in reversed(listed.subdirs)
        )
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
        links: list[str] = []
        walked = _walk(root, limit, links)
        refused = {name for name in links if not _readable_link(root, name, ignore)}
        return ignore.keep([name for name in walked if name not in refused] if refused else walked)
    untracked = _git(root, "--others", "--exclude-standard") or []
    seen: set[str] = set()
    out: list[str] = []
    for name in tracked + untracked:
        fresh = name not in seen and name != ".bb7" and not name.startswith(".bb7/")
        if fresh and _pickable(root, name, ignore):
            seen.add(name)
            out.append(name)
            if len(out) >= limit:
                break
    return ignore.keep(out)


def _pickable(root: Path, name: str, ignore: IgnoreRules) -> bool:
    """Whether git's `name` is a file to pick: a regular file, or a link the path rule lets
    bb7 read to one (a deleted but still tracked file cannot be added)."""
    try:
        mode = os.lstat(root / name).st_mode
    except OSError:
        return False
    if stat.S_ISLNK(mode):
        return _readable_link(root, name, ignore)
    return stat.S_ISREG(mode)


def _readable_link(root: Path, name: str, ignore: IgnoreRules) -> bool:
    """Whether the symlink `name` leads to a file bb7 may read (`bb7.files.guard.readable`)."""
    return (root / name).is_file() and isinstance(readable(root, name, ignore), str)
