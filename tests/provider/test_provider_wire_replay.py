"""Every recorded provider stream in ../shared/wire replayed through a real local HTTP server
and `OpenAICompatClient.stream`: answer, reasoning, tool calls (arguments parsed), usage,
finish reason and surfaced errors.

The recordings are data kept outside the repository (`SOURCES.md` there says where each comes
from); they are read, never copied. An `.sse` file is served byte for byte; a file that starts
with `{` is JSON lines, served as `data: <line>` events plus `data: [DONE]`, as the projects
that recorded them replay them. The folder is found as tests/shared_folder.py says; without
it these tests skip and say so (under CI, which has it, they fail). Each quirk they show is
also a small stream of our own in streams/, replayed in every clone
(test_provider_stream_quirks.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stream_replay import Expect, Served, body_of, check, replay, serving

from shared_folder import need_shared, shared_path

WIRE = shared_path("wire")
RECORDINGS = sorted(WIRE.glob("*.sse")) if WIRE is not None else []
ADD_MUL = (("add", {"a": 2, "b": 3}), ("multiply", {"a": 2, "b": 3}))


def weather(where: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    return (("weather", {"location": where}),)


EXPECTED = {
    "alibaba-qwen-tool-call": Expect(
        "", 0, "", 0, weather("San Francisco"), (295, 22, None), "tool_calls"
    ),
    "avian-kimi-parallel-tools": Expect(
        " I'll add and mu",
        59,
        "The user wants m",
        328,
        ADD_MUL,
        (154, 131, 0.0003287),
        "tool_calls",
    ),
    "azure-gpt5mini-tool-call": Expect(
        "", 0, "", 0, weather("Florence, Italy"), (145, 154, None), "tool_calls"
    ),
    "crusoe-text-usage": Expect("1, 2, 3, 4, 5", 13, "", 0, (), (46, 14, None), "stop"),
    "deepseek-chat-length": Expect("## **Holiday Nam", 1855, "", 0, (), (13, 400, None), "length"),
    "deepseek-reasoner-reasoning-content": Expect(
        "Hello there! 😊 H", 40, "Hmm, the user ju", 882, (), (6, 212, None), "stop"
    ),
    "deepseek-reasoner-tool-call": Expect(
        "", 0, "The user is aski", 191, weather("San Francisco"), (339, 83, None), "tool_calls"
    ),
    "groq-gptoss-error-after-text": Expect(
        "maybe", 5, 'The user says: "', 361, (), None, None, "Tool choice is required"
    ),
    "groq-gptoss-error-event": Expect(
        "", 0, "We need to call ", 412, (), None, None, "Tool call validation failed"
    ),
    "groq-gptoss-tool-call": Expect(
        "",
        0,
        "We need to call ",
        92,
        (("get_something_by_name", {"name": "example"}),),
        (304, 49, None),
        "tool_calls",
    ),
    "groq-gptoss-websearch-xgroq-usage": Expect(
        "The weather in S", 200, "<think>\nTo find ", 6255, (), (5003, 359, None), "stop"
    ),
    "groq-kimi-parallel-tools": Expect(
        "I'll perform bot", 77, "", 0, ADD_MUL, (201, 58, None), "tool_calls"
    ),
    "huggingface-kimi-parallel-tools": Expect(
        "I'll add and mul", 50, "", 0, ADD_MUL, (201, 55, None), "tool_calls"
    ),
    "huggingface-novita-text": Expect("Paris", 5, "", 0, (), (40, 2, None), "stop"),
    "llamacpp-gptoss-tool-call": Expect(
        "", 0, "User wants weath", 71, weather("Florence, Italy"), (139, 41, None), "tool_calls"
    ),
    "mistral-magistral-content-parts-short": Expect(
        "2 + 2 = 4", 9, "The user is aski", 60, (), (10, 46, None), "stop"
    ),
    "mistral-magistral-content-parts": Expect(
        "To cross the str", 607, "Okay, the user i", 421, (), (10, 232, None), "stop"
    ),
    "mistral-small-tool-call-no-index": Expect(
        "", 0, "", 0, weather("San Francisco"), (124, 22, None), "tool_calls"
    ),
    "ollama-qwen-parallel-tools-excerpt": Expect(
        "",
        0,
        "",
        0,
        (("run_command", {"command": "ls"}), ("run_command", {"command": "ls -l"})),
        None,
        "tool_calls",
    ),
    "openai-gpt-tool-call": Expect(
        "", 0, "", 0, (("get_capital", {"country": "UK"}),), (53, 15, None), "tool_calls"
    ),
    "openai-gpt4o-parallel-tools": Expect("", 0, "", 0, ADD_MUL, (106, 50, None), "tool_calls"),
    "openrouter-anthropic-parallel-tools": Expect(
        "", 0, "", 0, ADD_MUL, (685, 120, 0.001285), "tool_calls"
    ),
    "openrouter-anthropic-thinking-tool": Expect(
        "",
        0,
        "The user is aski",
        388,
        weather("Florence, Italy"),
        (607, 143, 0.001322),
        "tool_calls",
    ),
    "openrouter-cache-usage": Expect("Hello!", 6, "", 0, (), (254, 5, 0.000837), "stop"),
    "openrouter-gemini-parallel-tools": Expect(
        "", 0, "", 0, ADD_MUL, (157, 32, 8.725e-05), "tool_calls"
    ),
    "openrouter-grok-tool-reasoning": Expect(
        "",
        0,
        "The user asked: ",
        182,
        weather("Florence, Italy"),
        (366, 155, 9.595e-05),
        "tool_calls",
    ),
    "openrouter-kimi-parallel-tools-reasoning": Expect(
        "", 0, " The user wants ", 240, ADD_MUL, (125, 97, 0.00023492), "tool_calls"
    ),
    # The error chunk carries the usage: it is kept with the error.
    "openrouter-minimax-error-after-length": Expect(
        "", 0, "We need to respo", 42, (), (43, 10, 0.0), "length", "Token limit reached"
    ),
    "openrouter-minimax-reasoning": Expect(
        "2 + 2 = 4", 9, "This is a simple", 51, (), (43, 36, 0.000669), "stop"
    ),
    "snowflake-claude-reasoning-details": Expect(
        "15 × 27 = **405*", 93, "15 * 27 = 405", 13, (), (45, 73, None), None
    ),
    "vercel-gateway-claude-thinking-tool": Expect(
        "",
        0,
        "The user is aski",
        252,
        weather("Florence, Italy"),
        (424, 110, 0.002922),
        "tool_calls",
    ),
    "vercel-gateway-gemini-parallel-tools": Expect(
        "", 0, "", 0, ADD_MUL, (57, 10, 0.0001346), "tool_calls"
    ),
    "xai-grok-code-parallel-tools": Expect(
        "", 0, "The user asked t", 134, ADD_MUL, (466, 68, None), "tool_calls"
    ),
    "xai-grok-tool-call": Expect(
        "", 0, "First, the user ", 18, weather("San Francisco"), (291, 26, None), "tool_calls"
    ),
    "zai-glm-parallel-tools": Expect(
        "I'll both add an", 55, "The user wants m", 224, ADD_MUL, (275, 112, None), "tool_calls"
    ),
    "zai-glm-reasoning-content": Expect(
        "4", 1, "\n1.  **Analyze t", 2173, (), (13, 564, None), "stop"
    ),
}


@pytest.fixture(scope="module")
def client() -> Iterator[Served]:
    """One server and one client for all recordings (each replay queues its response)."""
    with serving() as served:
        yield served


def test_every_recording_has_its_expectations() -> None:
    need_shared("wire")
    assert RECORDINGS, f"{WIRE} holds no .sse recording"
    names = {path.stem for path in RECORDINGS}
    assert names - EXPECTED.keys() == set(), "a new recording: add what it holds to EXPECTED"


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_recording_replays_through_the_client(client: Served, path: Path) -> None:
    result, events = replay(client, body_of(path))
    check(result, events, EXPECTED[path.stem])
