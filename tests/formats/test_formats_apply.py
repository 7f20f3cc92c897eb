"""apply_response: ordered, all or nothing, file_id rules, path rules, every error listed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from bb7.files.fileid import file_id
from bb7.formats import FileState, Response, Result, ToolCall, apply_response

A = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
B = "x = 1\ny = 2\n"


def _files(**contents: str | None) -> dict[str, FileState]:
    return {name.replace("_", "."): FileState(content=text) for name, text in contents.items()}


def _calls(*calls: tuple[str, dict[str, Any]]) -> str:
    return json.dumps({"tool_calls": [{"name": n, "arguments": a} for n, a in calls]})


def _edit(path: str, old: str, new: str, fid: str = "", **extra: Any) -> dict[str, Any]:
    return {"path": path, "file_id": fid, "old_string": old, "new_string": new, **extra}


def _run(files: dict[str, FileState], response: str | Response, root: Path, **kw: Any) -> Result:
    return apply_response(files, response, kw.pop("mode", "search_replace_multi"), root=root, **kw)


def _contents(result: Result) -> dict[str, str]:
    assert result.ok, result.errors
    return {change.path: change.content for change in result.files}


def test_edits_apply_in_order_and_later_ones_see_earlier_results(tmp_path: Path) -> None:
    response = _calls(
        (
            "edit_file",
            {
                "edits": [
                    _edit("a.py", "return 1", "return 10"),
                    _edit("a.py", "return 10\n", "return 10  # ten\n"),
                    _edit("b.py", "y = 2", "y = 3"),
                ]
            },
        )
    )
    result = _run(_files(a_py=A, b_py=B), response, tmp_path)
    assert _contents(result) == {
        "a.py": A.replace("return 1\n", "return 10  # ten\n"),
        "b.py": "x = 1\ny = 3\n",
    }
    assert [(e.block, e.edit) for e in result.files[0].edits] == [(1, 1), (1, 2)]
    assert result.files[0].status == "modified"
    assert result.files[0].file_id == file_id("a.py", result.files[0].content)


def test_one_failing_edit_commits_nothing_and_every_error_is_listed(tmp_path: Path) -> None:
    response = _calls(
        (
            "edit_file",
            {"edits": [_edit("a.py", "return 1", "return 10"), _edit("a.py", "nope", "x")]},
        ),
        ("edit_file", {"edits": [_edit("b.py", "missing", "x"), _edit("b.py", "x = 1", "x = 5")]}),
    )
    result = _run(_files(a_py=A, b_py=B), response, tmp_path)
    assert not result.ok and result.files == []
    assert [(e.block, e.edit, e.path, e.kind) for e in result.errors] == [
        (1, 2, "a.py", "not_found"),
        (2, 1, "b.py", "not_found"),
    ]
    assert result.errors[0].best is not None
    # What succeeded is still known, for repair flows.
    partial = {c.path: c.content for c in result.partial}
    assert partial == {"a.py": A.replace("return 1", "return 10"), "b.py": "x = 5\ny = 2\n"}
    assert [c.ok for c in result.calls] == [False, False]


def test_untouched_and_unchanged_files_are_not_in_the_result(tmp_path: Path) -> None:
    response = _calls(
        (
            "edit_file",
            {
                "edits": [
                    _edit("a.py", "return 1", "return 2"),
                    _edit("a.py", "return 2\n\n\ndef b", "return 1\n\n\ndef b"),
                ]
            },
        )
    )
    result = _run(_files(a_py=A, b_py=B), response, tmp_path)
    assert result.ok and result.files == []


# --- file_id --------------------------------------------------------------------------------


def test_file_ids_of_one_multi_call_name_the_version_the_call_started_from(tmp_path: Path) -> None:
    start = file_id("a.py", A)
    response = _calls(
        (
            "edit_file",
            {
                "edits": [
                    _edit("a.py", "return 1", "return 10", start),
                    _edit("a.py", "return 2", "return 20", start),
                ]
            },
        ),
    )
    assert _contents(_run(_files(a_py=A), response, tmp_path))["a.py"].count("0\n") == 2


def test_a_wrong_id_on_a_later_edit_of_one_call_still_names_the_starting_version(
    tmp_path: Path,
) -> None:
    start = file_id("a.py", A)
    edits = [
        _edit("a.py", "return 1", "return 10", start),
        _edit("a.py", "return 2", "x", "0bad1d00"),
    ]
    (error,) = _run(_files(a_py=A), _calls(("edit_file", {"edits": edits})), tmp_path).errors
    assert (error.edit, error.kind) == (2, "file_id_mismatch")
    assert f"this call edits the context snapshot, whose id is {start}" in error.message


def test_a_second_call_on_an_edited_path_carries_the_pending_id(tmp_path: Path) -> None:
    first = A.replace("return 1", "return 10")
    response = _calls(
        ("edit_file", _edit("a.py", "return 1", "return 10", file_id("a.py", A))),
        ("edit_file", _edit("a.py", "return 2", "return 20", file_id("a.py", first))),
    )
    result = _run(_files(a_py=A), response, tmp_path, mode="search_replace")
    assert _contents(result) == {"a.py": first.replace("return 2", "return 20")}


def test_a_second_call_quoting_the_original_id_is_a_mismatch(tmp_path: Path) -> None:
    original = file_id("a.py", A)
    pending = file_id("a.py", A.replace("return 1", "return 10"))
    response = _calls(
        ("edit_file", _edit("a.py", "return 1", "return 10", original)),
        ("edit_file", _edit("a.py", "return 2", "return 20", original)),
    )
    result = _run(_files(a_py=A), response, tmp_path, mode="search_replace")
    (error,) = result.errors
    assert (error.block, error.kind) == (2, "file_id_mismatch")
    assert pending in error.message and "earlier calls" in error.message


def test_a_wrong_id_names_the_base_version_and_its_id(tmp_path: Path) -> None:
    files = {"a.py": FileState(content=A, base="pending_output")}
    result = _run(
        files,
        _calls(("edit_file", {"edits": [_edit("a.py", "return 1", "x", "deadbeef")]})),
        tmp_path,
    )
    (error,) = result.errors
    assert error.kind == "file_id_mismatch"
    assert "the pending output" in error.message and file_id("a.py", A) in error.message


def test_a_missing_file_id_fails_only_when_required(tmp_path: Path) -> None:
    response = _calls(("edit_file", {"edits": [_edit("a.py", "return 1", "return 3")]}))
    assert _run(_files(a_py=A), response, tmp_path).ok
    result = _run(_files(a_py=A), response, tmp_path, require_file_id=True)
    assert [e.kind for e in result.errors] == ["file_id_missing"]
    assert file_id("a.py", A) in result.errors[0].message


# --- conflicts and missing files ------------------------------------------------------------


def test_write_file_then_edit_file_on_one_path_is_refused(tmp_path: Path) -> None:
    response = _calls(
        ("write_file", {"path": "a.py", "content": "new\n"}),
        ("edit_file", {"edits": [_edit("a.py", "new", "newer")]}),
    )
    result = _run(_files(a_py=A), response, tmp_path)
    assert [(e.block, e.kind) for e in result.errors] == [(2, "write_edit_conflict")]


def test_edit_file_then_write_file_on_one_path_is_refused(tmp_path: Path) -> None:
    response = _calls(
        ("edit_file", {"edits": [_edit("a.py", "return 1", "return 3")]}),
        ("write_file", {"path": "a.py", "content": "new\n"}),
    )
    assert [e.kind for e in _run(_files(a_py=A), response, tmp_path).errors] == [
        "write_edit_conflict"
    ]


def test_two_write_files_on_one_path_are_refused(tmp_path: Path) -> None:
    response = _calls(
        ("write_file", {"path": "n.py", "content": "1\n"}),
        ("write_file", {"path": "n.py", "content": "2\n"}),
    )
    assert [e.kind for e in _run({}, response, tmp_path).errors] == ["duplicate_write"]


def test_editing_a_missing_file_is_refused_but_an_empty_old_string_creates_it(
    tmp_path: Path,
) -> None:
    missing = _run({}, _calls(("edit_file", {"edits": [_edit("n.py", "a", "b")]})), tmp_path)
    assert [e.kind for e in missing.errors] == ["missing_file"]
    created = _run({}, _calls(("edit_file", {"edits": [_edit("n.py", "", "b\n")]})), tmp_path)
    assert _contents(created) == {"n.py": "b\n"} and created.files[0].status == "added"


def test_read_only_and_unreadable_files_are_refused(tmp_path: Path) -> None:
    files = {
        "ro.py": FileState(content=B, writable=False),
        "bin.dat": FileState(content=None, problem="bin.dat is a binary file"),
    }
    response = _calls(
        ("edit_file", {"edits": [_edit("ro.py", "x = 1", "x = 2")]}),
        ("write_file", {"path": "bin.dat", "content": "text"}),
    )
    assert [e.kind for e in _run(files, response, tmp_path).errors] == ["read_only", "unreadable"]


def test_a_path_cannot_be_both_file_and_directory(tmp_path: Path) -> None:
    response = _calls(
        ("write_file", {"path": "b.py/inner.py", "content": "x\n"}),
    )
    assert [e.kind for e in _run(_files(b_py=B), response, tmp_path).errors] == ["path_conflict"]


def test_write_file_keeps_the_line_endings_and_bom_of_the_file_it_replaces(tmp_path: Path) -> None:
    files = {"w.txt": FileState(content="\ufeffold\r\nlines\r\n")}
    result = _run(
        files, _calls(("write_file", {"path": "w.txt", "content": "new\nlines\n"})), tmp_path
    )
    assert _contents(result) == {"w.txt": "\ufeffnew\r\nlines\r\n"}


# --- paths ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("../outside.py", "path_escape"),
        ("src/../../outside.py", "path_escape"),
        ("/etc/passwd", "path_escape"),
        (".git/hooks/pre-commit", "protected_path"),
        (".bb7/bb7.db", "protected_path"),
        ("~/.bashrc", "path_escape"),
        ("..\\..\\outside.py", "path_escape"),
        ("C:\\Windows\\x.py", "path_escape"),
        ("a\0b.py", "invalid"),
    ],
)
def test_paths_outside_the_project_are_refused(tmp_path: Path, path: str, kind: str) -> None:
    result = _run({}, _calls(("write_file", {"path": path, "content": "x\n"})), tmp_path)
    assert [e.kind for e in result.errors] == [kind]


def test_a_symlinked_directory_pointing_outside_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.symlink(outside, root / "link")
    result = _run({}, _calls(("write_file", {"path": "link/x.py", "content": "x\n"})), root)
    assert [e.kind for e in result.errors] == ["path_escape"]


def test_backslashes_are_read_as_separators(tmp_path: Path) -> None:
    response = _calls(("write_file", {"path": "pkg\\mod.py", "content": "x\n"}))
    assert _contents(_run({}, response, tmp_path)) == {"pkg/mod.py": "x\n"}


def test_an_absolute_path_inside_the_root_is_the_relative_path(tmp_path: Path) -> None:
    response = _calls(("edit_file", {"edits": [_edit(str(tmp_path / "b.py"), "x = 1", "x = 9")]}))
    assert _contents(_run(_files(b_py=B), response, tmp_path)) == {"b.py": "x = 9\ny = 2\n"}


# --- calls ----------------------------------------------------------------------------------


def test_openai_shaped_calls_with_json_text_arguments(tmp_path: Path) -> None:
    arguments = json.dumps(
        {
            "path": "b.py",
            "file_id": file_id("b.py", B),
            "old_string": "y = 2",
            "new_string": "y = 4",
        }
    )
    response = json.dumps(
        {
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "edit_file", "arguments": arguments},
                }
            ]
        }
    )
    result = _run(_files(b_py=B), response, tmp_path, mode="search_replace")
    assert _contents(result) == {"b.py": "x = 1\ny = 4\n"}


def test_repaired_arguments_apply_and_record_the_repair(tmp_path: Path) -> None:
    arguments = '{"path": "b.py", "old_string": "y = 2", "new_string": "y = 4",}'
    response = Response(tool_calls=(ToolCall(name="edit_file", arguments=arguments),))
    result = _run(_files(b_py=B), response, tmp_path, mode="search_replace")
    assert _contents(result) == {"b.py": "x = 1\ny = 4\n"}


def test_unreadable_arguments_are_invalid_with_the_raw_text(tmp_path: Path) -> None:
    response = Response(tool_calls=(ToolCall(name="edit_file", arguments='{"path": "b.py", "old'),))
    (error,) = _run(_files(b_py=B), response, tmp_path).errors
    assert error.kind == "invalid" and '{"path": "b.py", "old' in error.message


def test_arguments_in_another_modes_schema_are_refused_with_a_hint(tmp_path: Path) -> None:
    response = _calls(("edit_file", _edit("b.py", "y = 2", "y = 4")))
    (error,) = _run(_files(b_py=B), response, tmp_path).errors
    assert error.kind == "invalid" and "'search_replace' schema" in error.message


def test_unknown_tools_and_edit_file_in_off_mode_are_refused(tmp_path: Path) -> None:
    response = _calls(("delete_file", {"path": "b.py"}), ("edit_file", _edit("b.py", "y", "z")))
    result = _run(_files(b_py=B), response, tmp_path, mode="off")
    assert [e.kind for e in result.errors] == ["unknown_tool", "unknown_tool"]
    assert "write_file" in result.errors[1].message


def test_text_blocks_of_both_formats_apply_in_order(tmp_path: Path) -> None:
    response = (
        "b.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 10\n>>>>>>> REPLACE\n\n"
        "b.py\n««« EDIT\nx = 10\n═══════ REPL\nx = 10\nz = 3\n»»» EDIT END\n"
    )
    result = _run(_files(b_py=B), response, tmp_path)
    assert _contents(result) == {"b.py": "x = 10\nz = 3\ny = 2\n"}
    assert [c.kind for c in result.calls] == ["search_replace_block", "edit_block"]


def test_a_malformed_block_fails_the_response_with_its_line(tmp_path: Path) -> None:
    response = (
        "b.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 10\n>>>>>>> REPLACE\n\n"
        "b.py\n<<<<<<< SEARCH\ny = 2\n=======\ny = 20\n"
    )
    result = _run(_files(b_py=B), response, tmp_path)
    assert [(e.block, e.kind, e.line) for e in result.errors] == [(2, "malformed", 9)]
    assert result.files == []


def test_start_line_hints_follow_lines_added_by_earlier_blocks(tmp_path: Path) -> None:
    # dup sits at lines 2 and 33; the first block adds 40 lines above both. Unshifted, hint 33
    # would now be nearer the first copy (line 42) than the second (line 73).
    files = {"m.py": FileState(content="top\ndup = 1\n" + "x\n" * 30 + "dup = 1\n")}
    response = (
        "m.py\n<<<<<<< SEARCH\ntop\n=======\ntop\n" + "new\n" * 40 + ">>>>>>> REPLACE\n"
        "<<<<<<< SEARCH\n:start_line:33\ndup = 1\n=======\ndup = 2\n>>>>>>> REPLACE\n"
    )
    out = _contents(_run(files, response, tmp_path))["m.py"]
    assert out.endswith("x\ndup = 2\n") and "new\ndup = 1\nx" in out


def test_a_crlf_project_keeps_crlf_through_blocks_and_tool_calls(tmp_path: Path) -> None:
    crlf = "one = 1\r\ntwo = 2\r\nthree = 3\r\n"
    text = "c.py\n<<<<<<< SEARCH\none = 1\ntwo = 2\n=======\none = 1\ntwo = 22\n>>>>>>> REPLACE\n"
    after_text = _contents(_run({"c.py": FileState(content=crlf)}, text, tmp_path))["c.py"]
    assert after_text == "one = 1\r\ntwo = 22\r\nthree = 3\r\n"
    tool = _calls(
        (
            "edit_file",
            {"edits": [_edit("c.py", "two = 2\nthree", "two = 22\nthree", file_id("c.py", crlf))]},
        )
    )
    assert _contents(_run({"c.py": FileState(content=crlf)}, tool, tmp_path))["c.py"] == after_text


def _blocks(path: str, *pairs: tuple[str, str], fence: str = "") -> str:
    out = []
    for search, replace in pairs:
        opening, closing = (fence + "\n", fence[:3] + "\n") if fence else ("", "")
        out.append(
            f"{path}\n{opening}<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n{closing}"
        )
    return "\n".join(out)


def test_a_no_op_block_that_matches_is_skipped_with_a_note(tmp_path: Path) -> None:
    text = "a = 1\nb = 2\nc = 3\n"
    response = _blocks("m.py", ("a = 1\n", "a = 1\n"), ("c = 3\n", "c = 30\n"))
    result = _run(_files(m_py=text), response, tmp_path)
    assert _contents(result) == {"m.py": "a = 1\nb = 2\nc = 30\n"}
    (note,) = result.notes
    assert "block 1" in note and "m.py" in note and "changes nothing" in note
    assert [e.strategy for e in result.files[0].edits] == ["unchanged", "exact"]


def test_a_no_op_block_that_matches_nothing_or_twice_still_fails(tmp_path: Path) -> None:
    result = _run(_files(m_py="a = 1\n"), _blocks("m.py", ("zzz\n", "zzz\n")), tmp_path)
    assert not result.ok and result.errors[0].kind == "not_found"
    result = _run(_files(m_py="a\nb\na\n"), _blocks("m.py", ("a\n", "a\n")), tmp_path)
    assert not result.ok and result.errors[0].kind == "ambiguous"


def test_a_search_ending_with_a_blank_line_leaves_that_blank_line(tmp_path: Path) -> None:
    text = "def f():\n    pass\n\n\ndef g():\n    pass\n\n\ndef h():\n    pass\n"
    response = _blocks("m.py", ("def g():\n    pass\n\n", ""))
    result = _run(_files(m_py=text), response, tmp_path)
    assert _contents(result) == {"m.py": "def f():\n    pass\n\n\n\n\ndef h():\n    pass\n"}


def test_a_fence_closing_both_sections_is_the_blocks_own_fence(tmp_path: Path) -> None:
    text = "# Title\n\nSome text.\n\n## Next\n"
    response = _blocks("doc.md", ("Some text.\n```\n", "Some other text.\n```\n"), fence="```md")
    result = _run(_files(doc_md=text), response, tmp_path)
    assert _contents(result) == {"doc.md": text.replace("Some text.", "Some other text.")}


def test_elision_like_lines_in_markdown_are_text(tmp_path: Path) -> None:
    text = "# Notes\n\nWrite tests.\n"
    new = "Write tests.\n\nAnd then...\n\n```ts\nf() {\n  // ... other functions ...\n}\n```\n"
    result = _run(_files(notes_md=text), _blocks("notes.md", ("Write tests.\n", new)), tmp_path)
    assert _contents(result) == {"notes.md": "# Notes\n\n" + new}
    # In code the same line stands for omitted code: refused.
    result = _run(
        _files(m_py="x = 1\n"),
        _blocks("m.py", ("x = 1\n", "# ... other functions ...\n")),
        tmp_path,
    )
    assert not result.ok and result.errors[0].kind == "invalid"
