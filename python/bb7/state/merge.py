"""Three-way merges of a pending output with the user's local edits, and finishing a vimdiff merge.

`merge3(base, local, output)` is a line-based diff3: changes on one side only are taken, equal
changes on both sides are taken once, and overlapping different changes become standard conflict
regions (or the output's side, with `prefer_output`, to keep a change pending for review).
Lines compare without their line endings, and lines taken from the output follow the local
file's line-ending style, so a CRLF checkout never looks like a conflict everywhere.
"""

from __future__ import annotations

import difflib
import time

import msgspec

from bb7.fileid import entry_file_id
from bb7.state.local import Buffers, read_local, same_text, text_of
from bb7.state.records import WRITABLE, ContextEntry, Event, PendingOutput, Problem
from bb7.state.store import Store

LOCAL_MARKER = "<<<<<<< local"
SEPARATOR = "======="
OUTPUT_MARKER = ">>>>>>> output"


class Merge3(msgspec.Struct, frozen=True):
    text: str
    conflicts: int


class MergeOutcome(msgspec.Struct, frozen=True):
    """How a manual merge ended: `none` (nothing taken), `full` (all taken) or `partial`."""

    path: str
    outcome: str


def _key(line: str) -> str:
    return line.rstrip("\r\n")


def _eol(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _restyle(lines: list[str], eol: str) -> list[str]:
    return [_key(line) + eol if line != _key(line) else line for line in lines]


def _sync_regions(base: list[str], a: list[str], b: list[str]) -> list[tuple[int, ...]]:
    """Stretches of base unchanged in both a and b: (base_start, base_end, a_start, a_end, ...)."""
    keys_base = [_key(x) for x in base]
    am = difflib.SequenceMatcher(None, keys_base, [_key(x) for x in a], autojunk=False)
    bm = difflib.SequenceMatcher(None, keys_base, [_key(x) for x in b], autojunk=False)
    amatches = am.get_matching_blocks()
    bmatches = bm.get_matching_blocks()
    regions: list[tuple[int, ...]] = []
    ia = ib = 0
    while ia < len(amatches) and ib < len(bmatches):
        abase, amatch, alen = amatches[ia]
        bbase, bmatch, blen = bmatches[ib]
        start = max(abase, bbase)
        end = min(abase + alen, bbase + blen)
        if start < end:
            asub = amatch + start - abase
            bsub = bmatch + start - bbase
            regions.append((start, end, asub, asub + end - start, bsub, bsub + end - start))
        if abase + alen < bbase + blen:
            ia += 1
        else:
            ib += 1
    regions.append((len(base), len(base), len(a), len(a), len(b), len(b)))
    return regions


def merge3(base: str, local: str, output: str, *, prefer_output: bool = False) -> Merge3:
    """Merge the changes base→local and base→output; see the module docstring."""
    base_lines = base.splitlines(keepends=True)
    a = local.splitlines(keepends=True)
    b = output.splitlines(keepends=True)
    eol = _eol(local) if local else _eol(output)
    restyle = _eol(output) != eol
    out: list[str] = []
    conflicts = 0
    o0 = a0 = b0 = 0
    for o1, o2, a1, a2, b1, b2 in _sync_regions(base_lines, a, b):
        chunk_o = [_key(x) for x in base_lines[o0:o1]]
        chunk_a = a[a0:a1]
        chunk_b = _restyle(b[b0:b1], eol) if restyle else b[b0:b1]
        keys_a = [_key(x) for x in chunk_a]
        keys_b = [_key(x) for x in chunk_b]
        if keys_a == keys_b or keys_b == chunk_o:
            out += chunk_a
        elif keys_a == chunk_o or prefer_output:
            out += chunk_b
        else:
            conflicts += 1
            out.append(LOCAL_MARKER + eol)
            out += _terminated(chunk_a, eol)
            out.append(SEPARATOR + eol)
            out += _terminated(chunk_b, eol)
            out.append(OUTPUT_MARKER + eol)
        out += a[a1:a2]
        o0, a0, b0 = o2, a2, b2
    return Merge3(text="".join(_terminated(out[:-1], eol) + out[-1:]), conflicts=conflicts)


def _terminated(lines: list[str], eol: str) -> list[str]:
    """Lines each ending in a newline (a last line without one gets `eol`)."""
    return [line if line != _key(line) else line + eol for line in lines]


def rebase_output(
    store: Store,
    chat_id: str,
    output: PendingOutput,
    old_base: str,
    new_entry: ContextEntry,
    *,
    prefer_output: bool,
) -> Problem | None:
    """Carry a pending output over to a new snapshot (the user's local text) so applying it
    later cannot revert the local edits the new snapshot contains. Refuses on conflicts unless
    `prefer_output`. Runs inside the caller's transaction."""
    new_base = store.blob(new_entry.blob)
    merged = merge3(old_base, new_base, store.blob(output.blob), prefer_output=prefer_output)
    if merged.conflicts:
        return Problem(
            "conflict",
            f"{output.path}: the pending output and your local edits change the same lines "
            f"({merged.conflicts} region(s)); merge them first (bb7 output diff / :BB7Diff) "
            "or discard the output",
        )
    if same_text(merged.text, new_base):
        store.delete_output(chat_id, output.path)
        return None
    store.put_output(
        chat_id,
        PendingOutput(
            path=output.path,
            blob=store.put_blob(merged.text),
            file_id=entry_file_id(output.path, merged.text),
            base_file_id=new_entry.file_id,
            added=False,
            created=output.created,
        ),
    )
    return None


def finish_merge(
    store: Store, chat_id: str, path: str, buffers: Buffers | None = None
) -> MergeOutcome | Problem:
    """Record the end of a vimdiff merge of `path` from the local text the user left.

    Like the original BB-7: local equal to the output → `full` (applied); equal to the
    snapshot → `none`; otherwise `partial`: the snapshot becomes the local text and the output
    keeps only the hunks not taken, so reopening the diff shows just those. Unlike the
    original, the local edits are carried into the remaining output instead of being shown
    (and applied) as hunks that would revert them.
    """
    with store.transaction():
        output = store.output(chat_id, path)
        if output is None:
            return Problem("no_output", f"{path} has no pending output to merge")
        local = text_of(read_local(store, path, buffers))
        if local is None:
            return MergeOutcome(path, "none")
        entry = store.entry(chat_id, path)
        if entry is not None and entry.kind != WRITABLE:
            return Problem("readonly", f"{path} is read-only in this chat")
        out_text = store.blob(output.blob)
        snapshot = None if entry is None else store.blob(entry.blob)
        new_entry = ContextEntry(
            path=path,
            kind=WRITABLE,
            blob=store.put_blob(local),
            file_id=entry_file_id(path, local),
            added=entry.added if entry is not None else True,
        )
        event = Event.applied(new_entry, entry)
        if same_text(local, out_text):
            store.put_entry(chat_id, new_entry)
            store.delete_output(chat_id, path)
            store.append_event(chat_id, event)
            return MergeOutcome(path, "full")
        if snapshot is not None and same_text(local, snapshot):
            return MergeOutcome(path, "none")
        store.put_entry(chat_id, new_entry)
        if snapshot is None:
            # A new file: nothing to diff against, the output stays as the model wrote it.
            store.put_output(
                chat_id,
                msgspec.structs.replace(
                    output, base_file_id=new_entry.file_id, added=False, created=time.time()
                ),
            )
        else:
            rebase_output(store, chat_id, output, snapshot, new_entry, prefer_output=True)
        full = store.output(chat_id, path) is None
        if not full:
            event = msgspec.structs.replace(event, action="user_partially_applied")
        store.append_event(chat_id, event)
        return MergeOutcome(path, "full" if full else "partial")
