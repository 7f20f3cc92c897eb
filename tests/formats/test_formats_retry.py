"""The retry context: errors, the versions and ids to use now, the calls as sent."""

from __future__ import annotations

import json
from pathlib import Path

from bb7.files.fileid import file_id
from bb7.formats import FileState, apply_response, retry_context

A = "alpha = 1\nbeta = 2\n"
B = "gamma = 3\n"


def test_nothing_to_retry_after_success(tmp_path: Path) -> None:
    response = json.dumps(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "n", "content": "x"}}]}
    )
    assert retry_context(apply_response({}, response, root=tmp_path)) == ""


def test_the_retry_context_names_the_failure_the_base_and_the_id_to_use(tmp_path: Path) -> None:
    edits = [
        {
            "path": "a.py",
            "file_id": file_id("a.py", A),
            "old_string": "alpha = 1",
            "new_string": "alpha = 10",
        },
        {
            "path": "b.py",
            "file_id": file_id("b.py", B),
            "old_string": "delta = 4",
            "new_string": "delta = 5",
        },
    ]
    response = json.dumps({"tool_calls": [{"name": "edit_file", "arguments": {"edits": edits}}]})
    files = {"a.py": FileState(content=A), "b.py": FileState(content=B)}
    result = apply_response(files, response, "search_replace_multi", root=tmp_path)
    text = retry_context(result)
    assert text.startswith("Your previous response could not be applied: 1 problem(s)")
    assert "@retry_context" not in text  # the prompt's markers, added by assemble_prompt
    assert "ONLY what failed" in text
    # b.py failed and is unchanged: its original id; a.py's successful edit is kept: its new id.
    assert f"- b.py: file_id {file_id('b.py', B)} (unchanged)" in text
    assert "1. call 1 (edit_file), edit 2, b.py [not_found]" in text
    assert "Send all the fixed edits in one edit_file call." in text
    assert '"old_string":"delta = 4"' in text  # the call as sent
    assert "a.py" not in text.split("Versions to edit now:")[1].split("Errors:")[0]


def test_ids_after_successful_edits_are_given_for_paths_that_failed_later(tmp_path: Path) -> None:
    calls = [
        {
            "name": "edit_file",
            "arguments": {"path": "a.py", "old_string": "alpha = 1", "new_string": "alpha = 10"},
        },
        {
            "name": "edit_file",
            "arguments": {"path": "a.py", "old_string": "omega", "new_string": "x"},
        },
    ]
    result = apply_response(
        {"a.py": FileState(content=A)},
        json.dumps({"tool_calls": calls}),
        "search_replace",
        root=tmp_path,
    )
    text = retry_context(result)
    kept = file_id("a.py", A.replace("alpha = 1", "alpha = 10"))
    assert f"- a.py: file_id {kept} (your successful changes applied)" in text
    assert "call 1 (edit_file): applied, kept" in text
    assert "call 2 (edit_file): FAILED" in text
    assert "One edit per edit_file call" in text


def test_text_block_failures_point_at_their_lines_without_file_ids(tmp_path: Path) -> None:
    response = "Intro.\n\na.py\n<<<<<<< SEARCH\nzeta = 0\n=======\nzeta = 1\n>>>>>>> REPLACE\n"
    text = retry_context(apply_response({"a.py": FileState(content=A)}, response, root=tmp_path))
    assert "SEARCH/REPLACE block 1 at line 4, a.py [not_found]" in text
    assert "text blocks carry no file_id" in text
    assert "a.py\n<<<<<<< SEARCH\nzeta = 0" in text  # the block as sent
