"""Why an answer's file changes failed, worded for a person: the note stored in the chat after
the answer (the chat view shows it under the answer, `bb7 chat` prints it).

One line says what happened and what comes next; then one line per failed edit (file, edit,
what went wrong) and, when the engine found lines that nearly match, where they are and the
first of them. The model gets its own, longer wording (`bb7.formats.retry`); not that here.
"""

from __future__ import annotations

from collections.abc import Sequence

from bb7.formats.apply import ApplyError
from bb7.text.words import plural

CLOSEST_LINES = 3  # of the nearly matching region, shown under the error

# What each engine error kind means to someone reading the chat (the engine's own message
# speaks to the model: "copy old_string from that version and send file_id ...").
KIND_TEXT = {
    "not_found": "not found: the text to replace is not in the file",
    "ambiguous": "ambiguous: the text to replace matches more than one place",
    "invalid": "invalid edit",
    "file_id_mismatch": "written for another version of the file",
    "file_id_missing": "the edit does not say which version of the file it is for",
    "read_only": "the file is read-only in this chat",
    "missing_file": "the file does not exist",
    "write_edit_conflict": "the answer both rewrites and edits the file",
    "duplicate_write": "the answer rewrites the file twice",
    "overlap": "two changes of the answer touch the same lines",
}


def error_lines(error: ApplyError) -> list[str]:
    """One failed edit: `a.py, edit 2: not found: ...`, then the closest lines, if any."""
    where = [error.path] if error.path else []
    if error.edit is not None:
        where.append(f"edit {error.edit}")
    elif error.block is not None:
        where.append(f"change {error.block}")
    what = KIND_TEXT.get(error.kind, error.kind.replace("_", " "))
    if error.kind not in KIND_TEXT or error.kind == "invalid":
        first = error.message.strip().split("\n", 1)[0]
        what = f"{what}: {first}" if first else what
    lines = [f"• {', '.join(where) or 'the answer'}: {what}"]
    best = error.best
    if best is not None:
        span = (
            f"line {best.start_line}"
            if best.start_line == best.end_line
            else f"lines {best.start_line}-{best.end_line}"
        )
        lines.append(f"  closest: {span} ({round(best.similarity * 100)}% alike)")
        shown = best.text.rstrip("\n").split("\n")
        lines += [f"  │ {line}" for line in shown[:CLOSEST_LINES]]
        if len(shown) > CLOSEST_LINES:
            lines.append(f"  │ … {plural(len(shown) - CLOSEST_LINES, 'more line')}")
    return lines


# How a failure note starts (`bb7.stats` counts the failed answers by it).
FAILED_HEAD = "The file changes of this answer could not be applied"


def failure_note(errors: Sequence[ApplyError], then: str) -> str:
    """The stored note after an answer whose changes failed; `then`: what happens next."""
    head = f"{FAILED_HEAD} ({plural(len(errors), 'problem')}); no file was changed. {then}"
    return "\n".join([head] + [line for error in errors for line in error_lines(error)])
