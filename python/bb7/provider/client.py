"""The one HTTP client, for OpenAI's Chat Completions (OpenRouter by default) and Anthropic's
Messages API (`api`, from the settings or the preset).

`OpenAICompatClient.stream(request, on_event)` returns at once with a `Handle`; a worker
thread (`bb7.provider.attempt`) does the HTTP (httpx), decodes the SSE stream and calls
`on_event` with the events of `bb7.provider.events`. Contract for `on_event`:
- it is called from that worker thread only, one event at a time, in order: deltas and
  `Retrying` notices, then exactly one `Done` or `StreamError`; nothing after that;
- it should return quickly (the Neovim host hands events to its loop with `async_call`);
  an exception it raises is logged and does not stop the stream.
Failures before the first delta are retried, time is bounded by `Timeouts`, and `cancel()`
ends the stream with a `cancelled` error carrying the partial output: see `attempt`. How each
failure is worded is `failures`'. `complete` waits for the terminal event; `get_json` and
`request_json` are the plain requests (the models list, the key's credit, a local server's own
API): their `timeout` is one deadline for the whole request, headers to last byte, and their
answer is read up to `SIDE_MAX_BYTES`, so a server that trickles or answers without end holds
up `bb7 usage`, `:checkhealth` or a first send for that long at most.
The API decides the request's path, headers and body (`wire.request_body` or
`anthropic_wire.messages_body`) and who reads the stream (`deltas.StreamAccumulator` or
`anthropic_deltas.MessagesAccumulator`); the rest is the same for both.
What this module is not for: prompt building (`bb7.prompt`), the models list (`models.py`),
parsing tool arguments (formats layer).
"""

from __future__ import annotations

import functools
import random
import ssl
import threading
from collections.abc import Callable

import httpx
import msgspec

from bb7.provider import anthropic_wire
from bb7.provider.anthropic_deltas import MessagesAccumulator
from bb7.provider.attempt import Worker, read_limited, shutdown_stream
from bb7.provider.config import ProviderConfig as ProviderConfig
from bb7.provider.config import RetryPolicy as RetryPolicy
from bb7.provider.config import Timeouts as Timeouts
from bb7.provider.deltas import Answer, StreamAccumulator
from bb7.provider.events import StreamEvent, Terminal
from bb7.provider.failures import ERROR_BODY_LIMIT, HttpProblem, Wording
from bb7.provider.handle import Handle
from bb7.provider.keys import ApiKey
from bb7.provider.presets import Api, preset_for
from bb7.provider.wire import ChatRequest, request_body

# The most a request that is not the chat stream reads of its answer (OpenRouter's models list,
# the largest, is about 2 MB).
SIDE_MAX_BYTES = 16 * 1024 * 1024


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
        self.api: Api = self.config.api or self.preset.api
        self.wording = Wording(self.config, self.preset, self.api_key)

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
        answer: type[Answer]
        body = self.wire_body(request)
        if self.api == "anthropic":
            path, answer = "messages", MessagesAccumulator
        else:
            path, answer = "chat/completions", StreamAccumulator
        worker = Worker(
            self._http,
            self.url(path),
            self._headers(),
            body,
            on_event,
            handle,
            answer=answer,
            config=self.config,
            wording=self.wording,
            rng=self._rng,
        )
        thread = threading.Thread(target=worker.run, name="bb7-llm-stream", daemon=True)
        thread.start()
        return handle

    def wire_body(self, request: ChatRequest) -> bytes:
        """The JSON body `stream` sends for `request` (the prompt log keeps it as sent)."""
        if self.api == "anthropic":
            return anthropic_wire.messages_body(request, stream=True)
        return request_body(
            request, stream=True, preset=self.preset, include_usage=self.config.include_usage
        )

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
        late = HttpProblem("timeout", f"{url} did not answer within {timeout:g} s.")
        deadline = _Deadline(timeout)
        try:
            with self._http.stream(
                method,
                url,
                content=content,
                headers=headers,
                timeout=timeout,
                extensions={"trace": deadline.trace},
            ) as response:
                if response.status_code >= 400:
                    error = read_limited(response.iter_bytes(), ERROR_BODY_LIMIT)
                    failure = self.wording.http(response.status_code, response.headers, error)
                    return HttpProblem(failure.kind, failure.message, failure.status)
                data = read_limited(response.iter_bytes(), SIDE_MAX_BYTES + 1)
        except httpx.TimeoutException:
            return late
        except httpx.TransportError as exc:
            return (
                late if deadline.expired else HttpProblem("connection", self.wording.transport(exc))
            )
        finally:
            deadline.stop()
        if deadline.expired:  # a body without a length ends quietly when its socket is shut
            return late
        if len(data) > SIDE_MAX_BYTES:
            return HttpProblem(
                "too_large", f"{url} answered over {SIDE_MAX_BYTES >> 20} MiB; bb7 stopped reading"
            )
        return data

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", **self.config.headers}
        key = None if self.api_key is None else self.api_key.reveal()
        if self.api == "anthropic":
            headers.update(anthropic_wire.headers(key))
        elif key is not None:
            headers["Authorization"] = f"Bearer {key}"
        return headers


class _Deadline:
    """One request's deadline: when it passes, the socket is shut down under whatever the
    request is waiting for (headers, or the next byte of a trickled body)."""

    def __init__(self, seconds: float) -> None:
        self._lock = threading.Lock()
        self._stream: object = None
        self.expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, name: str, info: dict[str, object]) -> None:
        # httpx trace hook: the connection's socket, as soon as it exists.
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            with self._lock:
                self._stream = info.get("return_value")
                if self.expired:
                    shutdown_stream(self._stream)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            shutdown_stream(self._stream)

    def stop(self) -> None:
        self._timer.cancel()
