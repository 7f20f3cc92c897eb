"""A scripted model server on 127.0.0.1 for tests and benchmarks.

It speaks HTTP/1.1 with chunked transfer and server-sent events for real, and answers POST
.../chat/completions (OpenAI's Chat Completions) and POST .../messages (Anthropic's Messages
API; its events are built by tests/messages_api.py) with the next scripted response, GET
.../models with a models list. Every request it receives is recorded for assertions.

In-process (pytest):

    with LLMServer([stream(text_chunk("Hi"), finish("stop"))]) as server:
        client = OpenAICompatClient(ProviderConfig(base_url=server.base_url))

As its own process (later Neovim tests):

    python tests/llm_server.py --port 8765 --script script.json

prints `listening on http://127.0.0.1:8765/v1` when ready. The script file holds
`{"responses": [...], "models": [...]}`. `GET /_bb7/requests` returns the recorded requests as
JSON, `GET /_bb7/state` the counts of requests, hang-ups and unused responses, and
`POST /_bb7/responses` (a JSON list) queues more responses.

A response is a dict: `status` (default 200), `headers`, and either `body` (a JSON value or a
string, sent whole) or `events`, a list of steps streamed in order:
  {"data": {...}}      one SSE event with that JSON     {"done": true}     `data: [DONE]`
  {"event": "name", "data": {...}}  the same, after an `event: name` line (Anthropic's)
  {"raw": "text"}      bytes exactly as given (a str is  {"comment": "x"}   `: x` keep-alive
                       sent as UTF-8, bytes as they are)
  {"sleep": s}         pause s seconds                  {"stall": s}       send nothing for s
                                                         seconds or until the client hangs up
  {"drop": true}       cut the connection mid-stream     {"clock": true}    a text chunk whose
                                                         text is the server's time.monotonic()
  {"gate": "name"}     send nothing until the test calls `server.open_gate("name")` (at most
                       30 s): a pause the test ends, however slow the machine
  {"repeat": step, "every": s}   send `step` every s seconds until the client hangs up (a
                                 provider that sends keep-alives, or text, forever)
A local server's own API (capability answers) is served from `native`: {"GET /props": body,
"GET /api/v0/models": body, "POST /api/show": {"by_model": {id: body}}} (a model not listed
there gets Ollama's 404 `{"error": "model 'x' not found"}`); the bodies are the documented
shapes kept in tests/provider/local_servers/. A native body `{"trickle": s, "body": b}` sends b
one byte every s seconds; `{"endless": true}` sends JSON whitespace until the client hangs up.

`aside` (in-process only) answers the requests it returns a response for, off the script.

`"byte_by_byte": true` writes every byte of every event as its own chunk and TCP segment;
`"stall_before_headers": s` waits (or notes the client hanging up) before the status line.
"""

from __future__ import annotations

import argparse
import json
import select
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# ---- building scripted responses -------------------------------------------------------------


def chunk(
    delta: dict[str, Any] | None = None, finish_reason: str | None = None, **top: Any
) -> dict[str, Any]:
    """One chat.completion.chunk event body."""
    body: dict[str, Any] = {
        "id": "gen-test",
        "object": "chat.completion.chunk",
        "model": "test/model",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish_reason}],
    }
    body.update(top)
    return {"data": body}


def text_chunk(text: str) -> dict[str, Any]:
    return chunk({"role": "assistant", "content": text})


def reasoning_chunk(text: str, field: str = "reasoning") -> dict[str, Any]:
    """Reasoning as `reasoning`, `reasoning_content` or `reasoning_details`."""
    if field == "reasoning_details":
        return chunk({"reasoning_details": [{"type": "reasoning.text", "text": text}]})
    return chunk({field: text})


def tool_call_chunk(
    index: int | None,
    *,
    id: str | None = None,
    name: str | None = None,
    arguments: str | None = None,
) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "function", "function": {}}
    if index is not None:
        call["index"] = index
    if id is not None:
        call["id"] = id
    if name is not None:
        call["function"]["name"] = name
    if arguments is not None:
        call["function"]["arguments"] = arguments
    return chunk({"tool_calls": [call]})


def tool_call(
    name: str, arguments: dict[str, Any], *, index: int = 0, piece: int = 9
) -> list[dict[str, Any]]:
    """A tool call streamed as the providers do: id and name first, arguments in pieces."""
    text = json.dumps(arguments)
    steps = [tool_call_chunk(index, id=f"call_{index}", name=name, arguments="")]
    steps += [
        tool_call_chunk(index, arguments=text[i : i + piece]) for i in range(0, len(text), piece)
    ]
    return steps


def edits(*items: tuple[str, str, str, str]) -> dict[str, Any]:
    """edit_file arguments (search_replace_multi) from (path, file_id, old, new) tuples."""
    return {
        "edits": [
            {"path": p, "file_id": i, "old_string": o, "new_string": n} for p, i, o, n in items
        ]
    }


def finish(reason: str = "stop") -> dict[str, Any]:
    return chunk({}, finish_reason=reason)


def usage_chunk(
    prompt: int = 10, completion: int = 5, *, cost: float | None = None, cached: int = 0
) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }
    if cost is not None:
        usage["cost"] = cost
    return {
        "data": {"id": "gen-test", "object": "chat.completion.chunk", "choices": [], "usage": usage}
    }


def openrouter_usage_chunk(
    prompt: int, completion: int, *, cached: int = 0, written: int = 0, cost: float
) -> dict[str, Any]:
    """The last chunk of an OpenRouter stream, shaped like the recorded one
    (../shared/wire/openrouter-cache-usage.sse): no choices, the usage with the tokens read from
    (`cached_tokens`) and written to (`cache_write_tokens`) the provider's cache, and the cost."""
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "cost": cost,
        "is_byok": False,
        "prompt_tokens_details": {
            "cached_tokens": cached,
            "cache_write_tokens": written,
            "audio_tokens": 0,
            "video_tokens": 0,
        },
        "cost_details": {"upstream_inference_cost": cost},
        "completion_tokens_details": {"reasoning_tokens": 0, "image_tokens": 0},
    }
    body = {
        "id": "gen-test",
        "object": "chat.completion.chunk",
        "model": "anthropic/claude-test",
        "provider": "Anthropic",
        "choices": [],
        "usage": usage,
    }
    return {"data": body}


def stream(*steps: dict[str, Any], done: bool = True, **options: Any) -> dict[str, Any]:
    """A streamed 200 response: the steps, then `[DONE]` unless `done=False`; `options` are
    response keys such as byte_by_byte=True or stall_before_headers=seconds."""
    events = list(steps) + ([{"done": True}] if done else [])
    return {"status": 200, "events": events, **options}


def error_response(
    status: int, message: str, *, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    return {
        "status": status,
        "headers": headers or {},
        "body": {"error": {"code": status, "message": message}},
    }


DEFAULT_MODELS: list[dict[str, Any]] = [
    {
        "id": "test/tools-model",
        "name": "Test: tools",
        "context_length": 128000,
        "pricing": {
            "prompt": "0.000003",
            "completion": "0.000015",
            "input_cache_read": "0.0000003",
        },
        "top_provider": {"max_completion_tokens": 8192},
        "supported_parameters": ["tools", "tool_choice", "reasoning", "max_tokens"],
    },
    {
        "id": "test/plain-model",
        "name": "Test: no tools",
        "context_length": 8192,
        "pricing": {"prompt": "0", "completion": "0"},
        "top_provider": {"max_completion_tokens": None},
        "supported_parameters": ["max_tokens", "temperature"],
    },
]

# ---- the server ------------------------------------------------------------------------------


class ReceivedRequest(dict[str, Any]):
    """method, path, headers (lower-case names), body (text) and json (parsed body or None)."""


class LLMServer:
    """The scripted server; start()/stop() or use as a context manager."""

    def __init__(
        self,
        responses: Iterable[dict[str, Any]] = (),
        *,
        models: list[dict[str, Any]] | None = None,
        native: dict[str, Any] | None = None,
        port: int = 0,
        respond: Callable[[Any, dict[str, Any]], dict[str, Any]] | None = None,
        aside: Callable[[Any], dict[str, Any] | None] | None = None,
    ) -> None:
        self._responses: deque[dict[str, Any]] = deque(responses)
        # Rewrites the next scripted response for the request's parsed body (a benchmark's
        # provider that bills what each request would read from its cache).
        self.respond = respond
        # Answers the requests it returns a response for, off the script (a real agent's
        # title request, which may come before or after the scripted ones).
        self.aside = aside
        self.models = DEFAULT_MODELS if models is None else models
        self.native = native or {}
        self._lock = threading.Lock()
        self._requests: list[ReceivedRequest] = []
        self._disconnects: list[float] = []
        self._disconnected = threading.Condition(self._lock)
        self._gates: dict[str, threading.Event] = {}
        self._httpd = _HTTPServer(("127.0.0.1", port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LLMServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="llm-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _gate(self, name: str) -> threading.Event:
        with self._lock:
            return self._gates.setdefault(name, threading.Event())

    def open_gate(self, name: str) -> None:
        """Lets a stream waiting at `{"gate": name}` go on (or one that gets there later)."""
        self._gate(name).set()

    def push(self, *responses: dict[str, Any]) -> None:
        with self._lock:
            self._responses.extend(responses)

    @property
    def requests(self) -> list[ReceivedRequest]:
        with self._lock:
            return list(self._requests)

    def chat_requests(self) -> list[ReceivedRequest]:
        """The requests for an answer, in either API."""
        return [r for r in self.requests if _answer_route(r["path"])]

    def state(self) -> dict[str, Any]:
        """Counts for a test running the server as a process: requests received, clients that
        hung up during a stall, scripted responses not used yet."""
        with self._lock:
            return {
                "requests": len(self._requests),
                "disconnects": len(self._disconnects),
                "pending_responses": len(self._responses),
            }

    def wait_for_disconnect(self, timeout: float) -> float | None:
        """time.monotonic() at which a client hung up during a stall, or None."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._disconnects:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._disconnected.wait(remaining):
                    break
            return self._disconnects[0] if self._disconnects else None

    # -- used by the handler --

    def _record(self, request: ReceivedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_response(self) -> dict[str, Any] | None:
        with self._lock:
            return self._responses.popleft() if self._responses else None

    def _note_disconnect(self) -> None:
        with self._lock:
            self._disconnects.append(time.monotonic())
            self._disconnected.notify_all()


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: LLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up mid-stream is what half the tests do; stay quiet about it.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # Small writes must leave at once, or Nagle's algorithm delays stream chunks.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        owner = self.server.owner
        if self.path == "/_bb7/requests":
            self._send_json(200, owner.requests)
            return
        if self.path == "/_bb7/state":
            self._send_json(200, owner.state())
            return
        self._record(b"")
        if f"GET {self.path}" in owner.native:
            self._send_native(owner.native[f"GET {self.path}"])
        elif _route(self.path).endswith("/models") and not self.path.startswith("/api/"):
            self._send_json(200, {"data": owner.models})
        else:
            self._send_json(404, {"error": {"code": 404, "message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path == "/_bb7/responses":
            owner.push(*json.loads(body))
            self._send_json(200, {"ok": True})
            return
        self._record(body)
        if f"POST {self.path}" in owner.native:
            self._native_post(owner.native[f"POST {self.path}"], body)
            return
        if not _answer_route(self.path):
            self._send_json(404, {"error": {"code": 404, "message": f"no route {self.path}"}})
            return
        aside = owner.aside(json.loads(body or b"null")) if owner.aside is not None else None
        response = aside or owner._next_response()
        if response is None:
            self._send_json(
                500, {"error": {"code": 500, "message": "llm_server: no scripted response left"}}
            )
            return
        if owner.respond is not None:
            response = owner.respond(json.loads(body or b"null"), response)
        if "events" in response:
            self._stream(response)
        else:
            self._send_json(
                response.get("status", 200), response.get("body"), response.get("headers")
            )

    def _send_native(self, route: Any) -> None:
        """A native answer: whole, trickled a byte at a time, or without end."""
        if not (isinstance(route, dict) and ("trickle" in route or "endless" in route)):
            self._send_json(200, route)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            if route.get("endless"):
                piece = b" " * 65536
                while True:
                    self.wfile.write(piece)
            for byte in json.dumps(route["body"]).encode():
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(route["trickle"])
        except OSError:
            self.server.owner._note_disconnect()

    def _native_post(self, route: Any, body: bytes) -> None:
        if not (isinstance(route, dict) and "by_model" in route):
            self._send_native(route)
            return
        model = (json.loads(body or b"{}") or {}).get("model", "")
        if model in route["by_model"]:
            self._send_json(200, route["by_model"][model])
        else:
            self._send_json(404, {"error": f"model '{model}' not found"})

    def _record(self, body: bytes) -> None:
        text = body.decode("utf-8", errors="replace")
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        self.server.owner._record(
            ReceivedRequest(
                method=self.command,
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=text,
                json=parsed,
            )
        )

    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, response: dict[str, Any]) -> None:
        if self._hung_up_within(response.get("stall_before_headers", 0)):
            self.server.owner._note_disconnect()
            self.close_connection = True
            return
        self.send_response(response.get("status", 200))
        self.send_header("Content-Type", response.get("content_type", "text/event-stream"))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in response.get("headers", {}).items():
            self.send_header(name, value)
        self.end_headers()
        byte_by_byte = response.get("byte_by_byte", False)
        for step in response["events"]:
            if "sleep" in step:
                time.sleep(step["sleep"])
            elif "gate" in step:
                self.server.owner._gate(step["gate"]).wait(30)
            elif "stall" in step:
                if self._hung_up_within(step["stall"]):
                    self.server.owner._note_disconnect()
                    self.close_connection = True
                    return
            elif "drop" in step:
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            elif "repeat" in step:
                data = _encode_step(step["repeat"])
                while not self._hung_up_within(step["every"]):
                    try:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    except OSError:
                        break
                self.server.owner._note_disconnect()
                self.close_connection = True
                return
            else:
                for piece in _pieces(_encode_step(step), byte_by_byte):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")

    def _hung_up_within(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], remaining)
            if readable:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return True
                except OSError:
                    return True
                time.sleep(0.001)  # stray bytes from the client; keep waiting
        return False


def _route(path: str) -> str:
    """The path without its query and trailing slash."""
    return path.split("?", 1)[0].rstrip("/")


def _answer_route(path: str) -> bool:
    return _route(path).endswith(("/chat/completions", "/messages"))


def encode_steps(*steps: dict[str, Any]) -> bytes:
    """The bytes the server writes for these steps (data, done, raw, comment only)."""
    return b"".join(_encode_step(step) for step in steps)


def _encode_step(step: dict[str, Any]) -> bytes:
    if "data" in step:
        event = f"event: {step['event']}\n".encode() if "event" in step else b""
        return event + b"data: " + json.dumps(step["data"]).encode() + b"\n\n"
    if "done" in step:
        return b"data: [DONE]\n\n"
    if "raw" in step:
        raw = step["raw"]
        return raw if isinstance(raw, bytes) else str(raw).encode()
    if "comment" in step:
        return b": " + str(step["comment"]).encode() + b"\n\n"
    if "clock" in step:
        return _encode_step(text_chunk(repr(time.monotonic())))
    raise ValueError(f"unknown script step: {step}")


def _pieces(data: bytes, byte_by_byte: bool) -> Iterator[bytes]:
    if byte_by_byte:
        for i in range(len(data)):
            yield data[i : i + 1]
    else:
        yield data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible server on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0, help="port (0 picks a free one)")
    parser.add_argument(
        "--script", type=Path, help='JSON file: {"responses": [...], "models": [...]}'
    )
    args = parser.parse_args(argv)
    script: dict[str, Any] = json.loads(args.script.read_text()) if args.script else {}
    server = LLMServer(
        script.get("responses", []),
        models=script.get("models"),
        native=script.get("native"),
        port=args.port,
    )
    print(f"listening on {server.base_url}", flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
