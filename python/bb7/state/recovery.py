"""Finishing what a killed bb7 left half-done, at the next open of the project.

An apply, and an undo of one, commits an `Intent` (the user's text and the text to write)
before it touches the file, and drops it when the apply (undo) is recorded. An intent whose
process is gone is settled here: if the file holds the written text (is gone, for an undo that
deletes it), the apply or undo is finished (after an apply, `bb7 output undo` brings the user's
text back). If it holds the old text, or the new text never left its temp file, nothing was
replaced and the intent is dropped (the output stays pending, the undo stays possible). If it
holds neither (replaced, then edited before this open: the host died and the user kept typing),
the apply is finished all the same, so that its undo record keeps the text it replaced until
the user takes it back (`bb7 output undo --force`) or drops it. bb7's own temp files next to
the target (`.NAME.PID.XXXX.bb7-tmp`) are removed.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from bb7.files.fsio import FileProblem, backups, load_text, temp_files, write_target
from bb7.files.paths import project_path
from bb7.process import running
from bb7.state.local import same_text
from bb7.state.lock import this_host
from bb7.state.outputs import finish_apply
from bb7.state.records import Intent
from bb7.state.store import Store


def recover(store: Store) -> list[str]:
    """Settle the intents of dead processes; one line per apply finished or rolled back."""
    if store.root is None or not store.has_intents():
        return []  # the common case costs one read and no write lock
    done: list[str] = []
    with store.transaction():
        for intent in store.intents():
            if _running(intent):
                continue
            done.append(_settle(store, intent))
    return done


def _running(intent: Intent) -> bool:
    """Whether the apply may still be in progress: its process (the same one, not another with
    a reused pid) still runs on this host."""
    if intent.pid == os.getpid():
        return False
    return intent.host == this_host() and running(intent.pid, intent.started)


def _settle(store: Store, intent: Intent) -> str:
    assert store.root is not None
    checked = project_path(store.root, intent.path)
    on_disk: str | FileProblem | None = None
    left: list[Path] = []
    if isinstance(checked, str):
        target = store.root / checked
        on_disk = load_text(target)
        real = write_target(target)
        left = temp_files(real.parent, real.name)
        # The intent holds both texts: a write in place's backup is not needed either (a file
        # it left may be half new: neither untouched nor landed, so it is kept for undo below).
        for leftover in left + backups(real.parent, real.name):
            with contextlib.suppress(OSError):
                leftover.unlink()
    if intent.written is None:
        landed = isinstance(on_disk, FileProblem) and on_disk.kind == "missing"
    else:
        landed = on_disk == store.blob(intent.written)
    if intent.undo is not None:
        if landed:
            finish_apply(store, intent)
            return f"finished an interrupted undo of {intent.path}; its output is pending again"
        # The undo record still holds both texts: nothing is lost by undoing again.
        store.delete_intent(intent.id)
        return f"rolled back an interrupted undo of {intent.path}; the apply stands, undo it again"
    if landed:
        finish_apply(store, intent)
        return f"finished an interrupted apply of {intent.path} (`bb7 output undo` reverts it)"
    previous = None if intent.prev_local is None else store.blob(intent.prev_local)
    untouched = same_text(_text(on_disk), previous)
    if untouched or left or previous is None:
        # The file was never replaced (it holds the old text, or the new text still sat in a
        # temp file), or there was no text to replace: nothing to keep.
        store.delete_intent(intent.id)
        return f"rolled back an interrupted apply of {intent.path}; its output is still pending"
    # Replaced, then edited (or cut short) before this open: the text the apply replaced is
    # kept in an undo record until the user takes it back or drops it.
    finish_apply(store, intent)
    return (
        f"finished an interrupted apply of {intent.path}, which was edited since; the text it "
        f"replaced is kept: `bb7 output undo --force {intent.path}` (:BB7UndoApply!) brings it "
        "back over those edits"
    )


def _text(on_disk: str | FileProblem | None) -> str | None:
    return on_disk if isinstance(on_disk, str) else None
