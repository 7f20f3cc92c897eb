"""Tool schemas: one edit_file schema per diff_mode, JSON Schema generated from the Structs."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from bb7.formats.modes import DIFF_MODES, TOOL_MODES
from bb7.formats.schemas import (
    AnchoredChange,
    Edit,
    EditFileAnchored,
    EditFileMulti,
    WriteFile,
    parameters_schema,
    tools_for_mode,
)

SAMPLES: list[msgspec.Struct] = [
    WriteFile(path="src/new.py", content="print('hi')\n"),
    Edit(path="a.py", file_id="1a2b3c4d", old_string="x = 1\n", new_string="x = 2\n"),
    EditFileMulti(
        edits=[
            Edit(path="a.py", file_id="1a2b3c4d", old_string="a", new_string="b"),
            Edit(path="b.py", file_id="9f8e7d6c", old_string="c", new_string="", replace_all=True),
        ]
    ),
    EditFileAnchored(
        path="a.py",
        file_id="1a2b3c4d",
        changes=[
            AnchoredChange(
                start=["def f():"], end=["    return 1"], content=["def f():", "    return 2"]
            ),
            AnchoredChange(start=["x = 1"], content=[]),
        ],
    ),
]


def _walk(node: Any) -> list[Any]:
    found = [node]
    if isinstance(node, dict):
        for value in node.values():
            found += _walk(value)
    elif isinstance(node, list):
        for value in node:
            found += _walk(value)
    return found


def test_each_tool_mode_offers_write_file_its_own_edit_file_and_request_files() -> None:
    names = {mode: [t.name for t in tools_for_mode(mode)] for mode in DIFF_MODES}
    assert names == {
        "search_replace_multi": ["write_file", "edit_file", "request_files"],
        "search_replace": ["write_file", "edit_file", "request_files"],
        "anchored": ["write_file", "edit_file", "request_files"],
        "off": ["write_file", "request_files"],
        "edit_blocks": [],
        "search_replace_blocks": [],
    }
    edit_params = {
        mode: tools_for_mode(mode)[1].parameters["properties"].keys()
        for mode in TOOL_MODES
        if mode != "off"
    }
    assert set(edit_params["search_replace_multi"]) == {"edits"}
    assert set(edit_params["search_replace"]) == {
        "path",
        "file_id",
        "old_string",
        "new_string",
        "replace_all",
    }
    assert set(edit_params["anchored"]) == {"path", "file_id", "changes"}


@pytest.mark.parametrize("mode", TOOL_MODES)
def test_schemas_are_self_contained_json_without_refs(mode: str) -> None:
    for tool in tools_for_mode(mode):  # type: ignore[arg-type]
        schema = tool.parameters
        json.dumps(schema)  # plain JSON
        assert schema["type"] == "object"
        assert not [n for n in _walk(schema) if isinstance(n, dict) and "$ref" in n]
        assert tool.description and len(tool.description) > 80
        wrapped = tool.openai()
        assert wrapped["type"] == "function"
        assert wrapped["function"]["name"] == tool.name
        assert wrapped["function"]["parameters"] is schema


def test_file_id_is_required_for_the_model_and_optional_flags_are_not() -> None:
    single = parameters_schema(Edit)
    assert set(single["required"]) == {"path", "file_id", "old_string", "new_string"}
    assert "default" not in single["properties"]["file_id"]
    multi_item = parameters_schema(EditFileMulti)["properties"]["edits"]["items"]
    assert "file_id" in multi_item["required"] and "replace_all" not in multi_item["required"]
    assert set(parameters_schema(WriteFile)["required"]) == {"path", "content"}


def test_anchored_schema_bounds_anchor_lengths() -> None:
    change = parameters_schema(EditFileAnchored)["properties"]["changes"]["items"]
    start, end = change["properties"]["start"], change["properties"]["end"]
    assert (start["minItems"], start["maxItems"]) == (1, 10)
    assert end["anyOf"][0]["maxItems"] == 10
    assert set(change["required"]) == {"start", "content"}


def test_every_field_is_described_for_the_model() -> None:
    for struct in (WriteFile, Edit, EditFileAnchored):
        properties = parameters_schema(struct)["properties"]
        for name, prop in properties.items():
            described = prop.get("description") or any(
                "description" in alt for alt in prop.get("anyOf", [])
            )
            assert described, f"{struct.__name__}.{name} has no description"


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: type(s).__name__)
def test_arguments_round_trip_through_json(sample: msgspec.Struct) -> None:
    encoded = msgspec.json.encode(sample)
    assert msgspec.json.decode(encoded, type=type(sample)) == sample
    schema = parameters_schema(type(sample))
    as_dict = json.loads(encoded)
    assert set(as_dict) <= set(schema["properties"])
    assert set(schema["required"]) <= set(as_dict)


def test_an_anchor_over_ten_lines_is_refused_by_the_schema() -> None:
    raw = {"path": "a", "file_id": "x", "changes": [{"start": ["l"] * 11, "content": []}]}
    with pytest.raises(msgspec.ValidationError, match="length <= 10"):
        msgspec.convert(raw, EditFileAnchored)
