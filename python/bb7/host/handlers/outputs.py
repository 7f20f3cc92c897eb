"""The chat's pending outputs: apply (one file, every file), discard, undo an apply, the
`:BB7Diff` merge (`diff`, `finish_merge`) and the files panel's unified diff (`file_diff`).

Writes to a file that is loaded in Neovim go through its buffer (`Held.writer`), so undo, marks
and the buffer's view stay; other files are written atomically by the core. The core re-checks
the local text right before writing; the Lua side re-checks the buffer's changedtick.
"""

from __future__ import annotations

from typing import TypeVar

from bb7.host.editor import to_lines
from bb7.host.handlers.project import publish, publishing
from bb7.host.needs import Held, Reading
from bb7.host.protocol import ApplyArgs, BuffersArgs, DiffView, FileArgs, PathArgs, Said
from bb7.refusal import Abort, Problem, unwrap
from bb7.state import outputs
from bb7.state.merge import finish_merge as core_finish_merge
from bb7.state.status import facts_of

T = TypeVar("T")

# How the editor says what the core refused, naming the commands that resolve it. The first
# line fits the command area of an 80-column editor (Lua shows only that line, pointing to
# :BB7Log for the rest).
APPLY_REFUSALS = {
    "conflict": "{path} has local changes (~M); :BB7Merge keeps both\n"
    "{path}: the pending change would overwrite your local changes. :BB7Merge keeps both "
    "(overlaps stay for :BB7Review), :BB7Apply! applies over them (undo with :BB7UndoApply), "
    ":BB7Diff merges by hand.",
    "changed": "{path} changed since its status was shown; not applied\n"
    "{path}: its status is shown again now; apply again if the change is still what you want.",
    "gone": "{path} no longer exists; :BB7Apply! writes it again\n"
    "{path} is gone: it was deleted or renamed since the model read it. :BB7Apply! writes the "
    "pending output again, :BB7Discard drops it.",
    "exists": "{path} now exists locally (!A); :BB7Apply! overwrites it\n"
    "{path}: the model wrote it as a new file. :BB7Apply! overwrites the local one (undo with "
    ":BB7UndoApply), :BB7Diff merges by hand.",
    "read_only_file": "{path} is read-only on disk; :BB7Apply! overwrites it\n"
    "{path}: nothing was written. :BB7Apply! writes the pending change over it; the file stays "
    "read-only.",
    "choose": "{path}: an edit waits for a choice of place; :BB7Review\n"
    "{path}: an edit of the pending change matches several places. :BB7Review shows each place "
    "as a hunk: accept the one meant, or reject the edit (the model is told).",
}

# Why apply-all skipped a file, by the refusal's kind, in editor terms.
SKIPPED = {
    "conflict": "changed locally; :BB7Merge keeps both, :BB7Apply! applies over them",
    "exists": "now exists locally; :BB7Apply! overwrites it",
    "gone": "gone (deleted or renamed); :BB7Apply! writes it again",
    "choose": "an edit waits for a choice of place; :BB7Review offers them",
}

MERGE_OUTCOMES = {
    "full": "{path}: all of the pending change is merged",
    "partial": "{path}: took some hunks, the rest stays pending",
    "none": "{path}: nothing taken; the change is still pending",
}


def _in_editor_terms(h: Held, raw: str, done: T | Problem, hints: dict[str, str]) -> T:
    """`done`, or `Abort` saying it the editor's way when `hints` has its kind."""
    if isinstance(done, Problem):
        hint = hints.get(done.kind)
        raise Abort(Problem(done.kind, hint.format(path=h.shown(raw))) if hint else done)
    return done


def apply(h: Held, args: ApplyArgs) -> Said:
    h.session.cancel_checks()  # they check the pending change this changes
    path, buffers = h.path(args.path), h.buffers(args.buffers)
    with publishing(h, buffers.text, [path]):
        done = outputs.apply_output(
            h.store,
            h.chat.id,
            path,
            seen=h.seen(path),
            buffers=buffers.text,
            force=args.force,
            write=h.writer(buffers),
        )
    done = _in_editor_terms(h, args.path, done, APPLY_REFUSALS)
    if done.late:
        return Said(f"applied {done.path}; {outputs.LATE}")
    facts = facts_of(done.status)
    if facts.needs_force and not facts.new_file:
        return Said(f"applied {done.path} over your local changes (undo with :BB7UndoApply)")
    if done.merged:
        return Said(f"applied {done.path}, keeping your local edits")
    if facts.needs_force:
        return Said(f"applied {done.path} over the local file (undo with :BB7UndoApply)")
    return Said(f"applied {done.path}")


def apply_all(h: Held, args: BuffersArgs) -> Said:
    h.session.cancel_checks()  # they check the pending change this changes
    buffers = h.buffers(args.buffers)
    reports = outputs.apply_all(h.store, h.chat.id, buffers.text, write=h.writer(buffers))
    publish(h, buffers.text)
    if not reports:
        raise Abort(Problem("nothing_pending", f"{h.chat.name} has no pending changes"))
    applied = sum(r.applied for r in reports)
    head = f"applied {applied} of {len(reports)} pending changes"
    skipped = [r for r in reports if not r.applied]
    if not skipped:
        return Said(head)
    head += "; skipped " + ", ".join(f"{r.path} ({r.status})" for r in skipped)
    lines = [f"{r.path}: {SKIPPED.get(r.kind, r.message)}" for r in skipped]
    return Said("\n".join([head, *lines]))


def discard(h: Held, args: PathArgs) -> Said:
    h.session.cancel_checks()  # they check the pending change this changes
    path, buffers = h.path(args.path), h.buffers(args.buffers)
    with publishing(h, buffers.text, [path]):
        gone = unwrap(outputs.discard_output(h.store, h.chat.id, path))
    return Said(f"discarded the pending change of {gone.path}")


# How the editor says why an undo was refused: editor actions, never the CLI's flags.
UNDO_REFUSALS = {
    "changed": "{path} changed since the apply; :BB7UndoApply! undoes anyway",
    # An agent's own write, where the user edited its lines since (`bb7.state.agent_writes`).
    "conflict": "{path}: your edits touch lines the agent wrote; :BB7UndoApply! undoes anyway",
}


def undo_apply(h: Held, args: ApplyArgs) -> Said:
    h.session.cancel_checks()  # they check the pending change this changes
    path, buffers = h.path(args.path), h.buffers(args.buffers)
    with publishing(h, buffers.text, [path]):
        done = outputs.undo_apply(
            h.store,
            h.chat.id,
            path,
            buffers=buffers.text,
            force=args.force,
            write=h.writer(buffers),
        )
    done = _in_editor_terms(h, args.path, done, UNDO_REFUSALS)
    return Said(f"undid the apply of {done.path}; its change is pending again")


def diff(r: Reading, args: PathArgs) -> DiffView:
    """The pending output of a file over its local text, for `:BB7Diff`."""
    path = r.path(args.path)
    found = outputs.over_local(r.store, r.chat.id, path, r.buffers(args.buffers).text)
    if isinstance(found, Problem):
        raise Abort(Problem("no_output", f"{path} has no pending change to merge"))
    content = to_lines(found[1])
    own = outputs.own_lines(r.store, r.chat.id, path, found[0])
    return DiffView(
        path=r.editor_path(path), name=path, lines=content.lines, eol=content.eol, own=own
    )


def finish_merge(h: Held, args: PathArgs) -> Said:
    """The diff tab of `:BB7Diff` closed: record what the user took from the output."""
    h.session.cancel_checks()  # they check the pending change this changes
    path, buffers = h.path(args.path), h.buffers(args.buffers)
    with publishing(h, buffers.text, [path]):
        outcome = unwrap(core_finish_merge(h.store, h.chat.id, path, buffers.text))
    return Said(MERGE_OUTCOMES[outcome.outcome].format(path=outcome.path))


def file_diff(r: Reading, args: FileArgs) -> str:
    """The pending change of a file as a unified diff (local text -> pending output)."""
    path = r.path(args.path)
    return unwrap(outputs.output_diff(r.store, r.chat.id, path, r.buffers(args.buffers).text))
