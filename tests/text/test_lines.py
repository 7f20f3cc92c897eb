"""The one line splitter: LF only, a final LF ends a line, the empty text has no lines."""

from __future__ import annotations

import pytest

from bb7.text.lines import split_lines

ODD_BREAKS = "a\x0cb\x0bc\rd\x1ce\u2028f\x85g"  # str.splitlines breaks at each of these


def test_only_lf_ends_a_line() -> None:
    assert split_lines(ODD_BREAKS + "\nnext") == [ODD_BREAKS, "next"]
    assert len(ODD_BREAKS.splitlines()) == 7  # what the splitter must not do


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("\n", [""]),
        ("a", ["a"]),
        ("a\n", ["a"]),
        ("a\n\n", ["a", ""]),
        ("\na", ["", "a"]),
    ],
)
def test_a_final_lf_ends_the_last_line(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines


def test_keepends_gives_the_text_back() -> None:
    for text in ("", "a", "a\n", "a\r\nb\x0c\nc", "\n\n"):
        assert "".join(split_lines(text, keepends=True)) == text
    assert split_lines("a\r\nb", keepends=True) == ["a\r\n", "b"]


def test_crlf_drops_the_cr_of_a_crlf_ending_only() -> None:
    assert split_lines("a\r\nb\r\n", crlf=True) == ["a", "b"]
    assert split_lines("a\rb\r", crlf=True) == ["a\rb\r"]  # a lone CR is a character
    assert split_lines("a\r\nb\r\n") == ["a\r", "b\r"]
