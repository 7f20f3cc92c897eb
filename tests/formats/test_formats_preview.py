"""The new text of an edit's tool call, read while its arguments stream (`:BB7Edit`'s preview):
whatever the pieces' sizes, the text is the values of new_string and content, decoded, and
nothing of the old text, the paths or the keys."""

from __future__ import annotations

import json

import pytest

from bb7.formats.preview import NewText, NewTexts

EDITS = {
    "edits": [
        {
            "path": "a.py",
            "file_id": "f1",
            "old_string": 'content = "new_string"\n',
            "new_string": 'def f(x):\n    return "\\t" + x  # é 😀\n',
        },
        {"path": "b.py", "file_id": "f2", "old_string": "b", "new_string": "bee"},
    ]
}
ANCHORED = {
    "path": "a.py",
    "changes": [{"start": ["one = 1"], "end": None, "content": ["uno = 1", "", "dos = 2"]}],
}


def streamed(arguments: object, piece: int) -> str:
    text = json.dumps(arguments)
    reader = NewText()
    return "".join(reader.feed(text[i : i + piece]) for i in range(0, len(text), piece))


@pytest.mark.parametrize("piece", [1, 2, 3, 7, 1000])
def test_the_new_strings_come_whole_whatever_the_pieces(piece: int) -> None:
    got = streamed(EDITS, piece)
    assert got == 'def f(x):\n    return "\\t" + x  # é 😀\n\nbee'


def test_escapes_and_surrogate_pairs_split_across_pieces_decode() -> None:
    text = json.dumps({"new_string": 'tab\there "q" \\ 😀'}, ensure_ascii=True)
    assert "\\ud83d\\ude00" in text
    for piece in (1, 4, 5):
        assert streamed(json.loads(text), piece) == 'tab\there "q" \\ 😀'
    reader = NewText()
    assert [reader.feed(p) for p in ('{"new_string": "a\\', "u00", "e9b", '"}')] == [
        "a",
        "",
        "éb",
        "",
    ]


def test_a_list_of_lines_is_one_line_each() -> None:
    assert streamed(ANCHORED, 5) == "uno = 1\n\ndos = 2"


def test_a_whole_file_written_is_its_content() -> None:
    assert streamed({"path": "n.py", "content": "x = 1\n"}, 3) == "x = 1\n"


def test_old_text_paths_and_look_alike_values_are_left_out() -> None:
    arguments = {"path": "content", "old_string": "new_string", "note": ["content"]}
    assert streamed(arguments, 1) == ""


def test_text_grows_as_the_value_streams() -> None:
    reader = NewText()
    assert reader.feed('{"edits": [{"path": "a.py", "new_string": "de') == "de"
    assert reader.feed("f f():") == "f f():"
    assert reader.feed('\\n    pass"}]}') == "\n    pass"


def test_each_call_after_the_first_starts_a_line() -> None:
    calls = NewTexts()
    assert calls.feed(0, '{"new_string": "one') == "one"
    assert calls.feed(1, '{"content": "two') == "\ntwo"
    assert calls.feed(1, " more") == " more"
    assert calls.feed(0, '"}') == ""
