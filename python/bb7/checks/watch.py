"""Which entries of the copy a check touched, from Linux's inotify: the next preparation of the
copy then looks at those alone instead of every file in it. None wherever it cannot be known
(not Linux, no watches left, the kernel's queue overflowed, a watched directory went away):
the copy is then compared file by file, as before any watch.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys
from collections.abc import Iterable

IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000
IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x1000000
IN_DONT_FOLLOW = 0x2000000
CHANGES = IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
GONE = IN_DELETE_SELF | IN_MOVE_SELF
_EVENT = struct.Struct("iIII")


def _libc() -> ctypes.CDLL | None:
    """The C library's symbols, as this process has them (`find_library` would start
    `ldconfig` to find a file that is loaded already)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


class Watch:
    """Watches the directories of a copy while a check runs in it."""

    def __init__(self, fd: int, dirs: dict[int, str]) -> None:
        self._fd = fd
        self._dirs = dirs  # watch descriptor -> the directory, relative to the copy ('' top)

    @classmethod
    def start(cls, top: str, dirs: Iterable[str]) -> Watch | None:
        """Watch `top` and its subdirectories `dirs` (relative); None when it cannot."""
        libc = _libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            return None
        watched: dict[int, str] = {}
        mask = CHANGES | GONE | IN_ONLYDIR | IN_DONT_FOLLOW
        for rel in {"", *dirs}:
            wd = libc.inotify_add_watch(fd, os.fsencode(f"{top}/{rel}" if rel else top), mask)
            if wd < 0:
                os.close(fd)  # out of watches (ENOSPC) or a directory gone: not known
                return None
            watched[wd] = rel
        return cls(fd, watched)

    def stop(self) -> set[str] | None:
        """The paths (relative to the copy) created, changed, moved or deleted since the
        start; None when that cannot be known. Ends the watch."""
        touched: set[str] | None = set()
        try:
            while touched is not None:
                try:
                    data = os.read(self._fd, 65536)
                except OSError as exc:
                    if exc.errno == errno.EAGAIN:
                        break
                    raise
                touched = self._read(data, touched)
        finally:
            os.close(self._fd)
        return touched

    def _read(self, data: bytes, touched: set[str]) -> set[str] | None:
        at = 0
        while at < len(data):
            wd, mask, _cookie, size = _EVENT.unpack_from(data, at)
            name = data[at + _EVENT.size : at + _EVENT.size + size].rstrip(b"\0")
            at += _EVENT.size + size
            if mask & (IN_Q_OVERFLOW | GONE):
                return None
            if mask & IN_IGNORED or wd not in self._dirs:
                continue
            parent = self._dirs[wd]
            path = os.fsdecode(name)
            touched.add(f"{parent}/{path}" if parent else path)
        return touched
