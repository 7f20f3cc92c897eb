"""Tool-call arguments: strict JSON first, then only the repairs that have one reading."""

from __future__ import annotations

import json

import pytest

from bb7.formats.arguments import ArgumentError, Arguments, parse_arguments

EDIT = {"path": "a.py", "old_string": "x, y", "new_string": "[1, 2]"}


def test_valid_json_needs_no_repair() -> None:
    assert parse_arguments(json.dumps(EDIT)) == Arguments(EDIT)


def test_an_already_decoded_object_is_taken_as_is() -> None:
    assert parse_arguments(dict(EDIT)) == Arguments(EDIT)


def test_trailing_commas_are_dropped() -> None:
    text = '{"path": "a.py", "edits": [{"old_string": "a,", "new_string": "b"},],}'
    parsed = parse_arguments(text)
    assert isinstance(parsed, Arguments)
    assert parsed.value == {"path": "a.py", "edits": [{"old_string": "a,", "new_string": "b"}]}
    assert parsed.repairs == ("trailing_commas",)


def test_a_double_encoded_object_is_decoded_twice() -> None:
    parsed = parse_arguments(json.dumps(json.dumps(EDIT)))
    assert parsed == Arguments(EDIT, ("double_encoded",))


def test_missing_closing_brackets_after_a_complete_value_are_added() -> None:
    text = '{"edits": [{"path": "a.py", "old_string": "}]", "new_string": "x"'
    parsed = parse_arguments(text)
    assert isinstance(parsed, Arguments)
    assert parsed.value == {"edits": [{"path": "a.py", "old_string": "}]", "new_string": "x"}]}
    assert parsed.repairs == ("closed_brackets",)


@pytest.mark.parametrize(
    "text",
    [
        '{"path": "a.py", "content": "def f():\\n    ret',  # cut inside a string
        '{"path": "a.py", "count": 12',  # a number may have had more digits
        '{"path": "a.py",',  # something was coming
        '{"path": "a.py", "content"',  # a key without its value
        "{'path': 'a.py'}",  # not JSON at all
    ],
)
def test_ambiguous_damage_is_invalid_and_quotes_the_raw_text(text: str) -> None:
    parsed = parse_arguments(text)
    assert isinstance(parsed, ArgumentError)
    assert parsed.kind == "invalid"
    assert text in parsed.message


def test_arguments_must_be_an_object() -> None:
    parsed = parse_arguments('["a.py"]')
    assert isinstance(parsed, ArgumentError) and "got an array" in parsed.message


def test_a_long_raw_text_is_quoted_with_its_middle_left_out() -> None:
    text = '{"content": "' + "x" * 5000
    parsed = parse_arguments(text)
    assert isinstance(parsed, ArgumentError)
    assert "characters omitted" in parsed.message
    assert len(parsed.message) < 3000
