"""Whether a process that wrote something down is still the one running: a pid alone is not
enough, since pids are reused (after a reboot, in a container, after a wrap-around).

A process is named by its pid plus its identity: the boot id and the process's start time in
clock ticks since boot (Linux's /proc). A pid that is alive with another identity is another
process. Where /proc is missing the identity is '' and the pid alone decides.
"""

from __future__ import annotations

import functools
import os


def alive(pid: int) -> bool:
    """Whether some process has this pid (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    except OverflowError:
        return False
    return True


@functools.cache
def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def identity(pid: int | None = None) -> str:
    """`boot id:start time` of the process `pid` (default: this one), '' when unknown."""
    boot = _boot_id()
    if not boot:
        return ""
    try:
        with open(f"/proc/{pid or os.getpid()}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return ""
    # The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    fields = stat[stat.rfind(b")") + 2 :].split()
    return f"{boot}:{fields[19].decode()}" if len(fields) > 19 else ""


def _zombie(pid: int) -> bool:
    """Whether `pid` has exited and waits for its parent to reap it (Linux's /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].startswith(b"Z")


def running(pid: int, recorded: str) -> bool:
    """Whether the process that recorded `recorded` (its `identity`) with `pid` still runs
    (an exited one not yet reaped by its parent does not)."""
    if not alive(pid) or _zombie(pid):
        return False
    if not recorded:
        return True  # recorded where the identity is unknown: the pid is all there is
    now = identity(pid)
    return not now or now == recorded


def cwd(pid: int) -> str:
    """The working directory of the process `pid` ('' when unknown: no /proc, another user's)."""
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return ""
