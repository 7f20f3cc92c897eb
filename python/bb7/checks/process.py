"""One check's process: found as the user's shell finds it, started in its own process group
(inside the jail: the namespace, or the copy's Landlock ruleset), its output kept bounded,
ended with its whole group at its timeout or when cancelled, and whatever it left running ended
after it.

Nothing here waits without a deadline: a check that sleeps, prints without end or leaves a
daemon holding its output costs its timeout plus a fraction of a second, never a hang.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import msgspec

import bb7
from bb7.checks.throwaway import View

# What is kept of a check's output: its end, where the failures are summed up.
OUTPUT_LIMIT = 256 * 1024
# After the check ended: how long what it printed last may take to arrive.
DRAIN = 0.5
# Between looks at a process that gives no pidfd to wait on.
POLL = 0.05
PIPE_SIZE = 1024 * 1024
JAIL = Path(__file__).with_name("jail.py")
JAIL_FAILED = 125
TOKEN_VAR = "BB7_CHECK_RUN"
# The project's own tools, where a shell with the project's environment active finds them.
PROJECT_BINS = (".venv/bin", "node_modules/.bin")
# The host's own variables: a check sees the user's environment, not bb7's.
_HOST_VARS = ("NVIM", "NVIM_LISTEN_ADDRESS", "BB7_LOG_FILE", "BB7_LOG_LEVEL", "BB7_DATA_DIR")

EndState = Literal["exited", "timed_out", "cancelled", "not_found", "not_executable", "jail_failed"]


class Ended(msgspec.Struct, frozen=True, kw_only=True):
    """How a check's process ended: `output` is the end of what it printed (stdout and
    stderr as they came), `dropped` the bytes left out before it; `message` one line when it
    did not run to its end."""

    state: EndState
    exit_code: int | None = None
    seconds: float = 0.0
    output: str = ""
    dropped: int = 0
    message: str = ""


class Cancel:
    """Ends the check running under it, from any thread (a new answer, an apply)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[int, int] = {}  # process group -> the write end of its wake pipe
        self.cancelled = False

    def cancel(self) -> None:
        # Under the lock: the check's reader closes the wake pipe under it too, so the write
        # never lands on a descriptor number the process has given to another file since.
        with self._lock:
            self.cancelled = True
            for group, wake in self._running.items():
                _kill_group(group)
                with contextlib.suppress(OSError):
                    os.write(wake, b"x")

    def _enter(self, group: int) -> int | None:
        """A pipe that wakes the check's reader when cancelled (its read end); None when
        cancelled already."""
        with self._lock:
            if self.cancelled:
                return None
            wake_r, wake_w = os.pipe()
            os.set_blocking(wake_w, False)
            self._running[group] = wake_w
            return wake_r

    def _leave(self, group: int) -> None:
        with self._lock:
            wake = self._running.pop(group, None)
            if wake is not None:
                os.close(wake)


class _Tail:
    """The last `limit` bytes of a stream, and how many came in all."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.data += chunk
        if len(self.data) > 2 * self.limit:
            del self.data[: -self.limit]

    def text(self) -> tuple[str, int]:
        kept = bytes(self.data[-self.limit :])
        dropped = self.total - len(kept)
        if dropped:
            cut = kept.find(b"\n")
            if 0 <= cut < len(kept) - 1:
                dropped += cut + 1
                kept = kept[cut + 1 :]
        return kept.decode("utf-8", "replace"), dropped


def environment(
    cwd: Path, name: str, token: str, base: Mapping[str, str], tmp: str = ""
) -> dict[str, str]:
    """The check's environment: the user's, with the project's tool directories first on
    PATH (and its `.venv` as the active virtualenv) and `tmp` as its TMPDIR when given,
    without bb7's own additions."""
    env = {k: v for k, v in base.items() if k not in _HOST_VARS}
    own = str(Path(bb7.__file__).resolve().parent.parent)
    python_path = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != own]
    if python_path:
        env["PYTHONPATH"] = os.pathsep.join(python_path)
    else:
        env.pop("PYTHONPATH", None)
    bins = [str(cwd / b) for b in PROJECT_BINS if (cwd / b).is_dir()]
    env["PATH"] = os.pathsep.join([*bins, env.get("PATH", os.defpath)])
    if (cwd / ".venv").is_dir():
        env["VIRTUAL_ENV"] = str(cwd / ".venv")
        env.pop("PYTHONHOME", None)
    if tmp:
        env.update(TMPDIR=tmp, TMP=tmp, TEMP=tmp)
    env["BB7_CHECK"] = name
    env[TOKEN_VAR] = token
    return env


def resolve(program: str, cwd: Path, path: str, also: Path | None = None) -> str | Ended:
    """The file `program` names, as a shell would find it (a name with a `/` from `cwd`, or
    from `also`: the pending outputs, for a script the change adds); else why not."""
    if "/" in program:
        candidates = [cwd / program] + ([also / program] if also else [])
    else:
        dirs = [Path(d) if os.path.isabs(d) else cwd / d for d in path.split(os.pathsep) if d]
        candidates = [d / program for d in dirs]
    seen_file = None
    for candidate in candidates:
        if candidate.is_file():
            if os.access(candidate, os.X_OK):
                return str(candidate)
            seen_file = seen_file or candidate
    if seen_file is not None:
        return Ended(
            state="not_executable",
            message=f"`{program}` is not executable (chmod +x {program})",
        )
    return Ended(state="not_found", message=not_found(program))


def not_found(program: str) -> str:
    """Why a check's program did not start: where it was looked for."""
    where = "" if "/" in program else " (looked in .venv/bin, node_modules/.bin and PATH)"
    return f"`{program}` not found{where}"


def _kill_group(group: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def sweep(token: str) -> int:
    """End the processes that carry this run's token in their environment: a daemon that
    left the check's process group (Linux's /proc; elsewhere the group is all there is)."""
    needle = f"{TOKEN_VAR}={token}".encode()
    ended = 0
    for _ in range(2):  # a daemon may fork while it is being found
        try:
            pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
        except OSError:
            return ended
        for pid in pids:
            if pid == os.getpid():
                continue
            try:
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    found = needle in handle.read().split(b"\0")
            except OSError:
                continue
            if found:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
                    ended += 1
    return ended


def run_process(
    argv: list[str],
    view: View,
    env: dict[str, str],
    timeout: float,
    cancel: Cancel,
    *,
    limit: int = OUTPUT_LIMIT,
) -> Ended:
    """Run `argv` (its program resolved) in `view` until it ends, times out or is cancelled;
    its whole process group (in a namespace: every process it started) ends with it."""
    started = time.monotonic()
    status_r = status_w = -1
    command = argv
    pass_fds: tuple[int, ...] = ()
    if view.isolation == "namespace" or view.writable:
        status_r, status_w = os.pipe()
        if view.isolation == "namespace":
            how = ["overlay", str(view.root), view.scratch, str(view.cwd), str(len(view.layers))]
            how += view.layers
        else:
            how = ["landlock", str(view.cwd), str(len(view.writable)), *view.writable]
        command = [sys.executable, "-I", "-S", str(JAIL), str(status_w), *how, *argv]
        pass_fds = (status_w,)
    try:
        proc = subprocess.Popen(
            command,
            cwd=view.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=pass_fds,
        )
    except OSError as exc:
        for fd in (status_r, status_w):
            if fd >= 0:
                os.close(fd)
        state: EndState = "not_executable" if exc.errno == errno.EACCES else "not_found"
        return Ended(state=state, message=f"`{argv[0]}` could not start: {exc.strerror}")
    if status_w >= 0:
        os.close(status_w)
    try:
        return _follow(proc, status_r, env, timeout, cancel, limit, started)
    finally:
        if status_r >= 0:
            with contextlib.suppress(OSError):
                os.close(status_r)


def _follow(
    proc: subprocess.Popen[bytes],
    status_fd: int,
    env: dict[str, str],
    timeout: float,
    cancel: Cancel,
    limit: int,
    started: float,
) -> Ended:
    """Read the check's output until its process ends (or its time is up), then end the
    rest of its group and read what is left for at most `DRAIN` seconds."""
    assert proc.stdout is not None
    out_fd = proc.stdout.fileno()
    with contextlib.suppress(AttributeError, OSError):
        # A larger pipe: a check that prints much wakes its reader less often (Linux).
        fcntl.fcntl(out_fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)  # type: ignore[attr-defined,unused-ignore]
    tail = _Tail(limit)
    status = bytearray()
    selector = selectors.DefaultSelector()
    selector.register(out_fd, selectors.EVENT_READ, "out")
    wake_fd = cancel._enter(proc.pid)
    if wake_fd is not None:
        selector.register(wake_fd, selectors.EVENT_READ, "wake")
    if status_fd >= 0:
        selector.register(status_fd, selectors.EVENT_READ, "status")
    pidfd = -1
    with contextlib.suppress(AttributeError, OSError):
        pidfd = os.pidfd_open(proc.pid)  # type: ignore[attr-defined,unused-ignore]
        selector.register(pidfd, selectors.EVENT_READ, "exit")
    deadline = started + timeout
    timed_out = False
    try:
        if wake_fd is None:
            _kill_group(proc.pid)
        while proc.poll() is None:
            now = time.monotonic()
            if now >= deadline:
                timed_out = True
                _kill_group(proc.pid)
                break
            wait = deadline - now if pidfd >= 0 else min(POLL, deadline - now)
            for key, _ in selector.select(wait):
                if key.data == "out":
                    chunk = os.read(out_fd, PIPE_SIZE)
                    if chunk:
                        tail.add(chunk)
                    else:
                        selector.unregister(out_fd)
                elif key.data == "status":
                    got = os.read(status_fd, 4096)
                    if got:
                        status += got
                    else:
                        selector.unregister(status_fd)
                elif key.data == "wake":
                    os.read(key.fd, 64)
                    if cancel.cancelled:
                        _kill_group(proc.pid)
        # The check is over: whatever it started ends with it.
        _kill_group(proc.pid)
        sweep(env[TOKEN_VAR])
        proc.wait()
        _drain(selector, out_fd, status_fd, tail, status)
    except BaseException:  # Ctrl-C in `bb7 check`, a bug: the check never outlives bb7
        _kill_group(proc.pid)
        sweep(env[TOKEN_VAR])
        raise
    finally:
        cancel._leave(proc.pid)
        selector.close()
        if wake_fd is not None:
            os.close(wake_fd)
        proc.stdout.close()
        if pidfd >= 0:
            os.close(pidfd)
    seconds = time.monotonic() - started
    output, dropped = tail.text()
    return _ended(
        proc.returncode,
        status.decode(errors="replace"),
        timed_out,
        cancel,
        seconds,
        output,
        dropped,
        timeout,
    )


def _drain(
    selector: selectors.BaseSelector,
    out_fd: int,
    status_fd: int,
    tail: _Tail,
    status: bytearray,
) -> None:
    """What the check printed last, until its output closes or `DRAIN` seconds pass (a
    process that escaped its group may hold it open)."""
    until = time.monotonic() + DRAIN
    open_fds = {out_fd} | ({status_fd} if status_fd >= 0 else set())
    open_fds &= {key.fd for key in selector.get_map().values()}
    while open_fds and time.monotonic() < until:
        for key, _ in selector.select(max(0.0, until - time.monotonic())):
            if key.fd not in open_fds:
                continue
            chunk = os.read(key.fd, PIPE_SIZE)
            if not chunk:
                open_fds.discard(key.fd)
                selector.unregister(key.fd)
            elif key.fd == out_fd:
                tail.add(chunk)
            else:
                status += chunk


def _ended(
    code: int,
    status: str,
    timed_out: bool,
    cancel: Cancel,
    seconds: float,
    output: str,
    dropped: int,
    timeout: float,
) -> Ended:
    ran = Ended(
        state="exited",
        exit_code=code if code >= 0 else 128 - code,
        seconds=seconds,
        output=output,
        dropped=dropped,
    )
    for line in status.splitlines():
        if line.startswith("fail "):
            return msgspec.structs.replace(ran, state="jail_failed", message=line[5:])
        if line.startswith("exec "):
            number, _, reason = line[5:].partition(": ")
            state: EndState = "not_executable" if number == str(errno.EACCES) else "not_found"
            return msgspec.structs.replace(ran, state=state, message=f"could not start: {reason}")
    if cancel.cancelled:
        return msgspec.structs.replace(ran, state="cancelled", message="cancelled")
    if timed_out:
        message = f"timed out after {timeout:g} s (its processes were ended)"
        return msgspec.structs.replace(ran, state="timed_out", exit_code=None, message=message)
    return ran
