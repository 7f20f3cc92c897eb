"""EDIT blocks: common-prefix anchor, marker tolerance, errors, and how they apply."""

from __future__ import annotations

from pathlib import Path

from bb7.formats import FileState, apply_response
from bb7.formats.blocks import BlockError
from bb7.formats.edit_blocks import INSTRUCTIONS, EditBlock
from bb7.formats.stream import parse_text


def _block(text: str) -> EditBlock:
    (item,) = parse_text(text)
    assert isinstance(item, EditBlock), item
    return item


def test_the_anchor_is_the_common_prefix_of_both_sections() -> None:
    block = _block(
        "calc.py\n««« EDIT\ndef mul(a, b):\n    return a + b\n═══════ REPL\n"
        "def mul(a, b):\n    return a * b\n»»» EDIT END\n"
    )
    assert block.path == "calc.py"
    assert block.anchor == "def mul(a, b):\n"
    assert (block.old, block.new) == ("    return a + b\n", "    return a * b\n")


def test_the_anchor_is_whole_lines_when_a_line_holds_a_form_feed() -> None:
    # `str.splitlines` would end a line at the form feed and take "page\x0c" as an anchor,
    # cutting the changed line in two.
    block = _block("a.c\n««« EDIT\npage\x0cold\n═══════ REPL\npage\x0cnew\n»»» EDIT END\n")
    assert block.anchor == ""
    assert (block.old, block.new) == ("page\x0cold\n", "page\x0cnew\n")


def test_extra_spaces_inside_markers_are_tolerated() -> None:
    block = _block("a.py\n  «««   EDIT\nx\n═══════    REPL  \ny\n»»»  EDIT   END\n")
    assert (block.edit, block.repl) == ("x\n", "y\n")


def test_markers_inside_a_line_are_content() -> None:
    block = _block("a.py\n««« EDIT\nx ═══════ REPL y\n═══════ REPL\nz »»» EDIT END\n»»» EDIT END\n")
    assert (block.edit, block.repl) == ("x ═══════ REPL y\n", "z »»» EDIT END\n")


def test_end_before_repl_is_malformed_at_its_line() -> None:
    (error,) = parse_text("a.py\n««« EDIT\nx\n»»» EDIT END\n")
    assert isinstance(error, BlockError)
    assert (error.line, error.block_line, error.kind) == (4, 2, "malformed")
    assert "═══════ REPL" in error.message


def test_an_unclosed_block_names_its_first_line() -> None:
    (error,) = parse_text("x\na.py\n««« EDIT\nx\n═══════ REPL\ny")
    assert isinstance(error, BlockError) and error.block_line == 3
    assert "»»» EDIT END" in error.message


def _apply(files: dict[str, str], response: str, root: Path) -> dict[str, str]:
    result = apply_response(
        {p: FileState(content=c) for p, c in files.items()}, response, root=root
    )
    assert result.ok, result.errors
    return {change.path: change.content for change in result.files}


def test_an_empty_edit_section_creates_a_file_ending_with_a_newline(tmp_path: Path) -> None:
    out = _apply({}, "new.txt\n««« EDIT\n═══════ REPL\nfirst\nlast\n»»» EDIT END", tmp_path)
    assert out == {"new.txt": "first\nlast\n"}


def test_an_anchor_only_repl_removes_whole_lines(tmp_path: Path) -> None:
    files = {"a.py": "keep = 1\ndrop = 2\ndrop = 3\ntail = 4\n"}
    response = (
        "a.py\n««« EDIT\nkeep = 1\ndrop = 2\ndrop = 3\n═══════ REPL\nkeep = 1\n»»» EDIT END\n"
    )
    assert _apply(files, response, tmp_path) == {"a.py": "keep = 1\ntail = 4\n"}


def test_the_anchor_makes_a_repeated_line_unique(tmp_path: Path) -> None:
    files = {"a.py": "def f():\n    return 0\n\ndef g():\n    return 0\n"}
    response = (
        "a.py\n««« EDIT\ndef g():\n    return 0\n═══════ REPL\ndef g():\n    return 1\n"
        "»»» EDIT END\n"
    )
    out = _apply(files, response, tmp_path)
    assert out == {"a.py": "def f():\n    return 0\n\ndef g():\n    return 1\n"}


def test_anchor_and_old_matching_twice_is_refused(tmp_path: Path) -> None:
    files = {"a.py": "x = 0\ny = 0\nx = 0\ny = 0\n"}
    response = "a.py\n««« EDIT\nx = 0\ny = 0\n═══════ REPL\nx = 0\ny = 1\n»»» EDIT END\n"
    result = apply_response(
        {p: FileState(content=c) for p, c in files.items()}, response, root=tmp_path
    )
    assert not result.ok and [e.kind for e in result.errors] == ["ambiguous"]


def test_a_crlf_file_keeps_crlf_after_an_edit_block(tmp_path: Path) -> None:
    files = {"w.bat": "@echo off\r\necho one\r\necho two\r\n"}
    response = "w.bat\n««« EDIT\necho one\n═══════ REPL\necho one\necho 1.5\n»»» EDIT END\n"
    out = _apply(files, response, tmp_path)
    assert out == {"w.bat": "@echo off\r\necho one\r\necho 1.5\r\necho two\r\n"}


def test_the_example_in_the_instructions_parses_as_one_block() -> None:
    (block,) = parse_text(INSTRUCTIONS)
    assert isinstance(block, EditBlock) and block.path == "path/to/file.py"
