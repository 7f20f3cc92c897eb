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
`request_json` are the plain requests (the models list, a local server's own API).
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
from bb7.provider.attempt import Worker
from bb7.provider.config import ProviderConfig as ProviderConfig
from bb7.provider.config import RetryPolicy as RetryPolicy
from bb7.provider.config import Timeouts as Timeouts
from bb7.provider.deltas import Answer, StreamAccumulator
from bb7.provider.events import StreamEvent, Terminal
from bb7.provider.failures import HttpProblem, Wording
from bb7.provider.handle import Handle
from bb7.provider.keys import ApiKey
from bb7.provider.presets import Api, preset_for
from bb7.provider.wire import ChatRequest, request_body


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
        if self.api == "anthropic":
            body = anthropic_wire.messages_body(request, stream=True)
            path, answer = "messages", MessagesAccumulator
        else:
            body = request_body(
                request,
                stream=True,
                preset=self.preset,
                include_usage=self.config.include_usage,
            )
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
            return HttpProblem("connection", self.wording.transport(exc))
        if response.status_code >= 400:
            failure = self.wording.http(response.status_code, response.headers, response.content)
            return HttpProblem(failure.kind, failure.message, failure.status)
        return response.content

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", **self.config.headers}
        key = None if self.api_key is None else self.api_key.reveal()
        if self.api == "anthropic":
            headers.update(anthropic_wire.headers(key))
        elif key is not None:
            headers["Authorization"] = f"Bearer {key}"
        return headers
