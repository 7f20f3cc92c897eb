"""File text to buffer lines and back: endings, final newline and BOM live in buffer options."""

from __future__ import annotations

from bb7.host.editor import EditorLines, from_lines, to_lines


def test_text_with_a_final_newline_is_its_lines_and_eol() -> None:
    assert to_lines("a\nb\n") == EditorLines(["a", "b"], eol=True)
    assert from_lines(["a", "b"]) == "a\nb\n"


def test_text_without_a_final_newline_keeps_noeol() -> None:
    assert to_lines("a\nb") == EditorLines(["a", "b"], eol=False)
    assert from_lines(["a", "b"], eol=False) == "a\nb"


def test_crlf_and_bom_are_left_to_the_buffer_options() -> None:
    assert to_lines("\ufeffa\r\nb\r\n") == EditorLines(["a", "b"], eol=True)


def test_an_empty_text_is_one_empty_line() -> None:
    assert to_lines("") == EditorLines([""], eol=False)
    assert from_lines([]) == ""
