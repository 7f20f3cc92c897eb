"""The editor's side of a project: file text to buffer lines and back (endings, final newline
and BOM live in buffer options), editor paths and buffers to project paths."""

from __future__ import annotations

from pathlib import Path

from bb7.host.editor import (
    EditorLines,
    editor_buffers,
    editor_path,
    from_lines,
    shown,
    to_lines,
)
from bb7.host.protocol import BufferText
from bb7.state.local import LocalText
from bb7.state.store import init_project


def test_text_with_a_final_newline_is_its_lines_and_eol() -> None:
    assert to_lines("a\nb\n") == EditorLines(["a", "b"], eol=True)
    assert from_lines(["a", "b"]) == "a\nb\n"


def test_text_without_a_final_newline_keeps_noeol() -> None:
    assert to_lines("a\nb") == EditorLines(["a", "b"], eol=False)
    assert from_lines(["a", "b"], eol=False) == "a\nb"


def test_crlf_and_bom_are_left_to_the_buffer_options() -> None:
    assert to_lines("\ufeffa\r\nb\r\n") == EditorLines(["a", "b"], eol=True)


def test_lines_of_a_dos_bomb_buffer_are_the_text_writing_it_makes() -> None:
    assert from_lines(["a", "b"], crlf=True, bom=True) == "\ufeffa\r\nb\r\n"
    assert from_lines(["a", "b"], eol=False, crlf=True) == "a\r\nb"


def test_an_empty_text_is_one_empty_line() -> None:
    assert to_lines("") == EditorLines([""], eol=False)
    assert from_lines([]) == ""


def test_buffers_are_keyed_by_project_path_with_unsaved_text_and_buffer_numbers(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    store = init_project(root)
    buffers = [
        BufferText(str(root / "src" / "a.py"), changedtick=4, lines=["x = 1"], buf=3),
        BufferText(str(root / "b.py"), changedtick=2, buf=5),  # loaded, saved
        BufferText(str(root / ".bb7" / "bb7.db"), changedtick=1, buf=6),  # never in a chat
    ]
    got = editor_buffers(store, buffers)
    store.close()
    assert got.paths == ["src/a.py", "b.py"]
    assert got.text == {"src/a.py": LocalText("x = 1\n", 4)}
    assert {path: b.buf for path, b in got.loaded.items()} == {"src/a.py": 3, "b.py": 5}
    assert editor_path(store, "src/a.py") == str(root / "src" / "a.py")
    assert shown(root, str(root / "src" / "a.py")) == "src/a.py"
    assert shown(root, "/elsewhere/c.py") == "/elsewhere/c.py"
    assert shown(root, str(Path.home() / "notes" / "n.md")) == "~/notes/n.md"
    assert shown(None, str(Path.home() / "x.py:1-20")) == "~/x.py:1-20"
