"""A tool-mode answer that called no tool: its text's SEARCH/REPLACE or EDIT blocks, or its
fenced whole files under a path line, are its edits; prose and excerpts are not."""

from __future__ import annotations

from pathlib import Path

from bb7.formats.apply import FileState, apply_response
from bb7.formats.fallback import text_edits
from bb7.formats.response import Response, ToolCall
from bb7.formats.retry import retry_context

APP = "def greet():\n    return 'hi'\n\n\ndef main():\n    print(greet())\n"
FILES = {"app.py": FileState(content=APP)}

SEARCH_REPLACE = """I'll change the greeting.

app.py
```python
<<<<<<< SEARCH
    return 'hi'
=======
    return 'hello'
>>>>>>> REPLACE
```
"""


def _apply(response: Response, tmp_path: Path) -> dict[str, str]:
    result = apply_response(FILES, response, "search_replace_multi", root=tmp_path)
    assert result.ok, result.errors
    return {change.path: change.content for change in result.files}


def test_search_replace_blocks_in_a_tool_mode_answer_are_its_edits(tmp_path: Path) -> None:
    response = text_edits(SEARCH_REPLACE)
    assert response == Response(text=SEARCH_REPLACE)
    assert _apply(response, tmp_path) == {"app.py": APP.replace("'hi'", "'hello'")}


def test_edit_blocks_are_read_too(tmp_path: Path) -> None:
    text = (
        "app.py\n««« EDIT\ndef main():\n    print(greet())\n═══════ REPL\ndef main():\n"
        "    print(greet(), '!')\n»»» EDIT END\n"
    )
    response = text_edits(text)
    assert response is not None
    assert _apply(response, tmp_path) == {"app.py": APP.replace("greet())", "greet(), '!')")}


def test_a_malformed_block_keeps_the_whole_answer_so_it_fails_whole() -> None:
    broken = SEARCH_REPLACE.replace(">>>>>>> REPLACE\n", "")
    response = text_edits(broken)
    assert response == Response(text=broken)
    result = apply_response(FILES, response, "search_replace_multi", root=Path("/nonexistent"))
    assert not result.ok and result.files == []


def test_a_fenced_whole_file_under_its_path_is_written(tmp_path: Path) -> None:
    new = "def greet():\n    return 'hello'\n\n\ndef main():\n    print(greet())\n"
    text = f"Here is the whole file:\n\n**app.py**\n```python\n{new}```\n\nAnd a new one:\n\n"
    text += "`tests/test_app.py`\n```\nfrom app import greet\n```\n"
    response = text_edits(text, {"app.py": APP})
    assert response is not None
    assert response.tool_calls == (
        ToolCall(name="write_file", arguments={"path": "app.py", "content": new}),
        ToolCall(
            name="write_file",
            arguments={"path": "tests/test_app.py", "content": "from app import greet\n"},
        ),
    )
    assert _apply(response, tmp_path) == {
        "app.py": new,
        "tests/test_app.py": "from app import greet\n",
    }


def test_prose_and_code_without_a_path_hold_no_edits() -> None:
    assert text_edits("The bug is in greet(): it should say hello.") is None
    assert text_edits("Try this:\n```python\nprint(greet())\n```\n") is None
    assert text_edits("Python 3.10 does it:\n```\nmatch x:\n```\n") is None


def test_an_excerpt_of_a_longer_file_is_an_example_not_the_file() -> None:
    text = "In app.py\n\napp.py\n```python\ndef main():\n    print(greet())\n```\n"
    assert text_edits(text, {"app.py": APP}) is None


def test_tool_json_that_cannot_be_mended_asks_for_the_tool_or_the_text_format(
    tmp_path: Path,
) -> None:
    broken = ToolCall(name="edit_file", arguments='{"edits": [{"path": "app.py", "old_string": ')
    result = apply_response(FILES, Response(tool_calls=(broken,)), root=tmp_path)
    assert not result.ok and result.errors[0].kind == "invalid"
    assert "not a valid JSON object" in result.errors[0].message
    context = retry_context(result)
    assert "call the tool again with one valid JSON object, or write the change" in context
    assert "SEARCH/REPLACE blocks instead" in context


def test_a_read_only_file_quoted_or_a_file_quoted_unchanged_is_no_edit() -> None:
    quoted = f"The file as it is:\n\napp.py\n```python\n{APP}```\n"
    assert text_edits(quoted, {"app.py": APP}) is None
    assert text_edits(quoted.replace("'hi'", "'hello'"), {"app.py": APP}, ["app.py"]) is None
