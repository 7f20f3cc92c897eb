"""JSON-RPC 2.0 over a child process's stdio, one message per line (ACP's stdio transport).

`Peer` starts the agent in its own process group, writes requests and notifications to its
stdin, and reads its stdout in a thread: replies settle the `Call` that waits for them, the
agent's requests go to `on_request` with a `Responder` (answered at once, or later from any
thread: a permission the user decides), its notifications to `on_notification`. stderr is the
agent's log: kept (its last lines name why an agent died) and logged, never parsed.

Whatever ends the connection ends it once, as one `Failure` to `on_closed`: the command not
found, the process exiting, a line that is not a JSON-RPC message, a line longer than
`MAX_MESSAGE`, or `close()`. Every call still waiting then gets that failure. Not for what
the messages mean (`bb7.agent.client`).
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Literal

import msgspec

log = logging.getLogger(__name__)

# One message may carry a whole file (bb7 reads and writes up to 1 MiB, which JSON escaping
# can double) and a diff of it: well over that is no message bb7 can use.
MAX_MESSAGE = 8 * 1024 * 1024
# Seconds an agent gets to exit after its stdin closes and a SIGTERM, before a SIGKILL.
STOP_GRACE = 3.0

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

FailureKind = Literal[
    "not_found", "exited", "malformed", "too_large", "closed", "timeout", "version", "refused"
]


class Failure(msgspec.Struct, frozen=True):
    """Why the connection to the agent ended (or a call got no answer), in one line."""

    kind: FailureKind
    message: str


class RpcError(msgspec.Struct, frozen=True):
    """An error the agent answered a call with."""

    code: int
    message: str
    data: Any = None


class _Envelope(msgspec.Struct):
    jsonrpc: str = ""
    id: int | str | msgspec.UnsetType | None = msgspec.UNSET
    method: str | msgspec.UnsetType = msgspec.UNSET
    params: msgspec.Raw = msgspec.Raw(b"null")
    result: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    error: RpcError | msgspec.UnsetType = msgspec.UNSET


_ENCODER = msgspec.json.Encoder()


class Call:
    """A request on its way: `wait()` blocks until its reply, an error or the end."""

    def __init__(self, method: str) -> None:
        self.method = method
        self._done = threading.Event()
        self._value: msgspec.Raw | RpcError | Failure | None = None

    def settle(self, value: msgspec.Raw | RpcError | Failure) -> None:
        if not self._done.is_set():
            self._value = value
            self._done.set()

    @property
    def settled(self) -> bool:
        """Answered (or failed): from the reader thread's reading of the reply on."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> msgspec.Raw | RpcError | Failure:
        """The reply's raw result, the agent's error, or why there is none (`timeout` kind
        after `timeout` seconds; the call may still be answered later, and is then ignored)."""
        if not self._done.wait(timeout):
            return Failure("timeout", f"no answer to {self.method} in {timeout:g} s")
        assert self._value is not None
        return self._value


class Responder:
    """The answer to one request of the agent, given once from any thread."""

    def __init__(self, peer: Peer, request_id: int | str | None, method: str) -> None:
        self._peer = peer
        self.id = request_id
        self.method = method
        self._lock = threading.Lock()
        self.answered = False

    def _send(self, message: dict[str, Any]) -> bool:
        with self._lock:
            if self.answered:
                return False
            self.answered = True
        self._peer.send({"jsonrpc": "2.0", "id": self.id, **message})
        return True

    def reply(self, result: object) -> bool:
        """Answer with `result` (a Struct or plain value); False when answered already."""
        return self._send({"result": result})

    def error(self, code: int, message: str) -> bool:
        return self._send({"error": {"code": code, "message": message}})


OnRequest = Callable[[str, msgspec.Raw, Responder], None]
OnNotification = Callable[[str, msgspec.Raw], None]
OnClosed = Callable[[Failure], None]


class Peer:
    """The agent's process and the JSON-RPC connection over its stdio."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        on_request: OnRequest,
        on_notification: OnNotification,
        on_closed: OnClosed,
        env: Mapping[str, str] | None = None,
        max_message: int = MAX_MESSAGE,
    ) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.env = env
        self.max_message = max_message
        self._on_request = on_request
        self._on_notification = on_notification
        self._on_closed = on_closed
        self._proc: subprocess.Popen[bytes] | None = None
        self._write_lock = threading.Lock()
        self._calls: dict[int, Call] = {}
        self._calls_lock = threading.Lock()
        self._next_id = 0
        self._failure: Failure | None = None
        self._closing = False
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self._stderr_done = threading.Event()

    @property
    def name(self) -> str:
        return os.path.basename(self.argv[0]) if self.argv else "agent"

    @property
    def failure(self) -> Failure | None:
        """Why the connection ended, None while it is open."""
        return self._failure

    def start(self) -> Failure | None:
        """Start the process (its own session, so stopping it stops what it started)."""
        try:
            self._proc = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=None if self.env is None else dict(self.env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except FileNotFoundError:
            return self._end(
                Failure("not_found", f"agent command not found: {self.argv[0]} (is it on $PATH?)")
            )
        except OSError as exc:
            return self._end(
                Failure("not_found", f"cannot start {self.argv[0]}: {exc.strerror or exc}")
            )
        assert self._proc.stdout is not None and self._proc.stderr is not None
        threading.Thread(
            target=self._read, args=(self._proc.stdout,), name="bb7-agent-read", daemon=True
        ).start()
        threading.Thread(
            target=self._drain, args=(self._proc.stderr,), name="bb7-agent-log", daemon=True
        ).start()
        return None

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    # -- writing ------------------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        """Write one message (a line); a closed pipe is noticed by the reader, not here."""
        proc = self._proc
        if proc is None or proc.stdin is None or self._failure is not None:
            return
        data = _ENCODER.encode(message) + b"\n"
        log.debug("-> %s", data[:500])
        with self._write_lock, contextlib.suppress(OSError, ValueError):
            proc.stdin.write(data)
            proc.stdin.flush()

    def request(self, method: str, params: object, call: Call | None = None) -> Call:
        """Send a request; its `Call` (the one given, which the caller can then know before
        the reply can come) settles with the reply."""
        call = call or Call(method)
        with self._calls_lock:
            self._next_id += 1
            request_id = self._next_id
            failed = self._failure
            if failed is None:
                self._calls[request_id] = call
        if failed is not None:
            call.settle(failed)
            return call
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return call

    def notify(self, method: str, params: object) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    # -- reading ------------------------------------------------------------------------------

    def _read(self, stream: IO[bytes]) -> None:
        failure: Failure | None = None
        while failure is None:
            try:
                line = stream.readline(self.max_message + 1)
            except (OSError, ValueError):
                line = b""
            if not line:
                failure = self._exited()
                break
            if len(line) > self.max_message and not line.endswith(b"\n"):
                mib = self.max_message // (1024 * 1024)
                failure = Failure(
                    "too_large", f"{self.name} sent a message over {mib} MiB; bb7 stopped it"
                )
                break
            if line.strip():
                failure = self._dispatch(line)
        self._end(failure)
        self._stop_process()

    def _dispatch(self, line: bytes) -> Failure | None:
        log.debug("<- %s", line[:500])
        try:
            message = msgspec.json.decode(line, type=_Envelope)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            shown = line[:60].decode("utf-8", "replace").strip()
            return Failure(
                "malformed",
                f"{self.name} sent a malformed message ({exc}): {shown!r}; bb7 stopped it",
            )
        if isinstance(message.method, str):
            if message.id is msgspec.UNSET:
                self._guarded(self._on_notification, message.method, message.params)
            else:
                responder = Responder(self, message.id, message.method)
                self._guarded(self._on_request, message.method, message.params, responder)
            return None
        if not isinstance(message.id, int):
            return None  # a reply to nothing bb7 asked: ignored
        with self._calls_lock:
            call = self._calls.pop(message.id, None)
        if call is not None:
            if isinstance(message.error, RpcError):
                call.settle(message.error)
            elif isinstance(message.result, msgspec.Raw):
                call.settle(message.result)
            else:
                call.settle(msgspec.Raw(b"null"))
        return None

    def _guarded(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except Exception:
            log.exception("handling %s from the agent failed", args[0])
            if len(args) == 3 and isinstance(args[2], Responder):
                args[2].error(INTERNAL_ERROR, "bb7 failed while handling this request")

    def _drain(self, stream: IO[bytes]) -> None:
        try:
            for raw in stream:
                text = raw.decode("utf-8", "replace").rstrip()
                if text:
                    self.stderr_tail.append(text)
                    log.debug("agent stderr: %s", text[:500])
        except (OSError, ValueError):
            pass
        finally:
            self._stderr_done.set()

    def _exited(self) -> Failure:
        proc = self._proc
        status = None
        if proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = proc.wait(timeout=2.0)
        if self._closing:
            return Failure("closed", f"{self.name} was stopped")
        self._stderr_done.wait(1.0)  # its last words, when it said any
        said = f": {self.stderr_tail[-1][:120]}" if self.stderr_tail else ""
        how = "exited"
        if status is not None and status >= 0:
            how = f"exited with status {status}"
        elif status is not None:
            try:
                how = f"was killed by {signal.Signals(-status).name}"
            except ValueError:
                how = f"was killed by signal {-status}"
        return Failure("exited", f"{self.name} {how}{said}")

    def _end(self, failure: Failure) -> Failure:
        """Close the connection once: every waiting call and `on_closed` get `failure`."""
        with self._calls_lock:
            if self._failure is not None:
                return self._failure
            self._failure = failure
            calls, self._calls = list(self._calls.values()), {}
        for call in calls:
            call.settle(failure)
        try:
            self._on_closed(failure)
        except Exception:
            log.exception("on_closed failed")
        return failure

    # -- stopping -----------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the agent: stdin closed, SIGTERM to its process group, SIGKILL after
        `STOP_GRACE` seconds; in a thread, so the caller does not wait."""
        self._closing = True
        self._end(Failure("closed", f"{self.name} was stopped"))
        threading.Thread(target=self._stop_process, name="bb7-agent-stop", daemon=True).start()

    def _stop_process(self) -> None:
        proc = self._proc
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            if proc.stdin is not None:
                proc.stdin.close()
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=STOP_GRACE)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=STOP_GRACE)

    def wait_stopped(self, timeout: float) -> bool:
        """Whether the process has exited within `timeout` seconds."""
        proc = self._proc
        if proc is None:
            return True
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
