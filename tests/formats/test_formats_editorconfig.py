"""The tab width .editorconfig files give a file, and edits re-indented with it."""

from __future__ import annotations

from pathlib import Path

from bb7.formats import FileState, apply_response
from bb7.formats.editorconfig import tab_width


def test_sections_nearer_files_and_root(tmp_path: Path) -> None:
    (tmp_path / ".editorconfig").write_text(
        "root = true\n[*]\nindent_style = space\n[*.{c,h}]\nindent_style = tab\n"
        "indent_size = 8\n[Makefile]\ntab_width = 4\n"
    )
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / ".editorconfig").write_text("[*.c]\ntab_width = 2\n")
    assert tab_width(tmp_path, "a.c") == 8
    assert tab_width(tmp_path, "src/deep/x.h") == 8
    assert tab_width(tmp_path, "lib/y.c") == 2
    assert tab_width(tmp_path, "lib/sub/z.h") == 8
    assert tab_width(tmp_path, "Makefile") == 4
    assert tab_width(tmp_path, "a.py") is None  # spaces: indent_size is not a tab width
    (tmp_path / "lib" / ".editorconfig").write_text("root = true\n[*.c]\nindent_size = 3\n")
    assert tab_width(tmp_path, "lib/y.h") is None


def test_an_added_tab_indented_line_uses_the_configured_width(tmp_path: Path) -> None:
    (tmp_path / ".editorconfig").write_text("[*.c]\ntab_width = 8\n")
    text = "int f(void)\n{\n\tif (x) {\n\t\ty();\n\t}\n}\n"
    # Sent 4 columns short (12 spaces for two 8-column tabs); the added line one level (8
    # columns) deeper than y(). Nothing in the file tells the width; the project does.
    response = (
        "f.c\n<<<<<<< SEARCH\n            y();\n=======\n            y();\n"
        "                    z();\n>>>>>>> REPLACE\n"
    )
    files = {"f.c": FileState(content=text)}
    result = apply_response(files, response, "search_replace_blocks", root=tmp_path)
    assert result.ok, result.errors
    assert result.files[0].content == text.replace("\t\ty();\n", "\t\ty();\n\t\t\tz();\n")
