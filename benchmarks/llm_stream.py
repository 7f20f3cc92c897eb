"""Benchmarks for the LLM side: stream overhead per chunk, prompt assembly, token estimate.

Run: .venv/bin/python benchmarks/llm_stream.py [--chunks N]

1. A real local server (tests/llm_server.py) streams chunks at 200 per second, each carrying
   the server's clock at the moment it is written; the client's callback measures how long
   after that the text event arrives (loopback, HTTP parsing, SSE, JSON, accumulation,
   callback). Target: < 1 ms per chunk.
2. The same decoding work without a network: SSE decoder + accumulator, per chunk; and a chunk
   with a field of an unexpected type, salvaged field by field. Target: < 1 ms.
3. Assembling a prompt with 50 files / 1 MB of context and 40 history entries.
   Target: < 50 ms. Then the same size read from a real project store, as a send builds it.
4. Token estimate accuracy against real tokenizers, when `bpe-openai` is installed
   (pip install bpe-openai); otherwise reported as not measured.
5. Cancel: from `cancel()` mid-stream (the server stalling) to the server seeing the connection
   closed, and to the stream's end. Target: < 100 ms.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from bb7.prompt.assemble import (  # noqa: E402
    ContextFile,
    HistoryEvent,
    HistoryMessage,
    PendingOutput,
    PromptInput,
    assemble_prompt,
)
from bb7.prompt.config import SendConfig  # noqa: E402
from bb7.prompt.turn import build_turn  # noqa: E402
from bb7.provider.client import OpenAICompatClient, ProviderConfig  # noqa: E402
from bb7.provider.deltas import StreamAccumulator  # noqa: E402
from bb7.provider.events import Done, StreamEvent, TextDelta  # noqa: E402
from bb7.provider.lenient import decode_chunk  # noqa: E402
from bb7.provider.sse import SSEDecoder  # noqa: E402
from bb7.provider.wire import CHUNK_DECODER, ChatRequest, Message  # noqa: E402
from bb7.state import context  # noqa: E402
from bb7.state.chats import append_user_message, new_chat  # noqa: E402
from bb7.state.context import Target  # noqa: E402
from bb7.state.store import init_project  # noqa: E402
from bb7.text.tokens import estimate_tokens  # noqa: E402
from llm_server import LLMServer, encode_steps, finish, stream, text_chunk  # noqa: E402

Row = tuple[str, str, str, str]


@contextlib.contextmanager
def served(chunks: int) -> Iterator[str]:
    """The test server as its own process (no GIL sharing with the client), streaming
    `chunks` clock chunks at 200 per second; yields its base URL. Both processes read
    CLOCK_MONOTONIC, which is system-wide."""
    steps: list[dict[str, object]] = []
    for _ in range(chunks):
        steps += [{"clock": True}, {"sleep": 0.005}]
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps({"responses": [stream(*steps, finish())]}))
        command = [sys.executable, str(ROOT / "tests" / "llm_server.py"), "--script", str(script)]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            yield server.stdout.readline().split()[-1]
        finally:
            server.terminate()
            server.wait(5)


def raw_socket_latency(chunks: int) -> list[float]:
    """The machine's floor: a bare socket reading the same stream, no HTTP library."""
    clock = re.compile(rb'"content": "([0-9.]+)"')
    latencies: list[float] = []
    with served(chunks) as base_url:
        port = int(base_url.rsplit(":", 1)[1].split("/")[0])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            body = b'{"model": "bench", "messages": []}'
            head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: bench\r\n"
            sock.sendall(head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
            while data := sock.recv(65536):
                now = time.monotonic()
                latencies.extend(now - float(m.group(1)) for m in clock.finditer(data))
                if b"[DONE]" in data:
                    break
    return latencies


def client_latency(chunks: int) -> tuple[list[float], float]:
    """Latencies through OpenAICompatClient, and the client process's CPU time per chunk."""
    latencies: list[float] = []

    def on_event(event: StreamEvent) -> None:
        if isinstance(event, TextDelta):
            latencies.append(time.monotonic() - float(event.text))

    with served(chunks) as base_url:
        client = OpenAICompatClient(ProviderConfig(base_url=base_url))
        request = ChatRequest(model="bench", messages=[Message("user", "go")])
        cpu = time.process_time()
        result = client.stream(request, on_event).wait(chunks)
        cpu = time.process_time() - cpu
    assert isinstance(result, Done), result
    return latencies, cpu / chunks


def stream_latency(chunks: int) -> list[Row]:
    floor = sorted(x * 1000 for x in raw_socket_latency(chunks))
    ours, cpu_per_chunk = client_latency(chunks)
    ms = sorted(x * 1000 for x in ours)
    overhead = statistics.median(ms) - statistics.median(floor)
    cpu_ms = cpu_per_chunk * 1000
    return [
        ("stream: raw socket, median / p99", f"{_stat(floor)} ms", "", "machine floor"),
        ("stream: bb7 client, median / p99", f"{_stat(ms)} ms", "", f"{len(ms)} chunks, 200/s"),
        ("stream: client overhead, median", f"{overhead:.3f} ms", "< 1 ms", _ok(overhead < 1)),
        ("stream: client CPU per chunk", f"{cpu_ms:.3f} ms", "< 1 ms", _ok(cpu_ms < 1)),
    ]


def cancel_latency(runs: int = 20) -> list[Row]:
    """From cancel() mid-stream to the server seeing the connection closed, and to the end."""
    closed: list[float] = []
    ended: list[float] = []
    request = ChatRequest(model="bench", messages=[Message("user", "go")])
    for _ in range(runs):
        first = threading.Event()

        def on_event(event: StreamEvent, first: threading.Event = first) -> None:
            if isinstance(event, TextDelta):
                first.set()

        with LLMServer([stream(text_chunk("first"), {"stall": 10}, done=False)]) as server:
            client = OpenAICompatClient(ProviderConfig(base_url=server.base_url))
            handle = client.stream(request, on_event)
            assert first.wait(10), "no text came"
            at = time.monotonic()
            handle.cancel()
            handle.wait(10)
            ended.append((time.monotonic() - at) * 1000)
            seen = server.wait_for_disconnect(timeout=10)
            assert seen is not None, "the connection stayed open"
            closed.append((seen - at) * 1000)
    worst = max(max(closed), max(ended))
    return [
        ("cancel: to the connection closed", f"{_stat(sorted(closed))} ms", "", f"{runs} runs"),
        ("cancel: to the stream's end", f"{_stat(sorted(ended))} ms", "", ""),
        ("cancel: slowest", f"{worst:.1f} ms", "< 100 ms", _ok(worst < 100)),
    ]


def _stat(sorted_ms: list[float]) -> str:
    p99 = sorted_ms[int(len(sorted_ms) * 0.99) - 1]
    return f"{statistics.median(sorted_ms):.3f} / {p99:.3f}"


def decode_cost(chunks: int) -> list[Row]:
    data = encode_steps(*[text_chunk(f"token {i} ") for i in range(chunks)])
    pieces = [data[i : i + 1500] for i in range(0, len(data), 1500)]  # network-sized reads
    started = time.perf_counter()
    decoder = SSEDecoder()
    acc = StreamAccumulator()
    for piece in pieces:
        for payload in decoder.feed(piece):
            acc.apply(CHUNK_DECODER.decode(payload))
    per_chunk = (time.perf_counter() - started) / chunks * 1e6
    # A provider whose every chunk has a field of an unexpected type: each one is salvaged
    # field by field (bb7.provider.lenient) instead of decoded in one go.
    odd = text_chunk("token ")
    odd["data"]["choices"][0]["delta"]["reasoning"] = {"unexpected": "object"}
    payload = json.dumps(odd["data"]).encode()
    started = time.perf_counter()
    for _ in range(chunks):
        decode_chunk(payload)
    salvaged = (time.perf_counter() - started) / chunks * 1e6
    return [
        ("SSE + JSON + accumulate, per chunk", f"{per_chunk:.1f} µs", "", "no network"),
        ("chunk salvaged field by field", f"{salvaged:.1f} µs", "< 1 ms", _ok(salvaged < 1000)),
    ]


def prompt_assembly() -> list[Row]:
    line = "    value = compute(alpha, beta, gamma)  # a typical line of code\n"
    body = line * (20_000 // len(line))
    files = [ContextFile(f"src/module_{i:02}.py", body, readonly=i % 5 == 0) for i in range(50)]
    outputs = [
        PendingOutput(f"src/module_{i:02}.py", body + "# changed\n") for i in range(1, 50, 7)
    ]
    history: list[HistoryMessage | HistoryEvent] = []
    for i in range(20):
        history.append(HistoryMessage("user", f"Question {i}: please change module {i}."))
        history.append(HistoryEvent("assistant_wrote", f"src/module_{i:02}.py", file_id="abcd1234"))
    inp = PromptInput(user_text="One more change.", files=files, outputs=outputs, history=history)
    size = sum(len(f.content) for f in files) + sum(len(o.content) for o in outputs)
    runs = []
    for _ in range(15):
        started = time.perf_counter()
        prompt = assemble_prompt(inp)
        runs.append((time.perf_counter() - started) * 1000)
    median = statistics.median(runs)
    return [
        (
            f"assemble prompt, 50 files / {size / 1e6:.1f} MB",
            f"{median:.1f} ms",
            "< 50 ms",
            _ok(median < 50),
        ),
        ("  estimated prompt tokens", f"{prompt.total_tokens:,}", "", f"{len(prompt.parts)} parts"),
    ]


def turn_from_store() -> list[Row]:
    """The same size of context read from a real project store (what a send does before the
    request leaves): snapshots, history, bases, then the prompt."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = init_project(root)
        chat_id = new_chat(store).id
        line = "    value = compute(alpha, beta, gamma)  # a typical line of code\n"
        for i in range(50):
            (root / f"module_{i:02}.py").write_text(line * (20_000 // len(line)))
        context.add_many(store, chat_id, [Target(f"module_{i:02}.py") for i in range(50)])
        for i in range(20):
            append_user_message(store, chat_id, f"Question {i}: please change module {i}.")
        user = append_user_message(store, chat_id, "One more change.")
        runs = []
        for _ in range(15):
            started = time.perf_counter()
            build_turn(store, chat_id, user.text(), SendConfig(), before_seq=user.seq)
            runs.append((time.perf_counter() - started) * 1000)
        store.close()
    median = statistics.median(runs)
    return [("build a send's turn from the store", f"{median:.1f} ms", "< 50 ms", _ok(median < 50))]


def token_accuracy() -> list[Row]:
    try:
        import bpe_openai  # type: ignore[import-not-found]
    except ImportError:
        return [("token estimate vs tokenizer", "not measured", "", "pip install bpe-openai")]
    files = sorted((ROOT / "python").rglob("*.py")) + sorted(ROOT.glob("*.md"))
    texts = [f.read_text(encoding="utf-8") for f in files]
    texts = [t for t in texts if len(t) > 200]
    rows: list[Row] = []
    for name in ("cl100k_base", "o200k_base"):
        encoding = bpe_openai.get_encoding(name)
        errors = sorted(
            abs(estimate_tokens(t) - len(encoding.encode(t))) / len(encoding.encode(t))
            for t in texts
        )
        mean = statistics.mean(errors) * 100
        p90 = errors[int(len(errors) * 0.9) - 1] * 100
        rows.append(
            (
                f"token estimate vs {name}",
                f"{mean:.0f}% mean",
                "",
                f"p90 {p90:.0f}%, {len(texts)} files of this repo",
            )
        )
    return rows


def _ok(good: bool) -> str:
    return "ok" if good else "MISSED"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=600, help="chunks to stream (200 per s)")
    args = parser.parse_args()
    rows = [
        *stream_latency(args.chunks),
        *decode_cost(5000),
        *prompt_assembly(),
        *turn_from_store(),
        *token_accuracy(),
        *cancel_latency(),
    ]
    headers = ("measurement", "value", "target", "note")
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(4)]
    for row in [headers, tuple("-" * w for w in widths), *rows]:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    return 0 if all(r[3] != "MISSED" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
