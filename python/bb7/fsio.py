"""Reading project files as text and writing them atomically; nothing else touches the disk.

Text is decoded as UTF-8 with no newline translation, so CRLF and a BOM survive a round trip.
Writes go to a temp file in the same directory, are fsynced, take over the old file's mode and
are renamed into place: a crash leaves either the old or the new file, never a partial one.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

import msgspec

DEFAULT_MAX_BYTES = 1024 * 1024
BINARY_PROBE = 8192


class FileProblem(msgspec.Struct, frozen=True):
    """Why a file is not usable as text: missing, binary, too_large, not_utf8 or unreadable."""

    kind: str
    message: str


def is_binary(data: bytes) -> bool:
    """A NUL byte in the first 8 KiB marks a file as binary (git's rule)."""
    return b"\0" in data[:BINARY_PROBE]


def load_text(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> str | FileProblem:
    """The file's exact text, or why it cannot be edited as text."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            return FileProblem(
                "too_large", f"{path} is {size} bytes, over the limit of {max_bytes} bytes"
            )
        data = path.read_bytes()
    except FileNotFoundError:
        return FileProblem("missing", f"{path} does not exist")
    except IsADirectoryError:
        return FileProblem("unreadable", f"{path} is a directory")
    except OSError as exc:
        return FileProblem("unreadable", f"{path} cannot be read: {exc.strerror}")
    return decode(data, str(path))


def decode(data: bytes, name: str) -> str | FileProblem:
    if is_binary(data):
        return FileProblem("binary", f"{name} is a binary file (it contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FileProblem("not_utf8", f"{name} is not valid UTF-8 (byte {exc.start})")


def atomic_write(path: Path, text: str) -> None:
    """Replace `path` with `text` (UTF-8) atomically, keeping the existing file's mode.

    Raises OSError when the write fails; the original file is then untouched.
    """
    data = text.encode("utf-8")
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".bb7-tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(directory)


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
