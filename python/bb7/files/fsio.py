"""Reading project files as text and writing them atomically; nothing else touches the disk.

Text is decoded as UTF-8 with no newline translation, so CRLF and a BOM survive a round trip.
Only regular files are read or replaced: the type is checked with stat and the file is opened
with O_NONBLOCK, so a FIFO or a device never hangs bb7 or fills its memory. One size limit,
`MAX_BYTES`, holds for what bb7 reads and what it writes, so whatever bb7 wrote it can read
back (and undo). Writes go to a temp file (`.NAME.PID.XXXX.bb7-tmp`) in the same directory,
are fsynced, take over the old file's mode, owner and group (where the process may) and are
renamed into place: a crash leaves either the old or the new file, never a partial one. Right
before the rename the file is looked at again: when another program wrote it meanwhile, nothing
is replaced (`FileMoved`). The old file stays open across the rename and is read again after
it: text another program wrote into it between that last look and the rename (an appended
line) is merged into the new file, or, when it overlaps, put back in place of bb7's
(`FileMoved`); read again after that merge's write, until nothing new came. Only a write into
the old file after its last read is lost (no rename can keep it: that file has no name by
then). A new file is linked into place, never over one created meanwhile. A file with several
hard links is written in place (a rename would split the links): the old bytes go to a backup
first, and a line appended while bb7 writes lands past its bytes and is kept after them. A
symlink is written through to its target (the link stays a link); callers check that the
target is one bb7 may write (`bb7.files.paths.project_path`). Temp files a killed bb7 left
are removed by the next write of the same file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

import msgspec

from bb7.refusal import FileProblemKind

MAX_BYTES = 1024 * 1024
DEFAULT_MAX_BYTES = MAX_BYTES
BINARY_PROBE = 8192
TEMP_SUFFIX = ".bb7-tmp"
# The old bytes of a hard-linked file while bb7 overwrites it in place (see `_write_in_place`).
BACKUP_SUFFIX = ".bb7-backup"

# Test tooling: a test names a step of a write (or of an apply, see `bb7.state.outputs`) in this
# variable, and the process kills itself there, as a power cut or `kill -9` would; or, named in
# `STOP_ENV`, stops itself there (SIGSTOP) until the test has raced it and sends SIGCONT.
CRASH_ENV = "BB7_CRASH_AT"
STOP_ENV = "BB7_STOP_AT"


class FileProblem(msgspec.Struct, frozen=True):
    """Why a file is not usable as text."""

    kind: FileProblemKind
    message: str


class NotRegularFile(OSError):
    """Raised by `atomic_write` for a target that is a FIFO, device, socket or directory."""


def crash_point(step: str) -> None:
    """Die (or stop) here, without any clean-up, when the test tooling asks for it (see
    `CRASH_ENV`, `STOP_ENV`)."""
    if os.environ.get(CRASH_ENV) == step:
        import signal  # only the crash tests get here; a start of `bb7` skips the import

        os.kill(os.getpid(), signal.SIGKILL)
    if os.environ.get(STOP_ENV) == step:
        import signal

        os.kill(os.getpid(), signal.SIGSTOP)


def is_binary(data: bytes) -> bool:
    """A NUL byte in the first 8 KiB marks a file as binary (git's rule)."""
    return b"\0" in data[:BINARY_PROBE]


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words for a message."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _special(path: Path, mode: int) -> FileProblem:
    return FileProblem(
        "special", f"{path} is {kind_of(mode)}, not a regular file; bb7 only reads regular files"
    )


def load_text(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> str | FileProblem:
    """The file's exact text, or why it cannot be edited as text."""
    data = load_bytes(path, max_bytes=max_bytes)
    return data if isinstance(data, FileProblem) else decode(data, str(path))


def load_bytes(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes | FileProblem:
    """The bytes of a regular file of at most `max_bytes`, or why they cannot be read."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            return FileProblem("unreadable", f"{path} is a directory")
        if not stat.S_ISREG(info.st_mode):
            return _special(path, info.st_mode)
        if info.st_size > max_bytes:
            return _too_large(path, info.st_size, max_bytes)
        # O_NONBLOCK: the path may have become a FIFO since the stat; opening one must not wait
        # for a writer. fstat then checks what was actually opened.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as handle:
            opened = os.fstat(handle.fileno())
            if not stat.S_ISREG(opened.st_mode):
                return _special(path, opened.st_mode)
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        return FileProblem("missing", f"{path} does not exist")
    except IsADirectoryError:
        return FileProblem("unreadable", f"{path} is a directory")
    except OSError as exc:
        return FileProblem("unreadable", f"{path} cannot be read: {exc.strerror}")
    if len(data) > max_bytes:
        return _too_large(path, len(data), max_bytes)
    return data


def _too_large(path: Path, size: int, max_bytes: int) -> FileProblem:
    return FileProblem("too_large", too_large(str(path), size, max_bytes))


def too_large(name: str, size: int, max_bytes: int = MAX_BYTES) -> str:
    """The one line that says a file is over bb7's size limit."""
    return f"{name} is {size} bytes, over bb7's limit of {max_bytes} bytes for a file"


def decode(data: bytes, name: str) -> str | FileProblem:
    if is_binary(data):
        return FileProblem("binary", f"{name} is a binary file (it contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FileProblem("not_utf8", f"{name} is not valid UTF-8 (byte {exc.start})")


def write_target(path: Path) -> Path:
    """The file a write to `path` replaces: the target of a symlink (followed to the end),
    else `path` itself."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def is_read_only(path: Path) -> bool:
    """Whether the existing file at `path` (through symlinks) has no owner write bit, the way
    an editor marks a file it should not overwrite without `:w!`."""
    try:
        return not path.stat().st_mode & stat.S_IWUSR
    except OSError:
        return False


def temp_files(directory: Path, name: str) -> list[Path]:
    """bb7's own temp files for a file called `name` in `directory` (left by a killed write)."""
    try:
        return sorted(directory.glob(f".{glob_escape(name)}.*{TEMP_SUFFIX}"))
    except OSError:
        return []


def backups(directory: Path, name: str) -> list[Path]:
    """Backups that a write in place of `name` killed halfway left beside it: each holds the
    file's text from before that write. Never removed silently: bb7 names them instead."""
    try:
        found = sorted(directory.glob(f".{glob_escape(name)}.*{BACKUP_SUFFIX}"))
    except OSError:
        return []
    from bb7.process import alive  # only a write, or a command about to write, gets here

    prefix = f".{name}."
    left = []
    for backup in found:
        pid = backup.name[len(prefix) :].split(".", 1)[0]
        if pid.isdigit() and not alive(int(pid)):
            left.append(backup)
    return left


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


class FileMoved(OSError):
    """Raised by `atomic_write` when the file changed between the caller's look and the write
    (another program wrote it): nothing was written."""


class Unchecked:
    """`atomic_write(..., expect=UNCHECKED)`: replace the file whatever it holds now."""


UNCHECKED = Unchecked()


def atomic_write(
    path: Path, text: str, *, expect: str | Unchecked | None = UNCHECKED
) -> str | None:
    """Replace `path` with `text` (UTF-8) atomically, keeping the existing file's mode, owner
    and group. Returns None, or the text now in the file when another program's late write
    was merged into `text` (see the module docstring).

    `expect`: the text the caller last saw in the file (None: no file), checked again right
    before the rename; `FileMoved` when it differs. A symlink is written through (see
    `write_target`). Raises `NotRegularFile` when the target exists and is not a regular file,
    OSError (EFBIG) for text over `MAX_BYTES`, OSError when the write fails; the original file
    is then untouched.
    """
    data = text.encode("utf-8")
    path = write_target(path)
    if len(data) > MAX_BYTES:
        raise OSError(errno.EFBIG, too_large("the new text", len(data)), str(path))
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    info = _stat(path)
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise NotRegularFile(
            errno.EINVAL, f"{kind_of(info.st_mode)}, not a regular file", str(path)
        )
    remove_leftovers(directory, path.name)
    if info is not None and info.st_nlink > 1:
        return _write_in_place(path, data, info, expect)
    # Imported here, on the first write: tempfile (with random and weakref) costs a command that
    # only reads, such as `bb7 status`, a noticeable part of its start.
    import tempfile

    held = _hold(path, info, expect)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=directory
        )
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if info is not None:
                _keep_owner(tmp, info)
                os.chmod(tmp, stat.S_IMODE(info.st_mode))
            else:
                os.chmod(tmp, 0o666 & ~_umask())
            crash_point("after_temp_write")
            _look_again(path, info, expect)
            crash_point("before_rename")
            _rename(tmp, path, create=expect is None)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        _fsync_dir(directory)
        crash_point("after_rename")
        return _keep_late(path, held, expect, text)
    finally:
        if held is not None:
            os.close(held)


def _hold(path: Path, info: os.stat_result | None, expect: str | Unchecked | None) -> int | None:
    """The old file, open for the look after the rename (when the caller said what it saw)."""
    if info is None or not isinstance(expect, str):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    opened = os.fstat(fd)
    if (opened.st_ino, opened.st_dev) != (info.st_ino, info.st_dev):
        os.close(fd)
        raise FileMoved(errno.EAGAIN, "replaced by another program meanwhile", str(path))
    return fd


def _rename(tmp: str, path: Path, *, create: bool) -> None:
    """Put the temp file in place: a new file by a link, which never replaces a file another
    program created meanwhile (a filesystem without links gets the rename)."""
    if create:
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise FileMoved(
                errno.EEXIST, "created by another program meanwhile", str(path)
            ) from None
        except OSError:
            pass  # no hard links here
        else:
            os.unlink(tmp)
            return
    os.replace(tmp, path)


# How often the old file is read again after a late write was merged in (each merge's own
# write takes time, in which the other program may write once more).
_LATE_ROUNDS = 3


def _late_text(held: int | None, seen: str | Unchecked | None) -> str | None:
    """What the old file holds now when another program wrote into it after bb7 last saw
    `seen` there (None: nothing new)."""
    if held is None or not isinstance(seen, str):
        return None
    try:
        data = os.pread(held, MAX_BYTES + 1, 0)
    except OSError:
        return None
    late = decode(data, "")
    return late if isinstance(late, str) and late != seen else None


def _keep_late(path: Path, held: int | None, seen: str | Unchecked | None, text: str) -> str | None:
    """The old file, still open after the rename, read again: what another program wrote into
    it after bb7's last look is merged into `text` or, when the two change the same lines, put
    back in place of bb7's (`FileMoved`): never lost. The merge's own write takes time, so the
    old file is read again after it, until nothing new came (a write into the old file after
    the last read is the window left: that file has no name by then). Returns the text now in
    the file when a late write was merged in, else None."""
    written = text
    for _ in range(_LATE_ROUNDS):
        late = _late_text(held, seen)
        if late is None:
            break
        from bb7.text.merge import merge3  # only a write that raced another program gets here

        assert isinstance(seen, str)
        merged = merge3(seen, late, written)
        if merged.conflicts:
            atomic_write(path, late, expect=written)
            raise FileMoved(errno.EAGAIN, "written by another program meanwhile", str(path))
        again = atomic_write(path, merged.text, expect=written)
        seen, written = late, merged.text if again is None else again
    return None if written == text else written


def _look_again(path: Path, seen: os.stat_result | None, expect: str | Unchecked | None) -> None:
    """Raise `FileMoved` when `path` no longer holds `expect` (the last look before writing)."""
    if isinstance(expect, Unchecked):
        return
    now = _stat(path)
    if expect is None:
        if now is not None:
            raise FileMoved(errno.EEXIST, "created by another program meanwhile", str(path))
        return
    if now is None or seen is None:
        raise FileMoved(errno.ENOENT, "deleted or renamed meanwhile", str(path))
    same_file = (now.st_ino, now.st_dev) == (seen.st_ino, seen.st_dev)
    if same_file and now.st_size != len(expect.encode("utf-8")):
        raise FileMoved(errno.EAGAIN, "written by another program meanwhile", str(path))
    # The size and times can stay equal within a clock tick: the text decides.
    current = load_text(path, max_bytes=MAX_BYTES)
    if current != expect:
        raise FileMoved(errno.EAGAIN, "written by another program meanwhile", str(path))


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _write_in_place(
    path: Path, data: bytes, info: os.stat_result, expect: str | Unchecked | None
) -> str | None:
    """Overwrite a hard-linked file in place, so every link sees the new text. Returns None,
    or the text now in the file when another program wrote into it meanwhile (kept).

    No rename makes this atomic, so the old bytes go to a backup beside the file first (synced),
    removed once the new text is on disk: a kill halfway leaves it for `backups` to find. The
    new text past the old end is written first, so a line another program appends while bb7
    writes lands past bb7's bytes; it is then kept after the new text. What the file holds at
    the end is read back: another program's write that the new text does not account for
    shows as a local change, never silently."""
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    backup = path.parent / f".{path.name}.{os.getpid()}{BACKUP_SUFFIX}"
    try:
        opened = os.fstat(fd)
        if (opened.st_ino, opened.st_dev) != (info.st_ino, info.st_dev):
            raise FileMoved(errno.EAGAIN, "replaced by another program meanwhile", str(path))
        _look_again(path, info, expect)
        old = os.pread(fd, MAX_BYTES + 1, 0)
        if isinstance(expect, str) and old != expect.encode("utf-8"):
            raise FileMoved(errno.EAGAIN, "written by another program meanwhile", str(path))
        with open(backup, "wb") as handle:
            handle.write(old)
            handle.flush()
            os.fsync(handle.fileno())
        _fsync_dir(path.parent)
        end = max(len(old), len(data))
        head = min(len(old), len(data))
        half = head // 2
        if os.fstat(fd).st_size != len(old):  # appended to since the read: nothing written
            os.unlink(backup)
            raise FileMoved(errno.EAGAIN, "written by another program meanwhile", str(path))
        try:
            # The part past the old end first: from then on an append lands past both texts.
            _write_all(fd, memoryview(data)[head:], head)
            _write_all(fd, memoryview(data)[:half], 0)
            crash_point("in_place_halfway")
            _write_all(fd, memoryview(data)[half:head], half)
            late = os.pread(fd, MAX_BYTES + 1, end)  # appended by another program meanwhile
            os.ftruncate(fd, len(data))
            _write_all(fd, memoryview(late), len(data))
            os.fsync(fd)
        except OSError:
            # A full disk halfway: put the old bytes back (a failure here keeps the backup).
            _write_all(fd, memoryview(old), 0)
            os.ftruncate(fd, len(old))
            os.fsync(fd)
            os.unlink(backup)
            raise
        now = os.pread(fd, MAX_BYTES + 1, 0)
    finally:
        os.close(fd)
    crash_point("after_rename")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(backup)
    return None if now == data else now.decode("utf-8", "replace")


def _write_all(fd: int, view: memoryview, offset: int) -> None:
    while view:
        written = os.pwrite(fd, view, offset)
        view, offset = view[written:], offset + written


def _keep_owner(tmp: str, info: os.stat_result) -> None:
    """Give the temp file the old file's owner and group, as far as this process may (root
    may set both; an owner may set a group it belongs to)."""
    if (info.st_uid, info.st_gid) == (os.geteuid(), os.getegid()):
        return
    for uid in (info.st_uid, -1):
        try:
            os.chown(tmp, uid, info.st_gid)
            return
        except OSError:
            continue


def remove_leftovers(directory: Path, name: str) -> list[Path]:
    """Remove the temp files of `name` that a killed bb7 left (their writer's pid is gone)."""
    # Imported here: the lock module is not needed by a start that only reads.
    from bb7.process import alive

    removed: list[Path] = []
    prefix = f".{name}."
    for leftover in temp_files(directory, name):
        pid = leftover.name[len(prefix) :].split(".", 1)[0]
        if not pid.isdigit() or (int(pid) != os.getpid() and alive(int(pid))):
            continue
        with contextlib.suppress(OSError):
            leftover.unlink()
            removed.append(leftover)
    return removed


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
