"""diff_mode: one list of values, an editing prompt for each, text modes without tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bb7.formats import FileState, apply_response, parse_text, retry_context
from bb7.formats.edit_blocks import EditBlock
from bb7.formats.modes import (
    DIFF_MODE_DOCS,
    DIFF_MODES,
    TEXT_MODES,
    TOOL_MODES,
    DiffMode,
    edit_prompt,
    text_mode_for,
)
from bb7.formats.search_replace import INSTRUCTIONS, SearchReplaceBlock
from bb7.prompt.assemble import choose_edit_format


def test_every_mode_is_a_tool_mode_or_a_text_mode_and_is_documented() -> None:
    assert set(DIFF_MODES) == set(TOOL_MODES) | set(TEXT_MODES)
    assert not set(TOOL_MODES) & set(TEXT_MODES)
    assert list(DIFF_MODE_DOCS) == list(DIFF_MODES)


@pytest.mark.parametrize("mode", DIFF_MODES)
def test_every_mode_has_an_editing_prompt(mode: DiffMode) -> None:
    prompt = edit_prompt(mode)
    assert prompt.startswith("To change files") and "If any" in prompt
    assert "none is applied and you are told what to fix" in prompt.replace("\n", " ")


def test_text_mode_prompts_show_one_well_formed_block_of_their_format() -> None:
    (sr,) = parse_text(INSTRUCTIONS)
    assert isinstance(sr, SearchReplaceBlock) and sr.path == "path/to/file.py"
    assert edit_prompt("search_replace_blocks") == INSTRUCTIONS
    (edit,) = parse_text(edit_prompt("edit_blocks"))
    assert isinstance(edit, EditBlock)


def test_a_model_without_tools_gets_edit_blocks_unless_the_mode_names_a_text_format() -> None:
    assert text_mode_for("search_replace_multi") == "edit_blocks"
    assert text_mode_for("search_replace_blocks") == "search_replace_blocks"
    assert choose_edit_format("search_replace_blocks", True) == "text_blocks"
    assert choose_edit_format("anchored", False) == "text_blocks"
    assert choose_edit_format("anchored", None) == "tools"


def test_tool_calls_in_a_text_mode_are_refused_with_a_pointer_to_blocks(tmp_path: Path) -> None:
    call = {"name": "write_file", "arguments": {"path": "a.py", "content": "x\n"}}
    result = apply_response({}, json.dumps({"tool_calls": [call]}), "edit_blocks", root=tmp_path)
    assert not result.ok
    (error,) = result.errors
    assert error.kind == "unknown_tool" and "write the change as edit blocks" in error.message


def test_a_failed_text_block_gets_block_advice(tmp_path: Path) -> None:
    response = "a.py\n««« EDIT\nnot there\n═══════ REPL\nx\n»»» EDIT END\n"
    result = apply_response(
        {"a.py": FileState(content="a = 1\n")}, response, "edit_blocks", root=tmp_path
    )
    text = retry_context(result)
    assert "Send each fixed block complete" in text and "edit_file" not in text
