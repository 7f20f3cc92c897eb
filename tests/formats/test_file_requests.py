"""The model asks for files: reading the request_files call and the FILES block, and which
asked-for files the user can add."""

from __future__ import annotations

import json
from pathlib import Path

from bb7.formats.calls import read_calls
from bb7.formats.file_requests import FileRequest, check_request, read_request
from bb7.formats.response import Response, ToolCall
from bb7.formats.schemas import WantedFile
from bb7.prompt.assemble import PromptInput, assemble_prompt


def test_a_request_files_call_is_read_with_its_ranges_and_why() -> None:
    args = {
        "files": [{"path": "src/a.py"}, {"path": "src/b.py", "start_line": 3, "end_line": 9}],
        "why": "the caller of parse()",
    }
    request = read_request("", [("edit_file", "{}"), ("request_files", json.dumps(args))])
    assert request == FileRequest(
        [WantedFile(path="src/a.py"), WantedFile(path="src/b.py", start_line=3, end_line=9)],
        "the caller of parse()",
    )


def test_a_files_block_in_the_text_is_read_fenced_or_not() -> None:
    text = (
        "I cannot see the parser.\n"
        "```\n"
        "««« FILES\n"
        "why: parse() is called there\n"
        "- `src/a.py`\n"
        "src/b.py:10-40\n"
        "»»» FILES END\n"
        "```\n"
    )
    request = read_request(text, [])
    assert request == FileRequest(
        [WantedFile(path="src/a.py"), WantedFile(path="src/b.py", start_line=10, end_line=40)],
        "parse() is called there",
    )


def test_an_answer_without_a_request_asks_for_nothing() -> None:
    assert read_request("Here is the fix.\n««« FILES\nnever closed", []) is None
    assert read_request("", [("request_files", "not json"), ("write_file", "{}")]) is None


def test_the_same_file_asked_twice_is_listed_once() -> None:
    block = "««« FILES\nsrc/a.py\n»»» FILES END\n"
    call = ("request_files", {"files": [{"path": "src/a.py"}]})
    request = read_request(block, [call])
    assert request is not None and request.files == [WantedFile(path="src/a.py")]


def test_a_request_files_call_is_no_edit_and_no_error() -> None:
    response = Response(tool_calls=(ToolCall(name="request_files", arguments="{}"),))
    (call,) = read_calls(response, "search_replace_multi")
    assert call.ops == () and call.error is None


def test_only_text_files_inside_the_project_are_available(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "src" / "a.py").write_text("one\ntwo\nthree\nfour\n")
    (root / "logo.png").write_bytes(b"\x89PNG\0\0data")
    (tmp_path / "secret.txt").write_text("outside\n")
    wanted = [
        WantedFile(path="src/a.py"),
        WantedFile(path="src/a.py", start_line=2, end_line=3),
        WantedFile(path="../secret.txt"),
        WantedFile(path=".git/config"),
        WantedFile(path="src/gone.py"),
        WantedFile(path="logo.png"),
        WantedFile(path="src/a.py", start_line=9, end_line=12),
    ]
    asked = check_request(root, FileRequest(wanted))
    assert [(a.path, a.available, a.reason) for a in asked] == [
        ("src/a.py", True, ""),
        ("src/a.py", True, ""),
        ("../secret.txt", False, "outside the project"),
        (".git/config", False, "git's or bb7's own state"),
        ("src/gone.py", False, "missing"),
        ("logo.png", False, "binary"),
        ("src/a.py", False, "it has 4 lines"),
    ]
    assert asked[0].tokens > asked[1].tokens > 0
    assert (asked[1].start_line, asked[1].end_line) == (2, 3)
    assert all(a.tokens == 0 for a in asked if not a.available)


def test_only_the_text_modes_prompt_explains_the_files_block() -> None:
    text = assemble_prompt(PromptInput("hi", tool_prompt="EDIT blocks", edit_format="text_blocks"))
    tools = assemble_prompt(PromptInput("hi", tool_prompt="call the tools", edit_format="tools"))
    assert "««« FILES" in text.system and "»»» FILES END" in text.system
    assert "FILES" not in tools.system
