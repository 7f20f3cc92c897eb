"""Each provider quirk the client copes with, as a small stream of our own (streams/*.sse,
written in the shapes the providers send) replayed byte for byte through the real local server
and `OpenAICompatClient.stream`. They run in every clone; the providers' own recordings, where
../shared/wire exists, are replayed too (test_provider_wire_replay.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from stream_replay import Expect, Served, body_of, check, replay, serving

STREAMS = Path(__file__).parent / "streams"
ADD_MUL = (("add", {"a": 4, "b": 5}), ("multiply", {"a": 4, "b": 5}))

QUIRKS = {
    # Mistral (magistral): `content` is a list of parts; thinking parts nest text parts.
    "content-parts": Expect("3 + 4 = 7", 9, "Three plus four ", 25, (), (12, 28, None), "stop"),
    # OpenRouter: `: OPENROUTER PROCESSING` keep-alive comments before and between chunks;
    # usage and cost in a last chunk without choices.
    "keep-alives": Expect("Good morning.", 13, "", 0, (), (120, 3, 0.00042), "stop"),
    # OpenRouter: the only usage comes in the chunk that carries the error; it is kept.
    "usage-in-error-chunk": Expect(
        "", 0, "Short reply to a", 22, (), (30, 8, 0.0), "length", "Token limit reached"
    ),
    # Groq: no top-level usage, only `x_groq.usage`.
    "usage-under-x-groq": Expect("Rain later.", 11, "", 0, (), (200, 12, None), "stop"),
    # OpenAI: parallel calls, named once with their ids, arguments in pieces by index.
    "calls-in-pieces": Expect("", 0, "", 0, ADD_MUL, (80, 40, None), "tool_calls"),
    # Mistral: a whole call in one delta without an index, finished with the usage.
    "call-without-index": Expect(
        "", 0, "", 0, (("weather", {"location": "Oslo"}),), (90, 20, None), "tool_calls"
    ),
    # Groq: `event: error` after reasoning and some text; the data is only the error object.
    "event-error": Expect(
        "perhaps", 7, "Must call a tool", 17, (), None, None, "Tool choice is required"
    ),
}


@pytest.fixture(scope="module")
def client() -> Iterator[Served]:
    with serving() as served:
        yield served


def test_every_stream_fixture_has_its_expectations() -> None:
    assert {path.stem for path in STREAMS.glob("*.sse")} == set(QUIRKS)


@pytest.mark.parametrize("name", sorted(QUIRKS))
def test_a_provider_quirk_streams_through_the_client(client: Served, name: str) -> None:
    result, events = replay(client, body_of(STREAMS / f"{name}.sse"))
    check(result, events, QUIRKS[name])
