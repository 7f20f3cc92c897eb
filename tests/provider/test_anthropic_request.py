"""The body of POST /v1/messages built from a provider-neutral request: system blocks, tools as
input_schema, at most four cache breakpoints in the native places, thinking from the effort."""

from __future__ import annotations

import json
from typing import Any

from bb7.formats.schemas import ToolSpec
from bb7.provider.anthropic_wire import DEFAULT_MAX_TOKENS, messages_body
from bb7.provider.wire import CacheControl, ChatRequest, ContentPart, Message, ReasoningEffort

TOOLS = [
    ToolSpec("write_file", "Write a file.", {"type": "object", "properties": {}}),
    ToolSpec("edit_file", "Edit a file.", {"type": "object", "properties": {}}),
]
MARK = CacheControl()


def body(request: ChatRequest) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(messages_body(request, stream=True))
    return decoded


def cached_prompt(turns: int, *, tools: bool = True) -> ChatRequest:
    """A prompt as bb7 marks one for caching: the system message, the history's first and
    last two turns, then the latest message unmarked."""
    marked = {0, turns - 2, turns - 1}
    user = [
        ContentPart(f"turn {i}\n", cache_control=MARK if i in marked else None)
        for i in range(turns)
    ]
    user.append(ContentPart("latest\n"))
    return ChatRequest(
        model="claude-sonnet-4-5",
        messages=[
            Message("system", [ContentPart("You edit code.", cache_control=MARK)]),
            Message("user", user),
        ],
        tools=TOOLS if tools else [],
    )


def marks(sent: dict[str, Any]) -> list[str]:
    """Where the breakpoints are: the tool's name, 'system', or the marked text."""
    found = [tool["name"] for tool in sent.get("tools", []) if "cache_control" in tool]
    found += ["system" for block in sent.get("system", []) if "cache_control" in block]
    for message in sent["messages"]:
        found += [block["text"].strip() for block in message["content"] if "cache_control" in block]
    return found


def test_system_goes_on_top_and_tools_take_input_schema() -> None:
    sent = body(cached_prompt(1))
    assert sent["system"] == [
        {"type": "text", "text": "You edit code.", "cache_control": {"type": "ephemeral"}}
    ]
    assert [m["role"] for m in sent["messages"]] == ["user"]
    assert sent["tools"][0] == {
        "name": "write_file",
        "description": "Write a file.",
        "input_schema": {"type": "object", "properties": {}},
    }
    assert sent["stream"] is True
    assert sent["max_tokens"] == DEFAULT_MAX_TOKENS
    assert "thinking" not in sent and "prompt_cache_key" not in sent


def test_at_most_four_breakpoints_tools_system_first_and_last_turn() -> None:
    for turns in range(1, 12):
        sent = body(cached_prompt(turns))
        expected = ["edit_file", "system", "turn 0"]
        if turns > 1:
            expected.append(f"turn {turns - 1}")
        assert marks(sent) == expected, turns


def test_without_tools_the_fourth_breakpoint_stays_on_the_history() -> None:
    sent = body(cached_prompt(6, tools=False))
    assert marks(sent) == ["system", "turn 0", "turn 4", "turn 5"]


def test_an_unmarked_prompt_sends_no_breakpoint() -> None:
    request = ChatRequest(
        model="m",
        messages=[Message("system", "Be brief."), Message("user", "hi")],
        tools=TOOLS,
    )
    sent = body(request)
    assert marks(sent) == []
    assert sent["system"] == [{"type": "text", "text": "Be brief."}]
    assert sent["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_each_turn_starts_with_the_body_of_the_turn_before() -> None:
    """The cached prefix: tools, system and every history turn before the latest message are
    the same blocks in the next request (only the breakpoints move)."""

    def unmarked(sent: dict[str, Any]) -> list[Any]:
        blocks = sent["tools"] + sent["system"] + sent["messages"][0]["content"]
        return [{k: v for k, v in b.items() if k != "cache_control"} for b in blocks]

    before = unmarked(body(cached_prompt(4)))
    after = unmarked(body(cached_prompt(5)))
    assert after[: len(before) - 1] == before[:-1]


def test_reasoning_effort_is_a_thinking_budget_with_room_for_the_answer() -> None:
    efforts: dict[ReasoningEffort, int] = {"minimal": 1024, "low": 2048, "high": 16384}
    for effort, budget in efforts.items():
        request = ChatRequest(
            model="m",
            messages=[Message("user", "hi")],
            reasoning_effort=effort,
            temperature=0.2,
        )
        sent = body(request)
        assert sent["thinking"] == {"type": "enabled", "budget_tokens": budget}
        assert sent["max_tokens"] > budget
        assert "temperature" not in sent  # Anthropic refuses one with thinking on
    plain = body(
        ChatRequest(
            model="m", messages=[Message("user", "hi")], reasoning_effort="none", temperature=0.2
        )
    )
    assert "thinking" not in plain and plain["temperature"] == 0.2


def test_a_model_that_thinks_adaptively_gets_an_effort_and_no_budget() -> None:
    efforts: dict[ReasoningEffort, str] = {"minimal": "low", "medium": "medium", "high": "high"}
    for effort, said in efforts.items():
        request = ChatRequest(
            model="claude-opus-4-7",
            messages=[Message("user", "hi")],
            reasoning_effort=effort,
            temperature=0.2,
            adaptive_thinking=True,
        )
        sent = body(request)
        # Summarized: the newest models send their thinking empty unless asked.
        assert sent["thinking"] == {"type": "adaptive", "display": "summarized"}
        assert sent["output_config"] == {"effort": said}
        assert sent["max_tokens"] > DEFAULT_MAX_TOKENS and "temperature" not in sent
    off = ChatRequest(
        model="m", messages=[Message("user", "hi")], reasoning_effort="none", adaptive_thinking=True
    )
    assert "thinking" not in body(off) and "output_config" not in body(off)


def test_a_larger_max_tokens_is_kept_and_provider_options_are_not_sent() -> None:
    request = ChatRequest(
        model="m",
        messages=[Message("user", "hi")],
        reasoning_effort="low",
        max_tokens=32000,
        provider={"data_collection": "deny"},
        prompt_cache_key="chat-1",
    )
    sent = body(request)
    assert sent["max_tokens"] == 32000
    assert "provider" not in sent and "prompt_cache_key" not in sent
