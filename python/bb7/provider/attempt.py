"""One streaming request's life in its worker thread: attempts and retries, time limits, the
stream decoded into events, and exactly one terminal event.

`Worker.run` makes attempts while a failure before the first delta may be retried (the policy
is `RetryPolicy`; the wording of every failure is `bb7.provider.failures`'). Each attempt reads
the SSE stream (`sse`, llama.cpp's `error:` lines too) and each payload into the answer in its
API's words (`deltas.Answer.read`), handing events to the caller as they come. A `Watchdog`
thread ends an attempt that makes no progress for `Timeouts.idle` or outlives
`Timeouts.total`, by shutting the `Connection`'s socket down as `cancel()` does. Not for:
building the request or the HTTP client itself (`bb7.provider.client`).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypedDict

import httpx
import msgspec

from bb7.provider.config import ProviderConfig
from bb7.provider.deltas import Answer
from bb7.provider.events import (
    Done,
    ErrorKind,
    Retrying,
    StreamError,
    StreamEvent,
    StreamWarning,
    Terminal,
    ToolCall,
    Usage,
)
from bb7.provider.failures import (
    ERROR_BODY_LIMIT,
    Expiry,
    Failure,
    Wording,
    cancelled,
    ended_with_error,
    internal,
    malformed,
    too_large,
    with_message,
)
from bb7.provider.handle import Handle
from bb7.provider.sse import SSEDecoder, SSEOverflow

log = logging.getLogger(__name__)

_JSON_BODY_LIMIT = 32 * 1024 * 1024
# An answer larger than this is not read on: eight files at bb7's file limit (1 MiB, the one
# limit for what it reads and writes), with room for prose. Reading on would only hold a model's
# runaway output in memory (a 100 MB answer peaked at over 600 MB) for changes bb7 refuses.
MAX_ANSWER_CHARS = 8 * 1024 * 1024
_MAX_WARNINGS = 5


class Connection:
    """The connection of the attempt under way, for `cancel()` and the watchdog to shut down.

    `cancel()` stops a stream at once: while waiting or reading, the socket is shut down and
    the `cancelled` error follows within milliseconds. While DNS resolution or the TCP
    handshake is still running, the connection is closed as soon as it exists (the worker
    cannot be interrupted inside connect, so the error waits for it, at most the connect
    timeout)."""

    def __init__(self, handle: Handle[Terminal]) -> None:
        self.handle = handle
        self._lock = threading.Lock()
        self._network_stream: Any = None
        # Set by the watchdog when a time limit ends the current attempt.
        self.expired: Expiry | None = None

    def shutdown(self) -> None:
        with self._lock:
            shutdown_stream(self._network_stream)

    def attach(self, network_stream: Any) -> None:
        with self._lock:
            self._network_stream = network_stream
            if self.handle.cancelled or self.expired is not None:
                shutdown_stream(network_stream)

    def expire(self, why: Expiry) -> None:
        with self._lock:
            self.expired = why
            shutdown_stream(self._network_stream)

    def rearm(self) -> None:
        with self._lock:
            self.expired = None

    def detach(self) -> None:
        with self._lock:
            self._network_stream = None

    def trace(self, name: str, info: dict[str, Any]) -> None:
        # httpx trace hook: learn the socket as soon as it exists, so a cancel while waiting
        # for response headers can close it too (pooling is off, see `bb7.provider.client`).
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self.attach(info.get("return_value"))


def shutdown_stream(network_stream: Any) -> None:
    """Close the connection under a blocked reader: shutdown() wakes a recv() at once, while
    close() from another thread would leave it blocked and the TCP connection open."""
    if network_stream is None:
        return
    try:
        sock = network_stream.get_extra_info("socket")
    except Exception:  # an unusual transport: nothing we can shut down early
        return
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Complete(msgspec.Struct, frozen=True):
    pass


_COMPLETE = _Complete()


class _Output(TypedDict):
    """What both terminal events carry: the (possibly partial) response."""

    text: str
    reasoning: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage | None
    attempts: int
    duration: float
    first_token: float | None


class Watchdog:
    """Ends the current attempt once it makes no progress for `idle` seconds or the answer
    reaches its deadline: a blocked read cannot time itself out when keep-alive comments keep
    arriving, so a thread watches the clock and shuts the socket down (see `Connection`)."""

    def __init__(self, connection: Connection, idle: float, deadline: float) -> None:
        self.connection = connection
        self.idle = idle
        self.deadline = deadline
        self.last_progress = time.monotonic()
        # Bytes (keep-alive comments, empty chunks) arrived since the last progress.
        self.quiet_bytes = False
        self._active = False
        self._stopped = False
        self._wake = threading.Condition()
        threading.Thread(target=self._run, name="bb7-llm-watchdog", daemon=True).start()

    def begin(self) -> None:
        """An attempt starts: its idle clock starts now."""
        self.connection.rearm()
        self.progress()
        with self._wake:
            self._active = True
            self._wake.notify()

    def end(self) -> None:
        with self._wake:
            self._active = False

    def stop(self) -> None:
        with self._wake:
            self._stopped = True
            self._wake.notify()

    def progress(self) -> None:
        # Plain attribute writes from the worker thread; the watchdog only reads them, and a
        # stale read merely makes it wake once more and look again.
        self.last_progress = time.monotonic()
        self.quiet_bytes = False

    def _run(self) -> None:
        with self._wake:
            while not self._stopped:
                now = time.monotonic()
                if now >= self.deadline:
                    self.connection.expire("deadline")
                    return
                due = self.deadline
                if self._active:
                    idle_due = self.last_progress + self.idle
                    if now >= idle_due:
                        self._active = False
                        self.connection.expire("idle")
                        continue
                    due = min(due, idle_due)
                self._wake.wait(due - now)


class Worker:
    """One request's life in its thread: attempts, retries, events, the terminal event."""

    def __init__(
        self,
        http: httpx.Client,
        url: str,
        headers: dict[str, str],
        body: bytes,
        on_event: Callable[[StreamEvent], None],
        handle: Handle[Terminal],
        *,
        answer: Callable[[], Answer],
        config: ProviderConfig,
        wording: Wording,
        rng: random.Random,
    ) -> None:
        self.http = http
        self.url = url
        self.headers = headers
        self.body = body
        self.config = config
        self.wording = wording
        self.rng = rng
        self.on_event = on_event
        self.handle = handle
        self.connection = Connection(handle)
        handle._stopping(self.connection.shutdown)
        # A fresh answer per attempt, read in the API's words.
        self.answer = answer
        self.acc = answer()
        self.warned: set[str] = set()
        self.watchdog: Watchdog | None = None
        self.started = time.monotonic()
        self.first_token: float | None = None

    def run(self) -> None:
        started = self.started = time.monotonic()
        timeouts = self.config.timeouts
        deadline = started + timeouts.total
        watchdog = self.watchdog = Watchdog(self.connection, timeouts.idle, deadline)
        try:
            outcome, attempts = self._attempts(watchdog, started)
        finally:
            watchdog.stop()
        self._finish(outcome, attempts, time.monotonic() - started)

    def _attempts(self, watchdog: Watchdog, started: float) -> tuple[_Complete | Failure, int]:
        policy = self.config.retry
        attempt = 0
        while True:
            attempt += 1
            self.acc = self.answer()
            watchdog.begin()
            try:
                outcome = self._attempt()
            except Exception as exc:  # a bug, but the caller must still get its terminal event
                log.exception("stream worker failed")
                outcome = internal(exc)
            finally:
                watchdog.end()
            if self.handle.cancelled and isinstance(outcome, Failure):
                # A response that completed before the cancel took effect stays complete.
                return cancelled(), attempt
            if not isinstance(outcome, Failure) or not outcome.retryable or self.acc.emitted:
                return outcome, attempt
            tries = f"{attempt} attempts" if attempt > 1 else "1 attempt"
            if attempt >= policy.max_attempts:
                return with_message(outcome, f"{outcome.message} (gave up after {tries})"), attempt
            if outcome.retry_after is not None and outcome.retry_after > policy.max_retry_after:
                message = (
                    f"{outcome.message} The provider asked to wait {outcome.retry_after:.0f} s "
                    "before retrying."
                )
                return with_message(outcome, message), attempt
            delay = outcome.retry_after
            if delay is None:
                ceiling = min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1))
                delay = ceiling / 2 + self.rng.uniform(0, ceiling / 2)
            now = time.monotonic()
            if now - started >= policy.max_elapsed or now + delay >= watchdog.deadline:
                spent = now - started
                message = f"{outcome.message} (gave up after {tries} in {spent:.0f} s)"
                return with_message(outcome, message), attempt
            self._emit(Retrying(attempt + 1, policy.max_attempts, delay, outcome.message))
            if self.handle._pause(delay):
                return cancelled(), attempt

    def _finish(self, outcome: _Complete | Failure, attempts: int, duration: float) -> None:
        acc = self.acc
        # The answer as it is kept and logged: a model that echoes the key (in its text, its
        # reasoning, a tool call's arguments, name or id, or the `model` field) does not get
        # it stored anywhere.
        key = self.wording.api_key
        hide = key.redact_answer if key is not None else str
        calls = tuple(
            msgspec.structs.replace(
                call, id=hide(call.id), name=hide(call.name), arguments=hide(call.arguments)
            )
            for call in acc.tool_calls()
        )
        output = _Output(
            text=hide(acc.text),
            reasoning=hide(acc.reasoning),
            tool_calls=calls,
            usage=acc.usage,
            attempts=attempts,
            duration=duration,
            first_token=self.first_token,
        )
        result: Terminal
        if isinstance(outcome, _Complete):
            model = None if acc.model is None else hide(acc.model)
            result = Done(
                finish_reason=acc.finish_reason,
                model=model,
                thinking=acc.thinking(),
                **output,
            )
        else:
            result = StreamError(
                kind=outcome.kind,
                message=outcome.message,
                status=outcome.status,
                provider_error=outcome.provider_error,
                retry_after=outcome.retry_after,
                after_first_token=acc.emitted,
                finish_reason=acc.finish_reason,
                **output,
            )
        # The terminal event is delivered even after cancel(): the caller waits for it.
        self._deliver(result)
        self.handle._finish(result)

    def _emit(self, event: StreamEvent) -> None:
        if not self.handle.cancelled:
            self._deliver(event)

    def _deliver(self, event: StreamEvent) -> None:
        try:
            self.on_event(event)
        except Exception:
            log.exception("on_event raised for %s", type(event).__name__)

    def _warn(self, what: str) -> None:
        """Say once per kind of problem (and at most a few times) what was skipped."""
        log.warning("stream: skipped %s", what)
        key = what.split(" (", 1)[0]
        if key in self.warned or len(self.warned) > _MAX_WARNINGS:
            return
        self.warned.add(key)
        if len(self.warned) > _MAX_WARNINGS:
            message = "More parts of the provider's stream could not be read (see :BB7Log)."
        else:
            message = f"Skipped part of the provider's stream that bb7 cannot read: {what}."
        self._emit(StreamWarning(message))

    def _attempt(self) -> _Complete | Failure:
        outcome = self._request()
        expired = self.connection.expired
        if expired is not None and isinstance(outcome, Failure) and not self.handle.cancelled:
            return self._expired(expired)
        return outcome

    def _request(self) -> _Complete | Failure:
        headers = dict(self.headers)
        headers.update(
            {
                "Accept": "text/event-stream",
                "Content-Type": "application/json",
                # A compressed event stream can sit in the decompressor; ask for plain bytes.
                "Accept-Encoding": "identity",
            }
        )
        try:
            with self.http.stream(
                "POST",
                self.url,
                content=self.body,
                headers=headers,
                timeout=self._timeout(),
                extensions={"trace": self.connection.trace},
            ) as response:
                self.connection.attach(response.extensions.get("network_stream"))
                if response.status_code >= 400:
                    body = read_limited(response.iter_bytes(), ERROR_BODY_LIMIT)
                    return self.wording.http(response.status_code, response.headers, body)
                pieces = response.iter_bytes()
                if "event-stream" not in response.headers.get("content-type", ""):
                    first = next(pieces, b"")
                    pieces = itertools.chain((first,), pieces)
                    if first.lstrip()[:1] in (b"{", b"["):
                        # A server that ignored stream=true and answered with one JSON object.
                        whole = read_limited(pieces, _JSON_BODY_LIMIT)
                        return self._payload(whole) or _COMPLETE
                return self._read_stream(pieces)
        except httpx.TimeoutException as exc:
            return self._broken("timeout", exc)
        except httpx.TransportError as exc:
            return self._broken("connection", exc)
        except SSEOverflow as exc:
            return malformed(exc)
        finally:
            self.connection.detach()

    def _timeout(self) -> httpx.Timeout:
        """The client's timeouts, the connect one cut to what is left of the deadline."""
        timeouts = self.config.timeouts
        connect = self._connect_timeout()
        return httpx.Timeout(
            connect=connect, read=timeouts.read, write=timeouts.write, pool=connect
        )

    def _connect_timeout(self) -> float:
        """What is left of the deadline, at most the connect timeout (a connect cannot be
        interrupted by the watchdog)."""
        timeouts = self.config.timeouts
        left = self.watchdog.deadline - time.monotonic() if self.watchdog else timeouts.connect
        return max(0.01, min(timeouts.connect, left))

    def _read_stream(self, pieces: Iterator[bytes]) -> _Complete | Failure:
        decoder = _Decoder()
        watchdog = self.watchdog
        for piece in pieces:
            if self.handle.cancelled:
                return cancelled()
            if self.connection.expired is not None:
                return self._expired(self.connection.expired)
            if watchdog is not None:
                watchdog.quiet_bytes = True
            for payload in decoder.feed(piece):
                end = self._payload(payload)
                if end is not None:
                    return end
        for payload in decoder.close():
            end = self._payload(payload)
            if end is not None:
                return end
        if self.handle.cancelled:
            return cancelled()
        if self.acc.finish_reason is not None:
            return _COMPLETE  # some local servers end without [DONE]; the finish reason suffices
        return self.wording.unfinished(self.acc.emitted)

    def _payload(self, payload: bytes) -> _Complete | Failure | None:
        """Handle one SSE data payload; a terminal outcome when the stream is over."""
        read = self.acc.read(payload)
        for what in read.skipped:
            self._warn(what)
        if self.acc.size > MAX_ANSWER_CHARS:
            return too_large(MAX_ANSWER_CHARS)
        if read.events and self.first_token is None:
            self.first_token = time.monotonic() - self.started
        if read.events and self.watchdog is not None:
            self.watchdog.progress()
        for event in read.events:
            self._emit(event)
        if read.end == "complete":
            return _COMPLETE
        if read.end == "error_finish":
            return ended_with_error()
        if isinstance(read.end, bytes):
            return self.wording.provider_error(read.end, self.acc.emitted)
        return None

    def _expired(self, why: Expiry) -> Failure:
        quiet = self.watchdog is not None and self.watchdog.quiet_bytes
        return self.wording.expired(why, quiet, self.acc.emitted)

    def _broken(self, kind: ErrorKind, exc: httpx.HTTPError) -> Failure:
        if self.handle.cancelled:
            return cancelled()
        return self.wording.broken(kind, exc, self.acc.emitted, self._connect_timeout())


class _Decoder(SSEDecoder):
    """The SSE decoder, also reading llama.cpp's streaming error: llama-server sends it as an
    `error: {...}` line (a field SSE does not define), then `data: [DONE]`; skipped like other
    fields, a failed answer would look complete. It becomes the `data: {"error": {...}}` chunk
    it means, which `_payload` reports."""

    def _line(self, line: bytes, out: list[bytes]) -> None:
        if line.startswith(b"error:"):
            value = line[len(b"error:") :].strip() or b'""'
            line = b'data: {"error": ' + value + b"}"
        super()._line(line, out)


def read_limited(pieces: Iterator[bytes], limit: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    for piece in pieces:
        parts.append(piece)
        size += len(piece)
        if size >= limit:
            break
    return b"".join(parts)[:limit]
