"""`bb7.stats` reads back the failure notes `bb7.chat.failures` writes: one error kind per
failed edit, for every kind the note words for people and for those it does not."""

from __future__ import annotations

from bb7.chat.failures import failure_note
from bb7.formats.apply import ApplyError
from bb7.stats import failure_kinds


def test_every_failed_edit_of_a_note_gives_back_its_kind() -> None:
    kinds = ["not_found", "ambiguous", "invalid", "file_id_mismatch", "path_escape", "unreadable"]
    errors = [
        ApplyError(block=1, edit=n, path="a.py", kind=kind, message=f"{kind}: details\nmore")
        for n, kind in enumerate(kinds, 1)
    ]
    assert failure_kinds(failure_note(errors, "Send again.")) == kinds
