"""How a failed answer's edits are worded for the person reading the chat."""

from __future__ import annotations

from bb7.chat.failures import failure_note
from bb7.edits.types import Candidate
from bb7.formats.apply import ApplyError


def test_failed_edits_are_worded_for_a_person_with_the_closest_lines() -> None:
    near = Candidate(start_line=2, end_line=3, similarity=0.8, text="two = 2\nthree = 3\n")
    errors = [
        ApplyError(block=1, edit=2, path="a.py", kind="not_found", message="...", best=near),
        ApplyError(block=2, edit=None, path="b.py", kind="no_such_file", message="b.py is gone"),
    ]
    note = failure_note(errors, "The next message sends the errors.")
    assert note.split("\n") == [
        "The file changes of this answer could not be applied (2 problems); no file was changed."
        " The next message sends the errors.",
        "• a.py, edit 2: not found: the text to replace is not in the file",
        "  closest: lines 2-3 (80% alike)",
        "  │ two = 2",
        "  │ three = 3",
        "• b.py, change 2: no such file: b.py is gone",
    ]
    assert "(1 problem)" in failure_note(errors[:1], "")
