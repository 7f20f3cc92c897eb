"""The one HTTP client for OpenAI-compatible Chat Completions (OpenRouter by default).

`OpenAICompatClient.stream(request, on_event)` returns at once with a `Handle`; a worker
thread does the HTTP (httpx), decodes the SSE stream and calls `on_event` with the events of
`bb7.provider.events`. Contract for `on_event`:
- it is called from that worker thread only, one event at a time, in order: deltas and
  `Retrying` notices, then exactly one `Done` or `StreamError`; nothing after that;
- it should return quickly (the Neovim host hands events to its loop with `async_call`);
  an exception it raises is logged and does not stop the stream.
Failures before the first delta (connect errors, 429, 5xx, a dropped or silent connection) are
retried with exponential backoff and jitter, honouring `Retry-After`, while the retry window and
the overall deadline allow; after the first delta a failure ends the stream with a `StreamError`
that keeps the partial text. Time is bounded (`Timeouts`): a watchdog thread ends an attempt
that makes no progress for `idle` seconds (keep-alive comments are not progress) and the whole
answer at `total` seconds, by shutting the socket down as `cancel()` does. `cancel()` closes the
socket from the calling thread (shutdown wakes the blocked read at once) and the stream ends
with a `cancelled` error carrying the partial output. A chunk the typed decoder refuses is
salvaged field by field (`bb7.provider.lenient`); what had to be skipped becomes a `StreamWarning`.
What this module is not for: prompt building (`bb7.prompt`), the models list (`models.py`),
parsing tool arguments (formats layer).
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import itertools
import logging
import random
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypedDict
from urllib.parse import urlsplit

import httpx
import msgspec

from bb7.provider.config import ProviderConfig as ProviderConfig
from bb7.provider.config import RetryPolicy as RetryPolicy
from bb7.provider.config import Timeouts as Timeouts
from bb7.provider.deltas import StreamAccumulator
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
from bb7.provider.handle import Handle
from bb7.provider.keys import ApiKey, redact
from bb7.provider.lenient import decode_chunk
from bb7.provider.presets import preset_for
from bb7.provider.sse import SSEDecoder, SSEOverflow
from bb7.provider.wire import (
    ERROR_BODY_DECODER,
    ERROR_OBJECT_DECODER,
    ChatRequest,
    ErrorObject,
    request_body,
)

log = logging.getLogger(__name__)

_ERROR_BODY_LIMIT = 64 * 1024
_JSON_BODY_LIMIT = 32 * 1024 * 1024
_RETRY_STATUSES = frozenset({408, 409, 425, 429})
# An answer larger than this is not read on: eight files at bb7's file limit (1 MiB, the one
# limit for what it reads and writes), with room for prose. Reading on would only hold a model's
# runaway output in memory (a 100 MB answer peaked at over 600 MB) for changes bb7 refuses.
MAX_ANSWER_CHARS = 8 * 1024 * 1024
_LATER = "Send again in a moment, or pick another model."
_KEPT = " The partial answer is kept; send again to get a complete one."
_MAX_WARNINGS = 5

# Which time limit ended an attempt: no progress for `Timeouts.idle`, or `Timeouts.total`.
Expiry = Literal["idle", "deadline"]


class HttpProblem(msgspec.Struct, frozen=True):
    """A failed non-streaming request (the models list)."""

    kind: ErrorKind
    message: str
    status: int | None = None


class _Connection:
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
            _shutdown(self._network_stream)

    def attach(self, network_stream: Any) -> None:
        with self._lock:
            self._network_stream = network_stream
            if self.handle.cancelled or self.expired is not None:
                _shutdown(network_stream)

    def expire(self, why: Expiry) -> None:
        with self._lock:
            self.expired = why
            _shutdown(self._network_stream)

    def rearm(self) -> None:
        with self._lock:
            self.expired = None

    def detach(self) -> None:
        with self._lock:
            self._network_stream = None

    def trace(self, name: str, info: dict[str, Any]) -> None:
        # httpx trace hook: learn the socket as soon as it exists, so a cancel while waiting
        # for response headers can close it too (pooling is off, see OpenAICompatClient).
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self.attach(info.get("return_value"))


def _shutdown(network_stream: Any) -> None:
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


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every client: loading the certificate store takes about 0.1 s,
    which a send would otherwise pay each time."""
    return httpx.create_ssl_context()


class OpenAICompatClient:
    """Client for one provider (base URL + key). Safe to share between threads."""

    def __init__(
        self,
        config: ProviderConfig | None = None,
        api_key: ApiKey | None = None,
        *,
        rng: random.Random | None = None,
    ) -> None:
        self.config = config or ProviderConfig()
        self.api_key = api_key
        self._rng = rng or random.Random()
        timeouts = self.config.timeouts
        self._http = httpx.Client(
            timeout=httpx.Timeout(
                connect=timeouts.connect,
                read=timeouts.read,
                write=timeouts.write,
                pool=timeouts.connect,
            ),
            # One fresh connection per request: the trace hook above then always sees the
            # socket, so cancel works before the first byte too. A TLS handshake is noise next
            # to a model's latency.
            limits=httpx.Limits(max_keepalive_connections=0),
            follow_redirects=True,
            verify=_tls(),
        )
        self.preset = preset_for(self.config.preset, self.config.base_url)

    def close(self) -> None:
        self._http.close()

    def url(self, path: str) -> str:
        return self.config.base_url.rstrip("/") + "/" + path.lstrip("/")

    def stream(
        self, request: ChatRequest, on_event: Callable[[StreamEvent], None]
    ) -> Handle[Terminal]:
        """Start streaming `request` in a worker thread; events go to `on_event`; the handle's
        result is the terminal event. Cancelling ends the stream with a `cancelled` error."""
        handle: Handle[Terminal] = Handle()
        body = request_body(
            request,
            stream=True,
            preset=self.preset,
            include_usage=self.config.include_usage,
        )
        worker = _Worker(self, body, on_event, handle)
        thread = threading.Thread(target=worker.run, name="bb7-llm-stream", daemon=True)
        thread.start()
        return handle

    def complete(self, request: ChatRequest, timeout: float | None = None) -> Terminal:
        """Blocking convenience over `stream` (titles, command line): the terminal event."""
        handle = self.stream(request, lambda _event: None)
        result = handle.wait(timeout)
        if result is None:
            handle.cancel()
            result = handle.wait()
        assert result is not None
        return result

    def get_json(self, path: str, *, timeout: float = 30.0) -> bytes | HttpProblem:
        """GET `path` (e.g. "models") and return the raw JSON body. Blocking: use a thread."""
        return self.request_json("GET", self.url(path), timeout=timeout)

    def request_json(
        self, method: str, url: str, body: object = None, *, timeout: float = 30.0
    ) -> bytes | HttpProblem:
        """`method` `url` (any URL: a local server's own API lives beside `/v1`) with `body` as
        JSON, and the raw JSON answer. Blocking: use a thread."""
        content = None if body is None else msgspec.json.encode(body)
        headers = self._headers()
        if content is not None:
            headers["Content-Type"] = "application/json"
        try:
            response = self._http.request(
                method, url, content=content, headers=headers, timeout=timeout
            )
        except httpx.TimeoutException:
            return HttpProblem("timeout", f"{url} did not answer within {timeout:g} s.")
        except httpx.TransportError as exc:
            return HttpProblem("connection", self._transport_message(exc))
        if response.status_code >= 400:
            failure = self._http_failure(response.status_code, response.headers, response.content)
            return HttpProblem(failure.kind, failure.message, failure.status)
        return response.content

    # -- internals shared with the worker -----------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", **self.config.headers}
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key.reveal()}"
        return headers

    def _redact(self, text: str) -> str:
        return redact(text, self.api_key)

    def _transport_message(self, exc: Exception) -> str:
        host = urlsplit(self.config.base_url).netloc
        detail = self._redact(str(exc)) or type(exc).__name__
        if self.preset.local:
            named = "" if self.preset.name == "custom" else f" ({self.preset.title})"
            return (
                f"Could not reach {host}{named}: {detail}. Is the server running? Start it, or "
                "point the base URL to where it runs."
            )
        return f"Could not reach {host}: {detail}. Check the network and the base URL."

    def _who(self) -> str:
        """Who failed, for a message: a named server on this machine by name and address (its
        user knows which process to look at), any other as "The provider"."""
        if self.preset.local and self.preset.name != "custom":
            return f"{self.preset.title} at {urlsplit(self.config.base_url).netloc}"
        return "The provider"

    def _local_check(self) -> str:
        """What to look at when a server on this machine fails, as a sentence ("" otherwise)."""
        if not self.preset.local or not self.preset.check:
            return ""
        check = self.preset.check
        return f" {check[0].upper()}{check[1:]}."

    def _http_failure(self, status: int, headers: httpx.Headers, body: bytes) -> _Failure:
        raw = self._redact(body[:_ERROR_BODY_LIMIT].decode("utf-8", errors="replace")).strip()
        detail = _error_detail(body) or raw[:300] or "no details"
        # One line: an HTML error page or a message with line breaks would split the message.
        detail = " ".join(self._redact(detail).split())
        retry_after = _retry_after(headers.get("retry-after"))
        where = f"HTTP {status}: {detail}"
        kind: ErrorKind
        if status in (401, 403):
            kind = "auth"
            if self.api_key is None:
                # Only a server that needs no key by default gets none: no variable is read
                # for it, so the hint names the setting.
                hint = (
                    "No API key was sent: set provider.api_key to an environment variable "
                    "name, cmd:COMMAND or file:PATH."
                )
            else:
                hint = f"Check the key from {self.api_key.source}."
            message = f"The provider refused the request ({where}). {hint}"
        elif status == 402:
            kind = "payment"
            message = f"The provider wants credits ({where}). Add credits or pick a cheaper model."
        elif status == 429:
            kind = "rate_limited"
            message = f"The provider is rate limiting ({where}). {_LATER}"
        elif status >= 500 or status in _RETRY_STATUSES:
            kind = "server"
            then = self._local_check() if self._who() != "The provider" else f" {_LATER}"
            message = f"{self._who()} had a server error ({where}).{then}"
        elif status == 404:
            kind = "bad_request"
            message = f"Not found ({where}). Check the model name and the base URL."
        else:
            kind = "bad_request"
            message = f"{self._who()} rejected the request ({where})."
        retryable = status >= 500 or status in _RETRY_STATUSES
        return _Failure(kind, message, status, raw or None, retry_after, retryable)


class _Failure(msgspec.Struct, frozen=True):
    kind: ErrorKind
    message: str
    status: int | None = None
    provider_error: str | None = None
    retry_after: float | None = None
    retryable: bool = False


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


class _Watchdog:
    """Ends the current attempt once it makes no progress for `idle` seconds or the answer
    reaches its deadline: a blocked read cannot time itself out when keep-alive comments keep
    arriving, so a thread watches the clock and shuts the socket down (see `_Connection`)."""

    def __init__(self, connection: _Connection, idle: float, deadline: float) -> None:
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


class _Worker:
    """One request's life in its thread: attempts, retries, events, the terminal event."""

    def __init__(
        self,
        client: OpenAICompatClient,
        body: bytes,
        on_event: Callable[[StreamEvent], None],
        handle: Handle[Terminal],
    ) -> None:
        self.client = client
        self.body = body
        self.on_event = on_event
        self.handle = handle
        self.connection = _Connection(handle)
        handle._stopping(self.connection.shutdown)
        self.acc = StreamAccumulator()
        self.warned: set[str] = set()
        self.watchdog: _Watchdog | None = None
        self.started = time.monotonic()
        self.first_token: float | None = None

    def run(self) -> None:
        started = self.started = time.monotonic()
        timeouts = self.client.config.timeouts
        deadline = started + timeouts.total
        watchdog = self.watchdog = _Watchdog(self.connection, timeouts.idle, deadline)
        try:
            outcome, attempts = self._attempts(watchdog, started)
        finally:
            watchdog.stop()
        self._finish(outcome, attempts, time.monotonic() - started)

    def _attempts(self, watchdog: _Watchdog, started: float) -> tuple[_Complete | _Failure, int]:
        policy = self.client.config.retry
        attempt = 0
        while True:
            attempt += 1
            self.acc = StreamAccumulator()
            watchdog.begin()
            try:
                outcome = self._attempt()
            except Exception as exc:  # a bug, but the caller must still get its terminal event
                log.exception("stream worker failed")
                outcome = _Failure("protocol", f"Internal error while streaming: {exc!r}")
            finally:
                watchdog.end()
            if self.handle.cancelled and isinstance(outcome, _Failure):
                # A response that completed before the cancel took effect stays complete.
                return _cancelled(), attempt
            if not isinstance(outcome, _Failure) or not outcome.retryable or self.acc.emitted:
                return outcome, attempt
            tries = f"{attempt} attempts" if attempt > 1 else "1 attempt"
            if attempt >= policy.max_attempts:
                return _with_message(outcome, f"{outcome.message} (gave up after {tries})"), attempt
            if outcome.retry_after is not None and outcome.retry_after > policy.max_retry_after:
                message = (
                    f"{outcome.message} The provider asked to wait {outcome.retry_after:.0f} s "
                    "before retrying."
                )
                return _with_message(outcome, message), attempt
            delay = outcome.retry_after
            if delay is None:
                ceiling = min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1))
                delay = ceiling / 2 + self.client._rng.uniform(0, ceiling / 2)
            now = time.monotonic()
            if now - started >= policy.max_elapsed or now + delay >= watchdog.deadline:
                spent = now - started
                message = f"{outcome.message} (gave up after {tries} in {spent:.0f} s)"
                return _with_message(outcome, message), attempt
            self._emit(Retrying(attempt + 1, policy.max_attempts, delay, outcome.message))
            if self.handle._pause(delay):
                return _cancelled(), attempt

    def _finish(self, outcome: _Complete | _Failure, attempts: int, duration: float) -> None:
        acc = self.acc
        output = _Output(
            text=acc.text,
            reasoning=acc.reasoning,
            tool_calls=acc.tool_calls(),
            usage=acc.usage,
            attempts=attempts,
            duration=duration,
            first_token=self.first_token,
        )
        result: Terminal
        if isinstance(outcome, _Complete):
            result = Done(finish_reason=acc.finish_reason, model=acc.model, **output)
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

    def _attempt(self) -> _Complete | _Failure:
        outcome = self._request()
        expired = self.connection.expired
        if expired is not None and isinstance(outcome, _Failure) and not self.handle.cancelled:
            return self._expired(expired)
        return outcome

    def _request(self) -> _Complete | _Failure:
        client = self.client
        headers = client._headers()
        headers.update(
            {
                "Accept": "text/event-stream",
                "Content-Type": "application/json",
                # A compressed event stream can sit in the decompressor; ask for plain bytes.
                "Accept-Encoding": "identity",
            }
        )
        try:
            with client._http.stream(
                "POST",
                client.url("chat/completions"),
                content=self.body,
                headers=headers,
                timeout=self._timeout(),
                extensions={"trace": self.connection.trace},
            ) as response:
                self.connection.attach(response.extensions.get("network_stream"))
                if response.status_code >= 400:
                    body = _read_limited(response.iter_bytes(), _ERROR_BODY_LIMIT)
                    return client._http_failure(response.status_code, response.headers, body)
                pieces = response.iter_bytes()
                if "event-stream" not in response.headers.get("content-type", ""):
                    first = next(pieces, b"")
                    pieces = itertools.chain((first,), pieces)
                    if first.lstrip()[:1] in (b"{", b"["):
                        # A server that ignored stream=true and answered with one JSON object.
                        whole = _read_limited(pieces, _JSON_BODY_LIMIT)
                        return self._payload(whole) or _COMPLETE
                return self._read_stream(pieces)
        except httpx.TimeoutException as exc:
            return self._broken("timeout", exc)
        except httpx.TransportError as exc:
            return self._broken("connection", exc)
        except SSEOverflow as exc:
            return _Failure("protocol", f"The provider sent a malformed stream: {exc}.")
        finally:
            self.connection.detach()

    def _timeout(self) -> httpx.Timeout:
        """The client's timeouts, the connect one cut to what is left of the deadline (a
        connect cannot be interrupted by the watchdog)."""
        timeouts = self.client.config.timeouts
        left = self.watchdog.deadline - time.monotonic() if self.watchdog else timeouts.connect
        connect = max(0.01, min(timeouts.connect, left))
        return httpx.Timeout(
            connect=connect, read=timeouts.read, write=timeouts.write, pool=connect
        )

    def _read_stream(self, pieces: Iterator[bytes]) -> _Complete | _Failure:
        decoder = _Decoder()
        watchdog = self.watchdog
        for piece in pieces:
            if self.handle.cancelled:
                return _cancelled()
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
            return _cancelled()
        acc = self.acc
        if acc.finish_reason is not None:
            return _COMPLETE  # some local servers end without [DONE]; the finish reason suffices
        return _Failure(
            "connection",
            self._closed() + (" The partial answer is kept." if acc.emitted else ""),
            retryable=True,
        )

    def _closed(self) -> str:
        """The stream ended without a finish. A server on this machine that does that has
        usually crashed or run out of memory: say so, and what to look at."""
        client = self.client
        crashed = " (did it crash or run out of memory?)" if client.preset.local else ""
        return (
            f"{client._who()} closed the connection before the response was complete"
            f"{crashed}.{client._local_check()}"
        )

    def _payload(self, payload: bytes) -> _Complete | _Failure | None:
        """Handle one SSE data payload; a terminal outcome when the stream is over."""
        if payload.strip() == b"[DONE]":
            return _COMPLETE
        decoded = decode_chunk(payload)
        chunk = decoded.chunk
        if chunk is None and b"\n" in payload:
            # Events separated by single newlines arrive joined; take them line by line.
            for line in payload.split(b"\n"):
                if line.strip():
                    end = self._payload(line)
                    if end is not None:
                        return end
            return None
        for what in decoded.skipped:
            self._warn(what)
        if chunk is None:
            return None
        # Usage and text that came with an error object are kept with the error.
        events = self.acc.apply(chunk)
        if self.acc.size > MAX_ANSWER_CHARS:
            return _Failure(
                "too_large",
                f"The answer grew past {MAX_ANSWER_CHARS // (1024 * 1024)} MB, more than bb7 "
                "reads: it stopped reading, and nothing of it is applied. "
                "Ask for a smaller change.",
            )
        if events and self.first_token is None:
            self.first_token = time.monotonic() - self.started
        if events and self.watchdog is not None:
            self.watchdog.progress()
        for event in events:
            self._emit(event)
        error = bytes(chunk.error)
        if error and error != b"null":
            return self._provider_error(error)
        if self.acc.finish_reason == "error":
            return _Failure(
                "provider",
                "The provider ended the response with an error and gave no details. "
                "Send again, or pick another model.",
            )
        return None

    def _provider_error(self, raw: bytes) -> _Failure:
        verbatim = self.client._redact(raw.decode("utf-8", errors="replace"))
        try:
            obj = ERROR_OBJECT_DECODER.decode(raw)
        except msgspec.DecodeError:
            obj = None
        code: int | str | None = None
        if isinstance(obj, ErrorObject):
            text, code = obj.message or verbatim, obj.code
        else:
            text = obj or verbatim
        suffix = f" (code {code})" if code is not None else ""
        who = self.client._who()
        check = self.client._local_check() if who != "The provider" else ""
        message = self.client._redact(f"{who} reported an error: {text}{suffix}.{check}")
        if self.acc.emitted:
            message += " The partial answer is kept."
        # OpenRouter reports upstream overload and rate limits this way once the HTTP status is
        # already sent; before any output such an error is as retryable as the status would be.
        status = code if isinstance(code, int) else None
        retryable = status is not None and (status >= 500 or status in _RETRY_STATUSES)
        return _Failure("provider", message, status, verbatim, retryable=retryable)

    def _expired(self, why: Expiry) -> _Failure:
        """The watchdog ended the attempt: say which limit, and what had arrived."""
        timeouts = self.client.config.timeouts
        who = self.client._who()
        if why == "deadline":
            message = f"The answer took longer than the overall limit of {timeouts.total:g} s."
        elif self.watchdog is not None and self.watchdog.quiet_bytes:
            message = (
                f"{who} sent only keep-alive comments, no answer, for {timeouts.idle:g} s "
                "(the idle limit)."
            )
        else:
            message = f"{who} sent nothing for {timeouts.idle:g} s (the idle limit)."
            if who != "The provider":
                message += (
                    f"{self.client._local_check()} A slow model may need a longer "
                    "provider.idle_timeout."
                )
        if self.acc.emitted:
            message += _KEPT
        retry = why == "idle" and self.client.config.retry.retry_idle
        return _Failure("timeout", message, retryable=retry)

    def _broken(self, kind: ErrorKind, exc: httpx.HTTPError) -> _Failure:
        if self.handle.cancelled:
            return _cancelled()
        client = self.client
        if isinstance(exc, httpx.ConnectTimeout):
            message = (
                f"Connecting to {urlsplit(client.config.base_url).netloc} timed out after "
                f"{self._timeout().connect:g} s."
            )
        elif kind == "timeout":
            message = (
                f"The provider sent nothing for {client.config.timeouts.read:g} s (read timeout)."
            )
        elif client.preset.local and not isinstance(exc, httpx.ConnectError):
            message = self._closed()
        elif self.acc.emitted:
            detail = client._redact(str(exc)) or type(exc).__name__
            message = f"The connection broke mid-response: {detail}."
        else:
            message = client._transport_message(exc)
        if self.acc.emitted:
            message += _KEPT
        return _Failure(kind, message, retryable=True)


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


def _cancelled() -> _Failure:
    return _Failure("cancelled", "Response cancelled by the user.")


def _with_message(failure: _Failure, message: str) -> _Failure:
    return msgspec.structs.replace(failure, message=message)


def _read_limited(pieces: Iterator[bytes], limit: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    for piece in pieces:
        parts.append(piece)
        size += len(piece)
        if size >= limit:
            break
    return b"".join(parts)[:limit]


def _error_detail(body: bytes) -> str | None:
    """The human part of an error body: `error.message`, `error` or `message`."""
    try:
        parsed = ERROR_BODY_DECODER.decode(body)
    except msgspec.DecodeError:
        return None
    if isinstance(parsed.error, ErrorObject) and parsed.error.message:
        return parsed.error.message
    if isinstance(parsed.error, str) and parsed.error:
        return parsed.error
    return parsed.message


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
