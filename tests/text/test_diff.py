"""Unified diffs for `bb7 apply --dry-run`: headers, missing final newlines, colour; the hunks
alone (the prompt's history); the lines a change touches (signs in the editor)."""

from __future__ import annotations

import difflib

from bb7.text.diff import colorize, hunks, line_counts, unified_diff


def test_a_modified_file_diff_has_git_style_headers() -> None:
    diff = unified_diff("a.py", "x = 1\ny = 2\n", "x = 1\ny = 3\n")
    assert diff.startswith("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n")
    assert " x = 1\n-y = 2\n+y = 3\n" in diff


def test_an_added_file_comes_from_dev_null() -> None:
    diff = unified_diff("new.py", None, "hello\n")
    assert diff.startswith("--- /dev/null\n+++ b/new.py\n") and "+hello\n" in diff


def test_a_missing_final_newline_is_marked_and_form_feeds_stay_in_their_line() -> None:
    diff = unified_diff("a.c", "a\x0cb\nc", "a\x0cb\nd")
    assert "-c\n\\ No newline at end of file\n+d\n\\ No newline at end of file\n" in diff
    assert line_counts("a\x0cb\nc", "a\x0cb\nd") == (1, 1)


def test_colour_marks_additions_removals_and_hunks() -> None:
    coloured = colorize(unified_diff("a", "x\n", "y\n"))
    assert "\x1b[31m-x\x1b[0m\n" in coloured and "\x1b[32m+y\x1b[0m\n" in coloured
    assert "\x1b[36m@@ -1 +1 @@\x1b[0m\n" in coloured


def test_the_hunks_are_the_unified_diff_without_its_header_and_match_difflib() -> None:
    # A long file edited at the start, the middle and the end, with repeated lines around the
    # edits: setting the shared ends aside before diffing must not change a hunk.
    base = [f"line {i % 7}\n" for i in range(200)]
    edited = list(base)
    edited[1] = "first\n"
    edited[100:102] = ["middle\n"]
    edited[-1] = "last"
    before, after = "".join(base), "".join(edited)
    header = "--- a/f.txt\n+++ b/f.txt\n"
    assert unified_diff("f.txt", before, after) == header + hunks(before, after)
    expected = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        for line in difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            "a/f.txt",
            "b/f.txt",
        )
    )
    assert unified_diff("f.txt", before, after) == expected
    assert hunks(before, before) == "" and unified_diff("f.txt", before, before) == ""
