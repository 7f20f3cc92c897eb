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


def test_the_engine_advice_to_the_model_stays_out_of_the_note() -> None:
    # The engine writes its messages for the model ("Copy old_string ... send file_id");
    # the person reading the chat gets what happened.
    said_to_model = {
        "file_id_mismatch": "file_id 306c20d0 does not match a.py: this call edits the pending "
        "output, whose id is d8dd5e09. Copy old_string from that version and send file_id "
        "d8dd5e09.",
        "file_id_missing": "The edit of a.py has no file_id. Add file_id d8dd5e09 to every edit.",
        "read_only": "a.py is read-only in this chat, so it cannot be changed. Describe the "
        "change in your answer instead, or ask the user to make the file writable.",
        "missing_file": "a.py does not exist, so there is nothing to edit. Create it with "
        "write_file, or check the path.",
        "write_edit_conflict": "a.py is changed by both write_file and edit_file in this "
        "response. Use one: write_file with the complete final content, or edit_file edits only.",
        "duplicate_write": "write_file was called twice for a.py. Send one write_file per path.",
        "overlap": "changes 1 (lines 2-3) and 2 (lines 3-4) overlap. Nothing was changed. Merge "
        "them into one change, or anchor them on separate regions.",
    }
    errors = [
        ApplyError(block=1, edit=1, path="a.py", kind=kind, message=message)
        for kind, message in said_to_model.items()
    ]
    lines = failure_note(errors, "").split("\n")[1:]
    assert lines == [
        "• a.py, edit 1: written for another version of the file",
        "• a.py, edit 1: the edit does not say which version of the file it is for",
        "• a.py, edit 1: the file is read-only in this chat",
        "• a.py, edit 1: the file does not exist",
        "• a.py, edit 1: the answer both rewrites and edits the file",
        "• a.py, edit 1: the answer rewrites the file twice",
        "• a.py, edit 1: two changes of the answer touch the same lines",
    ]
