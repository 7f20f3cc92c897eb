"""detect_format and parse_response: tool-call JSON in every accepted shape, or text blocks."""

from __future__ import annotations

import json

import pytest

from bb7.formats import Response, ToolCall, detect_format, parse_response
from bb7.formats.arguments import ArgumentError

SR = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
EDIT = "a.py\n««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n"
CALL = {"name": "write_file", "arguments": {"path": "a", "content": "b"}}
OPENAI = {
    "id": "c1",
    "type": "function",
    "function": {"name": "write_file", "arguments": '{"path": "a", "content": "b"}'},
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (json.dumps({"tool_calls": [CALL]}), "tool_calls"),
        (SR, "search_replace"),
        ("Sure!\n\n" + EDIT, "edit_blocks"),
        (SR + "\n" + EDIT, "mixed"),
        ("Just an explanation, no edits.", "none"),
        ('{"tool_calls": [{"name": "edit_file", "arguments": {"path": ', "tool_calls"),
        # A marker after a form feed on its line is inside that line (lines end at LF only).
        (SR.replace("\n<<<<<<< SEARCH", "\nsee\x0c<<<<<<< SEARCH"), "none"),
    ],
)
def test_detect_format(text: str, expected: str) -> None:
    assert detect_format(text) == expected


@pytest.mark.parametrize(
    "shape",
    [
        {"tool_calls": [OPENAI]},
        {"role": "assistant", "content": None, "tool_calls": [OPENAI]},
        {"choices": [{"message": {"content": "", "tool_calls": [OPENAI]}}]},
        [OPENAI],
    ],
    ids=["envelope", "message", "completion", "list"],
)
def test_openai_shapes_give_the_same_calls(shape: object) -> None:
    parsed = parse_response(json.dumps(shape))
    assert isinstance(parsed, Response)
    assert parsed.tool_calls == (
        ToolCall(name="write_file", arguments='{"path": "a", "content": "b"}', id="c1"),
    )


def test_a_fenced_json_response_is_unwrapped() -> None:
    parsed = parse_response("```json\n" + json.dumps({"tool_calls": [CALL]}) + "\n```\n")
    assert isinstance(parsed, Response) and parsed.tool_calls[0].arguments == CALL["arguments"]


def test_a_fenced_json_response_with_a_blank_before_its_language_is_unwrapped() -> None:
    parsed = parse_response("``` json\n" + json.dumps({"tool_calls": [CALL]}) + "\n```\n")
    assert isinstance(parsed, Response) and parsed.tool_calls[0].arguments == CALL["arguments"]


def test_message_content_is_kept_as_text_beside_the_calls() -> None:
    parsed = parse_response(json.dumps({"content": SR, "tool_calls": [CALL]}))
    assert isinstance(parsed, Response) and parsed.text == SR
    assert detect_format(json.dumps({"content": SR, "tool_calls": [CALL]})) == "mixed"


def test_broken_tool_call_json_is_an_error_quoting_it() -> None:
    parsed = parse_response('{"tool_calls": [{"name": "write_file", "arguments": {"path": "a')
    assert isinstance(parsed, ArgumentError) and '"arguments": {"path": "a' in parsed.message


def test_text_starting_with_a_brace_but_holding_blocks_is_text() -> None:
    text = "{ a remark }\n" + SR
    assert parse_response(text) == Response(text=text)
