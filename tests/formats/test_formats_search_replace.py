"""SEARCH/REPLACE blocks: paths, fences, :start_line:, escaped markers, the marker state machine."""

from __future__ import annotations

from bb7.formats.blocks import BlockError
from bb7.formats.search_replace import SearchReplaceBlock
from bb7.formats.stream import parse_text


def _blocks(text: str) -> list[SearchReplaceBlock]:
    items = parse_text(text)
    assert all(isinstance(i, SearchReplaceBlock) for i in items), items
    return items  # type: ignore[return-value]


def _errors(text: str) -> list[BlockError]:
    return [i for i in parse_text(text) if isinstance(i, BlockError)]


def test_a_block_under_a_path_line_and_inside_a_fence() -> None:
    text = (
        "Here is the fix:\n\n"
        "src/app.py\n"
        "```python\n"
        "<<<<<<< SEARCH\n"
        "def f():\n"
        "    return 1\n"
        "=======\n"
        "def f():\n"
        "    return 2\n"
        ">>>>>>> REPLACE\n"
        "```\n"
    )
    (block,) = _blocks(text)
    assert block.path == "src/app.py"
    assert block.search == "def f():\n    return 1\n"
    assert block.replace == "def f():\n    return 2\n"
    assert (block.index, block.line, block.end_line, block.start_line) == (1, 5, 11, None)


def test_a_fence_with_blanks_before_its_language_is_no_path() -> None:
    # CommonMark allows blanks between the backticks and the info string: the line is a fence,
    # and the path is the line above it, as for a plain fence.
    for opening in ("``` Haskell", "```  elm", "~~~ python title", "````\tC++"):
        text = (
            f"src/Main.hs\n{opening}\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"
        )
        (block,) = _blocks(text)
        assert block.path == "src/Main.hs", opening


def test_start_line_header_and_dashes_are_not_content() -> None:
    text = "a.py\n<<<<<<< SEARCH\n:start_line:42\n-------\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    (block,) = _blocks(text)
    assert block.start_line == 42
    assert block.search == "x = 1\n"


def test_dashes_after_the_header_are_content() -> None:
    text = "a.md\n<<<<<<< SEARCH\nTitle\n-------\n=======\nTitle\n=====\n>>>>>>> REPLACE\n"
    (block,) = _blocks(text)
    assert block.search == "Title\n-------\n"
    assert block.replace == "Title\n=====\n"


def test_escaped_markers_lose_their_backslash() -> None:
    text = (
        "conflict.txt\n"
        "<<<<<<< SEARCH\n"
        "\\<<<<<<< HEAD\n"
        "ours\n"
        "\\=======\n"
        "theirs\n"
        "\\>>>>>>> main\n"
        "\\-------\n"
        "\\:start_line:3\n"
        "=======\n"
        "\\=======\n"
        "ours\n"
        ">>>>>>> REPLACE\n"
    )
    (block,) = _blocks(text)
    assert block.search == (
        "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\n-------\n:start_line:3\n"
    )
    assert block.replace == "=======\nours\n"


def test_a_backslash_elsewhere_is_kept() -> None:
    text = "a.tex\n<<<<<<< SEARCH\n  \\=======\n\\section{x}\n=======\ny\n>>>>>>> REPLACE\n"
    (block,) = _blocks(text)
    assert block.search == "  \\=======\n\\section{x}\n"


def test_nested_looking_markers_inside_content_are_content() -> None:
    text = (
        "notes.txt\n"
        "<<<<<<< SEARCH\n"
        "<<<<<<< HEAD\n"  # a git marker, not the SEARCH marker
        "a ======= b\n"  # markers count only as whole lines
        ">>>>>>> feature\n"
        "««« EDIT\n"  # the other format's marker inside this block
        "=======\n"
        "x >>>>>>> REPLACE\n"
        ">>>>>>> REPLACE\n"
    )
    (block,) = _blocks(text)
    assert block.search == "<<<<<<< HEAD\na ======= b\n>>>>>>> feature\n««« EDIT\n"
    assert block.replace == "x >>>>>>> REPLACE\n"


def test_an_empty_search_section_is_kept_empty() -> None:
    (block,) = _blocks("new.txt\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n")
    assert (block.search, block.replace) == ("", "hello\n")


def test_path_lines_lose_markdown_decoration() -> None:
    for line in ("**src/a.py**", "### `src/a.py`", "File: src/a.py", "`src/a.py`:"):
        (block,) = _blocks(f"{line}\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n")
        assert block.path == "src/a.py", line


def test_a_block_right_after_another_edits_the_same_file() -> None:
    text = (
        "a.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\n"
        "<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n"
        "b.py\n<<<<<<< SEARCH\ne\n=======\nf\n>>>>>>> REPLACE\n"
    )
    assert [b.path for b in _blocks(text)] == ["a.py", "a.py", "b.py"]


def test_a_crlf_response_gives_lf_block_text() -> None:
    text = "a.py\r\n<<<<<<< SEARCH\r\nx\r\n=======\r\ny\r\n>>>>>>> REPLACE\r\n"
    (block,) = _blocks(text)
    assert (block.search, block.replace) == ("x\n", "y\n")


def test_a_second_divider_is_an_error_at_its_line() -> None:
    text = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n=======\nz\n>>>>>>> REPLACE\nafter\n"
    (error,) = _errors(text)
    assert (error.index, error.line, error.block_line) == (1, 6, 2)
    assert "line 6" in error.message and "a second =======" in error.message
    assert "\\=======" in error.message  # tells how to escape


def test_replace_before_divider_is_an_error() -> None:
    (error,) = _errors("a.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n")
    assert error.line == 4 and "came before the =======" in error.message


def test_an_unclosed_block_is_reported_with_its_start() -> None:
    (error,) = _errors("intro\n\na.py\n<<<<<<< SEARCH\nx\n=======\ny\n")
    assert (error.block_line, error.line) == (4, 7)
    assert ">>>>>>> REPLACE" in error.message


def test_a_new_block_inside_an_open_one_reports_it_and_parses_the_new_one() -> None:
    text = (
        "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n"
        "b.py\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n"
    )
    first, second = parse_text(text)
    assert isinstance(first, BlockError) and first.line == 7 and first.block_line == 2
    assert isinstance(second, SearchReplaceBlock) and second.index == 2
    # b.py was swallowed by the unclosed block, so the new block has no path line of its own
    assert second.path == "a.py"


def test_a_stray_end_marker_outside_any_block_is_reported() -> None:
    (error,) = _errors("a.py\nold\n=======\nnew\n>>>>>>> REPLACE\n")
    assert error.index is None and error.line == 5
    assert "opening marker is missing" in error.message


def test_a_git_conflict_shown_in_prose_is_not_an_error() -> None:
    text = "Your file has a conflict:\n```\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> main\n```\n"
    assert parse_text(text) == []


def test_a_start_line_marker_in_the_replacement_is_an_error() -> None:
    (error,) = _errors("a.py\n<<<<<<< SEARCH\nx\n=======\n:start_line:4\ny\n>>>>>>> REPLACE\n")
    assert error.line == 5


def test_one_empty_line_before_a_marker_is_layout() -> None:
    text = "a.py\n<<<<<<< SEARCH\ndef f():\n    pass\n\n=======\n>>>>>>> REPLACE\n"
    (block,) = _blocks(text)
    assert block.search == "def f():\n    pass\n"
    assert block.replace == ""
    text = "a.py\n<<<<<<< SEARCH\nx = 1\n\n\n=======\nx = 2\n\n>>>>>>> REPLACE\n"
    (block,) = _blocks(text)
    assert (block.search, block.replace) == ("x = 1\n\n", "x = 2\n")


def test_a_section_of_only_an_empty_line_keeps_it() -> None:
    (block,) = _blocks("a.py\n<<<<<<< SEARCH\nx = 1\n=======\n\n>>>>>>> REPLACE\n")
    assert block.replace == "\n"
