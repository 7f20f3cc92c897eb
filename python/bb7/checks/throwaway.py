"""The throwaway copy a check runs in: the project with the pending outputs over it, which no
check can use to change the project. Two ways to make it, one per run:

- `layered`: where the kernel lets a user make namespaces (`bb7.checks.jail`), nothing is
  copied. The pending outputs are written to a small directory that the jail lays, with a
  tmpfs for the check's own writes, over the project's directory itself, in the check's mount
  namespace alone. Ignored files and tool directories (`.venv`, `node_modules`, `target`) are
  there as they are in the project; what a check writes into them lands in the tmpfs and is
  gone when the check ends.
- `copied` (macOS, kernels or containers that refuse user namespaces): a real copy kept per
  project in the cache directory (`$XDG_CACHE_HOME/bb7/checks/`), brought up to date from a
  manifest of both sides' stat signatures, so a second preparation copies only what changed
  (in the project, or in the copy by the last check: on Linux a `Watch` says what the checks
  touched, so the copy is not walked again; elsewhere every file of it is looked at). What
  git ignores and tool directories are not copied but reached through symlinks into the
  project. A check there may write only beneath `View.writable` (the copy, a TMPDIR of its
  own, /dev and the user's caches; `bb7.checks.jail` holds it to that with Landlock), so a
  write through those links fails; where the kernel has no Landlock, `bb7.checks.run` does not
  run checks there unless the user asked for an unconfined copy.

Not for running anything (`bb7.checks.process`) or choosing the checks (`bb7.checks.config`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import msgspec

from bb7.checks.watch import Watch
from bb7.files.git import ls_files
from bb7.process import alive

# `unconfined`: the copy without Landlock, which the user asked for (BB7_CHECKS_ISOLATION).
Isolation = Literal["namespace", "copy", "unconfined"]
# Never copied: reached where they are (the project's own tools, build outputs, git's store).
TOOL_DIRS = frozenset(
    {".git", ".venv", "venv", "node_modules", "target", ".tox", ".nox", ".direnv", ".hg"}
)
# bb7's own state is no check's business.
SKIPPED = frozenset({".bb7"})
_TOOLISH = re.compile(
    "(?:^|/)(?:" + "|".join(re.escape(n) for n in sorted(TOOL_DIRS | SKIPPED)) + ")(?:/|$)"
)
# What checks write for themselves and may reuse at the next check (Python bytecode validates
# itself against its source): kept in the copy when a check made it.
OWN_CACHES = frozenset(
    {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}
)
CACHE_DIRS = TOOL_DIRS | OWN_CACHES
# Names as bytes allow (a name that is not UTF-8 is copied as it is), and time for big trees.
_GIT: dict[str, Any] = {"timeout": 30.0, "errors": "surrogateescape"}
MANIFEST_VERSION = 2
TOUCHED = "touched.msgpack"
MANIFEST = "manifest.msgpack"
STATE = "state.msgpack"


class Pending(msgspec.Struct, frozen=True):
    """A pending output as the copy holds it: the bytes applying would write, and the mode
    (the local file's, when there is one)."""

    path: str
    data: bytes
    mode: int = 0o644


# Beneath the user's home: the caches of the tools checks run (pip, uv, ruff, npm, cargo, go,
# gradle, maven), which a check in the copy may write to (never one holding the project).
TOOL_CACHES = (".npm", ".cargo", "go", ".gradle", ".m2")
# The devices a check may write to, one by one: /dev itself may hold the project (/dev/shm).
DEVICES = ("null", "zero", "full", "random", "urandom", "tty", "pts", "shm")


class View(msgspec.Struct, kw_only=True):
    """Where a check runs: `cwd`, and for `namespace`, what the jail lays over `root`; for
    the copy, `tmp` (the check's TMPDIR) and `writable`, where alone it may write (empty:
    anywhere, the unconfined copy)."""

    isolation: Isolation
    root: Path
    cwd: Path
    layers: list[str] = []
    scratch: str = ""
    tmp: str = ""
    writable: list[str] = []


def cache_home() -> Path:
    """$XDG_CACHE_HOME/bb7/checks (else ~/.cache/bb7/checks)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bb7" / "checks"


def project_cache(root: Path) -> Path:
    """This project's corner of the cache: its name, and a digest of its path to tell two
    projects of one name apart."""
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return cache_home() / f"{root.name or 'root'}-{digest}"


def _write(target: Path, item: Pending) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError, IsADirectoryError):
        target.unlink()
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, item.mode & 0o7777)
    try:
        os.write(fd, item.data)
        os.fchmod(fd, item.mode & 0o7777)
    finally:
        os.close(fd)


@contextlib.contextmanager
def layered(root: Path, pending: Sequence[Pending], home: Path | None = None) -> Iterator[View]:
    """A run directory for the jail (in `home`, by default the project's corner of the
    cache): the pending outputs as a layer over `root`, and an empty mount point for the
    tmpfs the check writes to; removed when the block ends."""
    runs = (home or project_cache(root)) / "runs"
    _remove_dead_runs(runs)
    run = runs / f"{os.getpid()}-{secrets.token_hex(4)}"
    layer, scratch = run / "pending", run / "mnt"
    layer.mkdir(parents=True)
    scratch.mkdir()
    try:
        for item in pending:
            _write(layer / item.path, item)
        yield View(
            isolation="namespace", root=root, cwd=root, layers=[str(layer)], scratch=str(scratch)
        )
    finally:
        shutil.rmtree(run, ignore_errors=True)


def _remove_dead_runs(runs: Path) -> None:
    """Run directories of a bb7 that was killed during a check."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(runs):
            pid = entry.name.split("-", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not alive(int(pid)):
                shutil.rmtree(entry.path, ignore_errors=True)


# ---- the copy ----------------------------------------------------------------------------


Sig = tuple[int, int, int, int]  # size, mtime_ns, inode, mode


def _sig(info: os.stat_result) -> Sig:
    return (info.st_size, info.st_mtime_ns, info.st_ino, info.st_mode)


class Manifest(msgspec.Struct, kw_only=True):
    """What the last preparation left in the copy of the project: per copied path the
    project's signature and the copy's; per reached path the link. Written only when it
    changed (a second preparation with the project unchanged writes `State` alone)."""

    version: int = MANIFEST_VERSION
    files: dict[str, tuple[Sig, Sig]] = {}
    links: dict[str, str] = {}


class State(msgspec.Struct, kw_only=True):
    """What the last preparation put over the project: per pending path its digest and the
    copy's signature; `generation` counts the preparations."""

    version: int = MANIFEST_VERSION
    generation: int = 0
    pending: dict[str, tuple[str, Sig]] = {}


class Touched(msgspec.Struct):
    """What the checks run since preparation `generation` touched in the copy (`Watch`)."""

    generation: int
    paths: list[str]


class Listing(msgspec.Struct):
    """The project as the copy mirrors it: files to copy and entries to reach."""

    files: list[str]
    reached: list[str]


class KnownListing(msgspec.Struct):
    """A listing kept with what it depended on: the mtime of every directory holding a listed
    entry (a file added, removed or renamed there changes it; `dirs` lists them) and of the
    files that say what git ignores and tracks (`.gitignore`s, `.git/index`,
    `.git/info/exclude`), as of `listed_at` (ns)."""

    listing: Listing
    mtimes: dict[str, int]
    listed_at: int
    dirs: list[str] = []


# A directory changed this close to its listing may change again within the same tick of a
# coarse clock (git calls such entries racy): such a listing is made again.
RACY_NS = 2_000_000_000
LISTING = "listing.msgpack"


def _dirs(paths: Iterable[str]) -> set[str]:
    """The directories holding `paths` (their parents up to the root, '')."""
    found = {""}
    for path in paths:
        parent = path.rpartition("/")[0]
        while parent not in found:
            found.add(parent)
            parent = parent.rpartition("/")[0]
    return found


def _mtimes(root: Path, paths: Iterable[str]) -> dict[str, int] | None:
    """The mtimes of `paths` now (-1: not there; None when one cannot be read)."""
    at = f"{root}/"
    mtimes: dict[str, int] = {}
    for path in paths:
        try:
            mtimes[path] = os.stat(at + path if path else str(root)).st_mtime_ns
        except FileNotFoundError:
            mtimes[path] = -1
        except OSError:
            return None
    return mtimes


def known_listing(root: Path, home: Path) -> tuple[KnownListing, bool]:
    """`list_project` (and True), unless nothing it depends on changed since the last one:
    then that one (and False), without a git process or a walk (the project's directories are
    looked at, not its files)."""
    kept = _load(home / LISTING, KnownListing)
    trusted = kept is not None and all(m < kept.listed_at - RACY_NS for m in kept.mtimes.values())
    if kept is not None and trusted and _mtimes(root, kept.mtimes) == kept.mtimes:
        return kept, False
    listed_at = time.time_ns()
    listing = list_project(root)
    dirs = _dirs([*listing.files, *listing.reached])
    rules = [p for p in listing.files if p.endswith(".gitignore")]
    mtimes = _mtimes(root, [*dirs, *rules, ".git/index", ".git/info/exclude"])
    known = KnownListing(listing, mtimes or {}, listed_at, sorted(dirs - {""}))
    if mtimes is not None:
        _save(home / LISTING, known)
    return known, True


def _tool_part(path: str) -> str | None:
    """The leading part of `path` that is reached rather than copied, if any."""
    if not _TOOLISH.search(path):
        return None  # most paths: one regex search instead of a split and a loop
    parts = path.rstrip("/").split("/")
    for depth, part in enumerate(parts, 1):
        if part in TOOL_DIRS or (depth == 1 and part in SKIPPED):
            return "/".join(parts[:depth])
    return None


def list_project(root: Path) -> Listing:
    """Files to copy (what git lists as tracked or not ignored, else a walk) and entries to
    reach (what git ignores, tool directories, `.git`)."""
    files: list[str] = []
    reached: dict[str, None] = {}
    listed = ls_files(root, "-co", "--exclude-standard", **_GIT)
    ignored = ls_files(root, "-oi", "--exclude-standard", "--directory", **_GIT) if listed else None
    if listed is None or ignored is None:
        listed, ignored = _walk(root), []
    for path in listed:
        top = _tool_part(path)
        if top is None:
            files.append(path)
        elif top.split("/")[0] not in SKIPPED:
            reached[top] = None
    for path in ignored:
        top = _tool_part(path) or path.rstrip("/")
        # A check makes its own caches in the copy; through a link it would write the project's.
        if top.split("/")[0] not in SKIPPED and top.rsplit("/", 1)[-1] not in OWN_CACHES:
            reached[top] = None
    if (root / ".git").exists():
        reached[".git"] = None
    return Listing(files, list(reached))


def _scan(top: Path) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry under `top` but those under cache and tool directories (which are given,
    not entered), with its root-relative path."""
    stack = [""]
    at = f"{top}/"
    while stack:
        prefix = stack.pop()
        try:
            entries = list(os.scandir(at + prefix))
        except OSError:
            continue
        for entry in entries:
            path = f"{prefix}{entry.name}"
            if entry.is_dir(follow_symlinks=False) and entry.name not in CACHE_DIRS:
                stack.append(path + "/")
            yield path, entry


def _walk(root: Path) -> list[str]:
    """Every file under `root` and every tool directory (where there is no git to ask)."""
    out: list[str] = []
    for path, entry in _scan(root):
        if not entry.is_dir(follow_symlinks=False):
            out.append(path)
        elif entry.name in TOOL_DIRS:
            out.append(path + "/")
    return out


def _walk_copy(copy: Path) -> dict[str, os.stat_result]:
    """Every file and link in the copy but those under cache directories, with its lstat (a
    check may have changed any of them)."""
    found: dict[str, os.stat_result] = {}
    for path, entry in _scan(copy):
        if not entry.is_dir(follow_symlinks=False):
            with contextlib.suppress(OSError):
                found[path] = entry.stat(follow_symlinks=False)
    return found


def _remove(target: Path) -> None:
    with contextlib.suppress(OSError):
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()


def _copy_file(source: Path, target: Path, info: os.stat_result) -> None:
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    else:
        with contextlib.suppress(FileNotFoundError):
            target.unlink()
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(source), target)
        return
    try:
        shutil.copy2(source, target, follow_symlinks=False)
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)


def _link(root: Path, copy: Path, path: str) -> None:
    target = copy / path
    want = str(root / path)
    with contextlib.suppress(OSError):
        if os.readlink(target) == want:
            return
    _remove(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(want, target)


def _digest(item: Pending) -> str:
    return hashlib.sha256(item.data + item.mode.to_bytes(4, "little")).hexdigest()


class SyncReport(msgspec.Struct):
    """What one preparation of the copy did (for the benchmark and the tests): files copied,
    removed and kept; `walked`: the whole copy was looked at (no watch said what the checks
    touched); `listed`: the project was listed again (git, or a walk: something changed in
    its directories); `dirs` the copy's directories, `generation` this preparation's."""

    copied: int
    removed: int
    kept: int
    walked: bool = True
    listed: bool = True
    generation: int = 0
    dirs: list[str] = []


def writable(root: Path, home: Path) -> list[str]:
    """Where a check in the copy may write: the copy, its TMPDIR, devices (null, tty, shm)
    and the user's tool caches, but none that holds the project (nor the project itself)."""
    user = Path.home()
    caches = [Path(os.environ.get("XDG_CACHE_HOME") or user / ".cache")]
    own = [home / "copy", home / "tmp"]
    shared = [*(Path("/dev") / d for d in DEVICES), *caches, *(user / c for c in TOOL_CACHES)]
    shared = [p for p in shared if not (root.is_relative_to(p) or p.is_relative_to(root))]
    return [str(p) for p in [*own, *shared]]


@contextlib.contextmanager
def copied(root: Path, pending: Sequence[Pending], *, confined: bool = True) -> Iterator[View]:
    """The project's copy with `pending` over it, held (a lock) until the block ends: checks
    of one project take their turns at its copy, each with an empty TMPDIR of its own;
    `confined`: allowed to write only there (`writable`)."""
    home = project_cache(root)
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        report = sync_copy(root, pending)
        watch = Watch.start(str(home / "copy"), report.dirs)
        tmp = home / "tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            yield View(
                isolation="copy" if confined else "unconfined",
                root=root,
                cwd=home / "copy",
                tmp=str(tmp),
                writable=writable(root, home) if confined else [],
            )
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            touched = None if watch is None else watch.stop()
            if touched is not None:
                _save(home / TOUCHED, Touched(report.generation, sorted(touched)))


def sync_copy(root: Path, pending: Sequence[Pending]) -> SyncReport:
    """Bring this project's copy up to date with the project and `pending` (under its lock)."""
    home = project_cache(root)
    copy = home / "copy"
    copy.mkdir(parents=True, exist_ok=True)
    manifest = _load(home / MANIFEST, Manifest) or Manifest()
    state = _load(home / STATE, State) or State()
    if MANIFEST_VERSION not in (manifest.version, state.version) or not state.generation:
        manifest, state = Manifest(), State()
    touched = _load(home / TOUCHED, Touched)
    (home / TOUCHED).unlink(missing_ok=True)
    known, listed = known_listing(root, home)
    listing = known.listing
    if touched is not None and touched.generation == state.generation:
        in_copy = _as_left(manifest, state, touched.paths, str(copy))
        walked = False
    else:
        in_copy = {path: _sig(info) for path, info in _walk_copy(copy).items()}
        walked = True
    by_path = {item.path: item for item in pending}
    new, new_state = Manifest(), State(generation=state.generation + 1)
    copied_n = kept = 0
    # Strings, not Paths, in the loop over every file: pathlib's joins cost as much as a stat.
    at = f"{root}/"
    for path in listing.files:
        if path in by_path:
            continue
        try:
            info = os.lstat(at + path)
        except OSError:
            continue  # tracked but deleted, or gone meanwhile
        if stat.S_ISDIR(info.st_mode):
            new.links[path] = str(root / path)  # a submodule: reached
            continue
        project_sig = _sig(info)
        before = manifest.files.get(path)
        now = in_copy.get(path)
        if before is not None and now is not None and before == (project_sig, now):
            new.files[path] = before
            kept += 1
            continue
        _copy_file(root / path, copy / path, info)
        new.files[path] = (project_sig, _sig(os.lstat(copy / path)))
        copied_n += 1
    for item in pending:
        digest = _digest(item)
        was = state.pending.get(item.path)
        now = in_copy.get(item.path)
        if was is not None and now is not None and was == (digest, now):
            new_state.pending[item.path] = was
            kept += 1
            continue
        _write(copy / item.path, item)
        new_state.pending[item.path] = (digest, _sig(os.lstat(copy / item.path)))
        copied_n += 1
    for path in listing.reached:
        if path not in by_path:
            _link(root, copy, path)
            new.links[path] = str(root / path)
    # Whatever else is in the copy: an old file of the project, or a check's.
    removed = 0
    for path in in_copy:
        if path not in new.files and path not in new_state.pending and path not in new.links:
            _remove(copy / path)
            removed += 1
    for path in set(manifest.links) - set(new.links):
        _remove(copy / path)
    if new != manifest:
        _save(home / MANIFEST, new)
    _save(home / STATE, new_state)
    dirs = set(known.dirs) | _dirs(new_state.pending)
    return SyncReport(
        copied=copied_n,
        removed=removed,
        kept=kept,
        walked=walked,
        listed=listed,
        generation=new_state.generation,
        dirs=sorted(dirs - {""}),
    )


def _as_left(manifest: Manifest, state: State, touched: list[str], copy: str) -> dict[str, Sig]:
    """The copy as the last preparation left it, but what the checks since touched, looked at
    again: the copy without a walk of it."""
    found: dict[str, Sig] = {path: sigs[1] for path, sigs in manifest.files.items()}
    found.update({path: sigs[1] for path, sigs in state.pending.items()})
    for path in touched:
        if CACHE_DIRS.intersection(path.split("/")):
            continue  # a check's own cache: kept, as a walk keeps it
        found.pop(path, None)
        with contextlib.suppress(OSError):
            found[path] = _sig(os.lstat(f"{copy}/{path}"))
    return found


S = TypeVar("S", bound=msgspec.Struct)


# What this process last read or wrote of each record file, by the file's signature: a host
# that prepares the copy again decodes nothing that did not change.
_KEPT: dict[str, tuple[Sig, msgspec.Struct]] = {}


def _load(path: Path, kind: type[S]) -> S | None:
    try:
        sig = _sig(os.stat(path))
        kept = _KEPT.get(str(path))
        if kept is not None and kept[0] == sig and isinstance(kept[1], kind):
            return kept[1]
        record = msgspec.msgpack.decode(path.read_bytes(), type=kind)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    _KEPT[str(path)] = (sig, record)
    return record


def _save(path: Path, record: msgspec.Struct) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(msgspec.msgpack.encode(record))
        os.replace(tmp, path)
        _KEPT[str(path)] = (_sig(os.stat(path)), record)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        tmp.unlink(missing_ok=True)  # a full disk: the next preparation compares everything
