"""Finishing what a killed bb7 left half-done, at the next open of the project.

An apply, and an undo of one, commits an `Intent` (the user's text and the text to write)
before it touches the file, and drops it when the apply (undo) is recorded. An intent whose
process is gone is settled here: if the file holds the written text (is gone, for an undo that
deletes it), the apply or undo is finished (after an apply, `bb7 output undo` brings the user's
text back); otherwise nothing was replaced and the intent is dropped (the output stays pending,
the undo stays possible). bb7's own temp files next to the target (`.NAME.XXXX.bb7-tmp`) are
removed.
"""

from __future__ import annotations

import contextlib
import os

from bb7.fsio import FileProblem, load_text, temp_files, write_target
from bb7.paths import project_path
from bb7.process import running
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
    if isinstance(checked, str):
        target = store.root / checked
        on_disk = load_text(target)
        real = write_target(target)
        for leftover in temp_files(real.parent, real.name):
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
        store.delete_intent(intent.id)
        return f"rolled back an interrupted undo of {intent.path}; the apply stands, undo it again"
    if landed:
        finish_apply(store, intent)
        return f"finished an interrupted apply of {intent.path} (`bb7 output undo` reverts it)"
    store.delete_intent(intent.id)
    return f"rolled back an interrupted apply of {intent.path}; its output is still pending"
