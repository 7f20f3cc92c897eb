"""A server on this machine that dies says so: a stream cut without a finish, a refused
connection, Ollama's and llama.cpp's own error shapes each end the answer with one line that
names the server and what to look at, within the local idle limit; no retry after that limit.
The recorded Ollama and llama.cpp streams in ../shared/wire are replayed as an extra."""

from __future__ import annotations

import time
from pathlib import Path

import msgspec
import pytest

from bb7.provider.client import OpenAICompatClient, ProviderConfig, RetryPolicy, Timeouts
from bb7.provider.events import Done, StreamError
from bb7.provider.provider import provider_config
from bb7.provider.wire import ChatRequest, Message
from llm_server import LLMServer, error_response, finish, stream, text_chunk
from shared_folder import need_shared, shared_path

REQUEST = ChatRequest(model="qwen2.5-coder:7b", messages=[Message("user", "Hi")])
WIRE = shared_path("wire")


def _client(base_url: str, preset: str = "ollama") -> OpenAICompatClient:
    """The preset's own limits and retries (what a user gets), on the test server; only the
    wait before a retry is cut short."""
    config = provider_config(preset, base_url)
    assert isinstance(config, ProviderConfig)
    quick = msgspec.structs.replace(config.retry, base_delay=0.01)
    return OpenAICompatClient(msgspec.structs.replace(config, retry=quick))


def _fails(client: OpenAICompatClient) -> StreamError:
    try:
        result = client.complete(REQUEST, timeout=30)
    finally:
        client.close()
    assert isinstance(result, StreamError)
    assert "\n" not in result.message
    return result


def test_a_stream_cut_without_a_finish_names_the_server_and_what_to_check() -> None:
    with LLMServer([stream(text_chunk("Half an ans"), {"drop": True}, done=False)]) as server:
        started = time.monotonic()
        error = _fails(_client(server.base_url))
        took = time.monotonic() - started
    host = server.base_url.split("/")[2]
    assert error.message == (
        f"Ollama at {host} closed the connection before the response was complete (did it "
        "crash or run out of memory?). Check the log of `ollama serve` (or `journalctl -u "
        "ollama`) and that the model fits in memory. The partial answer is kept; send again to "
        "get a complete one."
    )
    assert error.text == "Half an ans" and error.kind == "connection"
    assert took < 5  # far within the 300 s idle limit: a closed socket is not waited for


def test_a_server_that_dies_before_answering_is_asked_once_more_then_named() -> None:
    cut = stream(done=False)  # headers, then the connection closes
    with LLMServer([cut, cut]) as server:
        error = _fails(_client(server.base_url, "llamacpp"))
        asked = len(server.chat_requests())
    assert asked == 2
    assert error.message.startswith(
        f"llama.cpp server at {server.base_url.split('/')[2]} closed the connection"
    )
    assert "Check llama-server's output" in error.message


def test_a_refused_connection_between_sends_says_to_start_the_server() -> None:
    with LLMServer([stream(text_chunk("ok"), finish())]) as server:
        base_url = server.base_url
        first = _client(base_url).complete(REQUEST, timeout=30)
    assert isinstance(first, Done)
    # The server is gone now: the next send finds nothing listening on its port.
    error = _fails(_client(base_url))
    host = base_url.split("/")[2]
    assert error.kind == "connection"
    assert error.message.startswith(f"Could not reach {host} (Ollama): ")
    assert error.message.endswith(
        "Is the server running? Start it, or point the base URL to where it runs. (gave up "
        "after 2 attempts)"
    )


def test_ollama_s_error_shape_is_shown_with_what_to_check() -> None:
    oom = {
        "status": 500,
        "body": {"error": "model requires more system memory (9.1 GiB) than is available"},
    }
    with LLMServer([oom, oom]) as server:
        error = _fails(_client(server.base_url))
    assert error.message.startswith(
        f"Ollama at {server.base_url.split('/')[2]} had a server error (HTTP 500: model "
        "requires more system memory (9.1 GiB) than is available). Check the log of"
    )


def test_llama_cpp_s_error_shape_in_the_stream_is_shown_with_what_to_check() -> None:
    error_event = {
        "data": {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size",
                "type": "exceed_context_size_error",
            }
        }
    }
    with LLMServer([stream(error_event, done=False)]) as server:
        error = _fails(_client(server.base_url, "llamacpp"))
    assert error.message == (
        f"llama.cpp server at {server.base_url.split('/')[2]} reported an error: the request "
        "exceeds the available context size (code 400). Check llama-server's output and that "
        "the model fits in memory."
    )


def test_llama_cpp_s_http_error_shape_names_the_server() -> None:
    with LLMServer([error_response(400, "tools param requires --jinja flag")]) as server:
        error = _fails(_client(server.base_url, "llamacpp"))
    assert error.message == (
        f"llama.cpp server at {server.base_url.split('/')[2]} rejected the request (HTTP 400: "
        "tools param requires --jinja flag)."
    )


def test_a_silent_local_server_ends_the_send_after_one_idle_limit() -> None:
    with LLMServer(
        [stream({"stall": 10}, done=False), stream({"stall": 10}, done=False)]
    ) as server:
        config = ProviderConfig(
            base_url=server.base_url,
            preset="ollama",
            timeouts=Timeouts(idle=0.3, read=5),
            retry=RetryPolicy(max_attempts=2, retry_idle=False),
        )
        started = time.monotonic()
        error = _fails(OpenAICompatClient(config))
        took = time.monotonic() - started
        asked = len(server.chat_requests())
    assert asked == 1 and error.kind == "timeout" and took < 3
    assert error.message.startswith(
        f"Ollama at {server.base_url.split('/')[2]} sent nothing for 0.3 s (the idle limit)."
    )
    assert error.message.endswith("A slow model may need a longer provider.idle_timeout.")


def _recordings() -> list[Path]:
    if WIRE is None:
        return []
    return sorted([*WIRE.glob("ollama-*.sse"), *WIRE.glob("llamacpp-*.sse")])


@pytest.mark.parametrize("recording", _recordings(), ids=lambda p: p.stem)
def test_a_recorded_local_stream_completes_and_its_cut_copy_names_the_server(
    recording: Path,
) -> None:
    preset = "ollama" if recording.name.startswith("ollama") else "llamacpp"
    body = recording.read_bytes()
    events = [e for e in body.split(b"\n\n") if e.strip()]
    # The copy is cut just before the event that carries the finish reason.
    last = max(i for i, e in enumerate(events) if b'"finish_reason":"' in e)
    cut = b"".join(e + b"\n\n" for e in events[:last])
    whole = stream({"raw": body}, done=False)
    with LLMServer([whole, stream({"raw": cut}, done=False)]) as server:
        client = _client(server.base_url, preset)
        done = client.complete(REQUEST, timeout=30)
        error = _fails(client)
    assert isinstance(done, Done) and done.finish_reason in ("stop", "tool_calls")
    assert error.message.startswith(
        f"{'Ollama' if preset == 'ollama' else 'llama.cpp server'} at "
        f"{server.base_url.split('/')[2]} closed the connection before the response was "
        "complete (did it crash or run out of memory?)."
    )
    assert error.after_first_token


def test_recorded_local_streams_are_there() -> None:
    wire = need_shared("wire")
    assert _recordings(), f"{wire} holds no ollama-*.sse or llamacpp-*.sse"


def test_ollama_s_error_string_in_the_stream_is_shown_with_what_to_check() -> None:
    error_event = {"data": {"error": "an error was encountered while running the model"}}
    with LLMServer([stream(text_chunk("Par"), error_event, done=False)]) as server:
        error = _fails(_client(server.base_url))
    assert error.message == (
        f"Ollama at {server.base_url.split('/')[2]} reported an error: an error was encountered "
        "while running the model. Check the log of `ollama serve` (or `journalctl -u ollama`) "
        "and that the model fits in memory. The partial answer is kept."
    )


def test_llama_cpp_s_error_field_before_done_is_an_error_not_a_complete_answer() -> None:
    # llama-server sends a streaming error as an `error:` SSE line, then `data: [DONE]`.
    error_line = {
        "raw": 'error: {"code": 500, "message": "failed to decode the batch", "type": '
        '"server_error"}\n\n'
    }
    with LLMServer([stream(text_chunk("Par"), error_line)]) as server:
        error = _fails(_client(server.base_url, "llamacpp"))
    assert error.message == (
        f"llama.cpp server at {server.base_url.split('/')[2]} reported an error: failed to decode "
        "the batch (code 500). Check llama-server's output and that the model fits in memory. "
        "The partial answer is kept."
    )
