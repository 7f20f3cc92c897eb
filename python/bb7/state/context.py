"""A chat's context: adding files, sections, external files and images, removing them,
re-snapshotting from the local copy and toggling read-only. Each function is one user action
(one transaction) and records an event in the chat.

Entries are keyed by (path, line range): a whole file and a section of it are separate entries.
Paths are stored root-relative; a file outside the project is stored by its absolute real path
and is always read-only (external). `.git/` and `.bb7/` are refused. Binary files and files over
the size limit are refused with a message saying so, but for images a name says are one (PNG,
JPEG, GIF, WebP: `bb7.files.images`), stored as their data URL; a pasted image has no file, only
the name `add_image` is given. Every read of a file for a snapshot goes through
`bb7.files.guard`: a path that a symlink now leads out of the project, into `.git`/`.bb7` or
into what `.bb7/ignore` leaves out, or whose text now looks like a secret the user did not
confirm, is not read, and its snapshot is kept.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from bb7.files.fileid import entry_file_id
from bb7.files.fsio import DEFAULT_MAX_BYTES, FileProblem, is_binary, load_text
from bb7.files.guard import in_short, new_secret, readable, still_itself
from bb7.files.ignore import load_ignore
from bb7.files.images import Image, image_from_bytes, is_image_name, read_image
from bb7.files.paths import PathProblem, name_problem, project_path
from bb7.refusal import Abort, Problem, from_file, from_path
from bb7.state.local import Buffers, LocalText, local_file, read_local, same_text
from bb7.state.merge import rebase_output
from bb7.state.records import (
    ENTRY_KINDS,
    EXTERNAL,
    GLOBAL,
    IMAGE,
    READONLY,
    SECTION,
    WRITABLE,
    ContextEntry,
    EntryKind,
    Event,
)
from bb7.state.store import Store
from bb7.text.lines import split_lines
from bb7.text.words import plural

# Reading limit for the file a section is cut from (the section itself must fit the usual limit).
SECTION_SOURCE_MAX_BYTES = 64 * 1024 * 1024

_RANGE = re.compile(r"^(?P<path>.+):(?P<start>\d+)-(?P<end>\d+)$")


class Target(msgspec.Struct, frozen=True):
    """A path as the user typed it, with an optional line range (a section)."""

    path: str
    start: int = 0
    end: int = 0


def parse_target(spec: str) -> Target:
    """`PATH` or `PATH:START-END` (1-based, inclusive)."""
    found = _RANGE.match(spec)
    if found is None:
        return Target(spec)
    return Target(found["path"], int(found["start"]), int(found["end"]))


class Resolved(msgspec.Struct, frozen=True):
    path: str  # root-relative, or absolute for a file outside the project
    external: bool


def resolve(store: Store, raw: str, base: Path | None = None) -> Resolved | Problem:
    """Where a user-given path lives, as the store keys it.

    In a project chat: inside the root → relative; outside (`..`, an absolute path, a symlink
    leading out) → the absolute real path, external. In a global chat every file is external;
    relative paths resolve against `base` (the project root the user is in).
    """
    if "\0" in raw:
        return Problem("invalid_path", "the path contains a NUL byte")
    bad = name_problem(raw)
    if bad is not None:
        return from_path(bad)
    root = store.root
    if store.scope == GLOBAL or root is None:
        if not os.path.isabs(raw) and base is None:
            return Problem(
                "invalid_path", f"{raw} is relative, but a global chat needs an absolute path"
            )
        return Resolved(os.path.realpath(os.path.join(base or "/", raw)), True)
    found = project_path(root, raw)
    if isinstance(found, str):
        return Resolved(found, False)
    if found.kind == "outside_root":
        return Resolved(os.path.realpath(os.path.join(root, raw)), True)
    return from_path(found)


def _snapshot_text(
    store: Store, path: str, text: str | None, max_bytes: int, section: bool
) -> str | Problem:
    """The text to snapshot: the editor's buffer text if given, else the file on disk.

    A section may come from a file over the limit (only the section itself must fit).
    """
    limit = SECTION_SOURCE_MAX_BYTES if section else max_bytes
    if text is None:
        loaded = load_text(local_file(store, path), max_bytes=limit)
        if isinstance(loaded, FileProblem):
            return _file_problem(loaded, max_bytes)
        return loaded
    data = text.encode("utf-8")
    if is_binary(data):
        return _file_problem(
            FileProblem("binary", f"{path} is a binary file (it contains NUL bytes)"), max_bytes
        )
    if len(data) > limit:
        return _file_problem(
            FileProblem("too_large", f"{path} is {len(data)} bytes, over the limit of {limit}"),
            max_bytes,
        )
    return text


def _fits(content: str, label: str, max_bytes: int) -> str | Problem:
    size = len(content.encode("utf-8"))
    if size > max_bytes:
        return Problem("too_large", f"{label} is {size} bytes, over the limit of {max_bytes} bytes")
    return content


def _file_problem(problem: FileProblem, max_bytes: int) -> Problem:
    hints = {
        "binary": "bb7 only adds text files",
        "too_large": f"bb7 adds whole files up to {max_bytes} bytes; add a section "
        "(PATH:START-END) instead",
        "missing": "check the path",
    }
    return from_file(problem, hints.get(problem.kind))


def _section(text: str, start: int, end: int, label: str) -> str | Problem:
    lines = split_lines(text, keepends=True)  # numbered as Neovim numbers them (LF only)
    if start < 1 or end < start:
        return Problem("invalid_range", f"{label}: a section needs 1 <= START <= END")
    if end > len(lines):
        return Problem("invalid_range", f"{label}: the file has only {len(lines)} lines")
    return "".join(lines[start - 1 : end])


def add(
    store: Store,
    chat_id: str,
    target: Target,
    *,
    readonly: bool = False,
    text: str | None = None,
    base: Path | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ContextEntry | Problem:
    """Add a file (writable or read-only), a section (with a line range) or an external file.

    `text` is the editor's buffer text, when the file is open with unsaved edits. Adding an
    entry that is already there with the same kind refreshes it from that text (`existing`
    tells the caller which it was).
    """
    try:
        with store.transaction():
            return _add(store, chat_id, target, readonly, text, base, max_bytes)
    except Abort as abort:
        return abort.problem


def existing(
    store: Store, chat_id: str, target: Target, base: Path | None = None
) -> ContextEntry | None:
    """The entry `target` names, if the chat has it already."""
    where = resolve(store, target.path, base)
    if isinstance(where, Problem):
        return None
    return store.entry(chat_id, where.path, target.start, target.end)


@dataclass(frozen=True)
class Added:
    """What adding several targets did: `entries` of the `kept` targets (in order), and the
    targets `skipped`, each with why in a few words (`already read-only`)."""

    kept: list[Target]
    entries: list[ContextEntry]
    skipped: list[tuple[Target, str]]


# Why a file was left out, in a few words, by the kind of the refusal.
SKIPPED = {
    "pending_output": "has a pending change",
    "too_large": "too large",
    "not_utf8": "not UTF-8",
}


def add_many(
    store: Store,
    chat_id: str,
    targets: list[Target],
    *,
    readonly: bool = False,
    base: Path | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    texts: Mapping[str, str] | None = None,
    skippable: Sequence[bool] = (),
) -> Added | Problem:
    """Add several paths as one action: all of them, or (on the first refusal) none, except
    that a target `skippable` marks (a file the user did not name: under a directory, an open
    buffer) is left out when it cannot be added, and the rest are added. `texts` are the
    editor's unsaved buffers by store path (as `resolve` gives it)."""
    added = Added([], [], [])
    try:
        with store.transaction():
            for i, target in enumerate(targets):
                where = resolve(store, target.path, base)
                text = texts.get(where.path) if texts and isinstance(where, Resolved) else None
                got = _add_part(store, chat_id, target, readonly, text, base, max_bytes)
                if isinstance(got, ContextEntry):
                    added.kept.append(target)
                    added.entries.append(got)
                elif i < len(skippable) and skippable[i]:
                    added.skipped.append((target, _skipped(store, chat_id, where, target, got)))
                else:
                    raise Abort(got)
    except Abort as abort:
        return abort.problem
    return added


def _add_part(
    store: Store,
    chat_id: str,
    target: Target,
    readonly: bool,
    text: str | None,
    base: Path | None,
    max_bytes: int,
) -> ContextEntry | Problem:
    """`_add` as a part of a larger transaction: a refusal leaves nothing of it behind."""
    try:
        with store.savepoint():
            got = _add(store, chat_id, target, readonly, text, base, max_bytes)
            if isinstance(got, Problem):
                raise Abort(got)
            return got
    except Abort as abort:
        return abort.problem


def _skipped(
    store: Store, chat_id: str, where: Resolved | Problem, target: Target, problem: Problem
) -> str:
    if problem.kind == "exists" and isinstance(where, Resolved):
        there = store.entry(chat_id, where.path, target.start, target.end)
        if there is not None:
            return f"already {'read-only' if there.kind == READONLY else there.kind}"
    if problem.kind == "protected":
        return "git's own" if "/.git/" in f"/{target.path}" else "bb7's own"
    return SKIPPED.get(problem.kind, problem.kind.replace("_", " "))


def added_verb(before: ContextEntry | None, after: ContextEntry) -> str:
    """What adding did, as a message starts: `added`, `refreshed` (it was there with other
    text), or `already up to date:`."""
    if before is None:
        return "added"
    return "refreshed" if before.file_id != after.file_id else "already up to date:"


def added_summary(
    before: list[ContextEntry | None],
    after: list[ContextEntry],
    shown: Callable[[str], str],
    *,
    kind: bool = True,
) -> str:
    """What adding did, in one line without the chat's name: the entry's own line for one
    (with its `kind`, unless told not to: a line that says more needs the room), counts for
    several, each file counted once (`added 12 files, 4 refreshed, 1 already up to date`)."""
    if len(after) == 1:
        label = f"{added_verb(before[0], after[0])} {shown(after[0].label())}"
        return f"{label} ({after[0].kind})" if kind else label
    verbs = [added_verb(was, entry) for was, entry in zip(before, after, strict=True)]
    said: list[str] = []
    for verb in ("added", "refreshed", "already up to date:"):
        these = [entry for v, entry in zip(verbs, after, strict=True) if v == verb]
        what = verb.rstrip(":")
        if not these:
            continue
        if said:
            said.append(f"{len(these)} {what}")
        elif verb == "already up to date:":
            said.append(f"{_counted(these)} {what}")
        else:
            said.append(f"{what} {_counted(these)}")
    return ", ".join(said)


def _counted(entries: list[ContextEntry]) -> str:
    """`2 files`, `2 sections`, `1 file and 2 sections`."""
    sections = sum(entry.kind == SECTION for entry in entries)
    files = len(entries) - sections
    counts = [plural(files, "file")] if files else []
    counts += [plural(sections, "section")] if sections else []
    return " and ".join(counts)


def skipped_summary(skipped: list[tuple[Target, str]], shown: Callable[[str], str]) -> str:
    """What adding left out, to open its line: `skipped .bb7/instructions (bb7's own)`, ''
    when nothing was."""
    if not skipped:
        return ""
    each = ", ".join(f"{shown(target.path)} ({why})" for target, why in skipped)
    return f"skipped {each}" if len(skipped) == 1 else f"skipped {len(skipped)}: {each}"


def _add(
    store: Store,
    chat_id: str,
    target: Target,
    readonly: bool,
    text: str | None,
    base: Path | None,
    max_bytes: int,
) -> ContextEntry | Problem:
    where = resolve(store, target.path, base)
    if isinstance(where, Problem):
        return where
    path = where.path
    if not where.external and store.root is not None:
        checked = readable(store.root, path, load_ignore(store.root), named=True)
        if isinstance(checked, PathProblem):
            return from_path(checked)
    is_section = bool(target.start or target.end)
    image = not is_section and is_image_name(path)
    if image:
        content = _image_content(store, path)
    else:
        content = _snapshot_text(store, path, text, max_bytes, is_section)
    if isinstance(content, Problem):
        return content
    if image:
        kind = IMAGE
    elif is_section:
        kind = SECTION
        content = _section(content, target.start, target.end, target.path)
        if isinstance(content, str):
            content = _fits(content, f"{target.path}:{target.start}-{target.end}", max_bytes)
        if isinstance(content, Problem):
            return content
    elif where.external:
        kind = EXTERNAL
    else:
        kind = READONLY if readonly else WRITABLE
    there = store.entry(chat_id, path, target.start, target.end)
    if there is not None:
        if there.kind == kind:
            buffers = None if text is None else {path: LocalText(text)}
            return _update(store, chat_id, there, buffers, max_bytes, confirmed=True)
        return Problem(
            "exists",
            f"{there.label()} is already in the context as {there.kind}; "
            "toggle read-only instead of adding it again",
        )
    facts = ENTRY_KINDS[kind]
    output = store.output(chat_id, path) if facts.whole_file else None
    if output is not None and not facts.writable:
        return Problem(
            "pending_output",
            f"{path} has a pending file from the model; apply or discard it before adding it "
            "read-only",
        )
    entry = ContextEntry(
        path=path,
        kind=kind,
        blob=store.put_blob(content),
        file_id=entry_file_id(path, content, target.start, target.end),
        start_line=target.start,
        end_line=target.end,
    )
    store.put_entry(chat_id, entry)
    if output is not None and output.added:
        # The model's new file now has a snapshot to be compared with: it becomes a change.
        store.put_output(
            chat_id, msgspec.structs.replace(output, added=False, base_file_id=entry.file_id)
        )
    store.append_event(chat_id, Event.added_entry(entry))
    return entry


def add_part(
    store: Store, chat_id: str, kind: EntryKind, name: str, text: str
) -> ContextEntry | Problem:
    """Add a live part (`bb7.live`) under its `name` with the `text` read now; adding it again
    reads it again."""
    with store.transaction():
        there = store.entry(chat_id, name)
        if there is not None and there.kind != kind:
            return Problem("exists", f"{name} is already in the context as {there.kind}")
        entry = _part_entry(store, kind, name, text)
        store.put_entry(chat_id, entry)
        if there is None:
            store.append_event(chat_id, Event.added_entry(entry))
        return entry


def follow_parts(store: Store, chat_id: str, texts: Mapping[str, str]) -> list[str]:
    """At a send: each live part whose name `texts` has takes that text (read again now); the
    names whose text changed. No event: the model sees the change as the part's diff since
    the version it saw, as for a file."""
    changed: list[str] = []
    with store.transaction():
        for entry in store.entries(chat_id):
            text = texts.get(entry.path)
            if entry.facts.of_file or text is None:
                continue
            new = _part_entry(store, entry.kind, entry.path, text)
            if new.file_id != entry.file_id:
                store.put_entry(chat_id, new)
                changed.append(entry.path)
    return changed


def _part_entry(store: Store, kind: EntryKind, name: str, text: str) -> ContextEntry:
    return ContextEntry(
        path=name, kind=kind, blob=store.put_blob(text), file_id=entry_file_id(name, text)
    )


def add_image(store: Store, chat_id: str, name: str, data: bytes) -> ContextEntry | Problem:
    """Add an image that has no file (the clipboard's) under `name`."""
    image = image_from_bytes(data, name)
    if not isinstance(image, Image):
        return from_file(image)
    content = image.data_url()
    entry = ContextEntry(path=name, kind=IMAGE, blob="", file_id=entry_file_id(name, content))
    with store.transaction():
        if store.entry(chat_id, name, 0, 0) is not None:
            return Problem("exists", f"{name} is already in the context")
        entry = msgspec.structs.replace(entry, blob=store.put_blob(content))
        store.put_entry(chat_id, entry)
        store.append_event(chat_id, Event.added_entry(entry))
    return entry


def _image_content(store: Store, path: str) -> str | Problem:
    """An image file as it is stored: its data URL."""
    image = read_image(local_file(store, path), path)
    if not isinstance(image, Image):
        return from_file(image, "check the path" if image.kind == "missing" else None)
    return image.data_url()


def _find(store: Store, chat_id: str, target: Target, base: Path | None) -> ContextEntry | Problem:
    where = resolve(store, target.path, base)
    if isinstance(where, Problem):
        return where
    entry = store.entry(chat_id, where.path, target.start, target.end)
    if entry is None:
        label = where.path + (f":{target.start}-{target.end}" if target.start else "")
        return Problem("not_in_context", f"{label} is not in this chat's context")
    return entry


def remove(
    store: Store, chat_id: str, target: Target, *, base: Path | None = None
) -> ContextEntry | Problem:
    """Drop an entry (its snapshots stay in the store for the history)."""
    with store.transaction():
        entry = _find(store, chat_id, target, base)
        if isinstance(entry, Problem):
            return entry
        if entry.facts.writable and store.output(chat_id, entry.path) is not None:
            return Problem(
                "pending_output",
                f"{entry.path} has a pending change from the model; apply or discard it first",
            )
        store.delete_entry(chat_id, entry.path, entry.start_line, entry.end_line)
        store.append_event(chat_id, Event.removed(entry))
        return entry


def update(
    store: Store,
    chat_id: str,
    target: Target,
    *,
    buffers: Buffers | None = None,
    base: Path | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ContextEntry | Problem:
    """Re-snapshot a whole file from its local copy (buffer text if given, else disk).

    A pending output is carried over onto the new snapshot (three-way merge), so applying it
    later keeps the local edits; when the two change the same lines the update is refused.
    """
    try:
        with store.transaction():
            entry = _find(store, chat_id, target, base)
            if isinstance(entry, Problem):
                return entry
            return _update(store, chat_id, entry, buffers, max_bytes)
    except Abort as abort:
        return abort.problem


def update_all(
    store: Store,
    chat_id: str,
    *,
    buffers: Buffers | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    followed: bool = False,
) -> list[tuple[str, ContextEntry | Problem]]:
    """Update every whole file whose local text is out of sync, as one action; a file that
    cannot be updated is reported and left as it was, the others are updated. `followed` (at
    a send, see `follow_edits`): sections too, each from its lines of the file, and the events
    say the update followed the user's edits."""
    results: list[tuple[str, ContextEntry | Problem]] = []
    with store.transaction():
        for entry in store.entries(chat_id):
            facts = entry.facts
            # A live part follows at a send too, but from what the caller read (`follow_parts`).
            if not facts.of_file or not (facts.follows_edits if followed else facts.drifts):
                continue
            local = _local_text(store, entry, buffers, max_bytes)
            text = local if isinstance(local, str) else None
            if same_text(text, store.blob(entry.blob)):
                continue
            try:
                with store.savepoint():
                    got = _update(store, chat_id, entry, buffers, max_bytes, followed=followed)
                    results.append((entry.label(), got))
            except Abort as abort:
                results.append((entry.label(), abort.problem))
    return results


def follow_edits(
    store: Store,
    chat_id: str,
    *,
    buffers: Buffers | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> list[tuple[str, ContextEntry | Problem]]:
    """At a send: bring every context file and section whose local text (the buffer, unsaved
    edits included, else the disk) differs from the chat's snapshot up to date, so the model
    is shown the user's edits (as a diff against the version it saw, see `bb7.prompt.assemble`).
    A pending change is carried over onto the user's text; one that cannot be (the two change
    the same lines), or a file that is gone, is reported and left as it was."""
    return update_all(store, chat_id, buffers=buffers, max_bytes=max_bytes, followed=True)


def text_now(store: Store, entry: ContextEntry, buffers: Buffers | None = None) -> str | None:
    """The text a fresh snapshot of `entry` takes (a new chat with the same context): None
    where the path may no longer be read (`_still_readable`), cannot be read, or now holds
    what looks like a secret that the text the user chose did not."""
    text = _local_text(store, entry, buffers, DEFAULT_MAX_BYTES)
    if isinstance(text, Problem):
        return None
    where = os.path.realpath(local_file(store, entry.path))
    return None if new_secret(where, text, entry.path, store.blob(entry.blob)) else text


def _local_text(
    store: Store, entry: ContextEntry, buffers: Buffers | None, max_bytes: int
) -> str | Problem:
    """The entry's text as the user has it now: the file's, or the section's lines of it (an
    image's data URL); never read where the path no longer may lead (see `_still_readable`)."""
    if not entry.facts.of_file:
        return Problem("live", f"{entry.path} is read again at each send, not by hand")
    moved = _still_readable(store, entry)
    if moved is not None:
        return moved
    if entry.facts.sent_as == "image":
        return _image_content(store, entry.path)
    ranged = bool(entry.start_line)
    limit = SECTION_SOURCE_MAX_BYTES if ranged else max_bytes
    local = read_local(store, entry.path, buffers, max_bytes=limit)
    if isinstance(local, FileProblem):
        return _file_problem(local, max_bytes)
    if not ranged:
        return local.text
    return _section(local.text, entry.start_line, entry.end_line, entry.label())


def _still_readable(store: Store, entry: ContextEntry) -> Problem | None:
    """Why the entry's path may no longer be read (`bb7.files.guard`): a checkout or a pull
    swapped it for a symlink that leads out of the project (or, for an external file, away
    from the file the user named), into `.git`/`.bb7`, or into what `.bb7/ignore` leaves out."""
    if os.path.isabs(entry.path):
        moved = still_itself(entry.path)
        return None if moved is None else Problem("outside_root", moved)
    if store.root is None:
        return None
    checked = readable(store.root, entry.path, load_ignore(store.root), named=True)
    if not isinstance(checked, PathProblem):
        return None
    return Problem(checked.kind, f"{entry.path} {in_short(checked)} now")


def _update(
    store: Store,
    chat_id: str,
    entry: ContextEntry,
    buffers: Buffers | None,
    max_bytes: int,
    *,
    followed: bool = False,
    confirmed: bool = False,
) -> ContextEntry:
    """The update itself, inside the caller's transaction; Abort rolls back its rows. A
    section is cut again from the same lines of the file. `confirmed`: the user was asked
    about a secret (adding again), so text that looks like one is taken."""
    text = _local_text(store, entry, buffers, max_bytes)
    if isinstance(text, Problem):
        raise Abort(text)
    old = store.blob(entry.blob)
    if text == old:
        return entry
    if not confirmed:
        where = os.path.realpath(local_file(store, entry.path))
        secret = new_secret(where, text, entry.path, old)
        if secret is not None:
            raise Abort(
                Problem(
                    "secret",
                    f"{entry.label()} looks like a secret now ({secret}); adding it again asks "
                    "first",
                )
            )
    if entry.start_line:  # the lines cut from a larger file must fit the limit themselves
        fits = _fits(text, entry.label(), max_bytes)
        if isinstance(fits, Problem):
            raise Abort(fits)
    new = msgspec.structs.replace(
        entry,
        blob=store.put_blob(text),
        file_id=entry_file_id(entry.path, text, entry.start_line, entry.end_line),
    )
    output = store.output(chat_id, entry.path) if entry.facts.whole_file else None
    if output is not None and not same_text(old, text):
        problem = rebase_output(store, chat_id, output, old, new, prefer_output=False)
        if problem is not None:
            raise Abort(problem)
    elif output is not None:
        store.put_output(chat_id, msgspec.structs.replace(output, base_file_id=new.file_id))
    store.put_entry(chat_id, new)
    store.append_event(chat_id, Event.updated(entry, new, followed=followed))
    return new


def set_readonly(
    store: Store, chat_id: str, target: Target, readonly: bool, *, base: Path | None = None
) -> ContextEntry | Problem:
    """Toggle a whole project file between writable and read-only."""
    with store.transaction():
        entry = _find(store, chat_id, target, base)
        if isinstance(entry, Problem):
            return entry
        if not entry.facts.toggles:
            return Problem(
                "always_readonly", f"{entry.label()} is a {entry.kind}, always read-only"
            )
        if entry.readonly == readonly:
            return entry
        if readonly and store.output(chat_id, entry.path) is not None:
            return Problem(
                "pending_output",
                f"{entry.path} has a pending change; apply or discard it before making it "
                "read-only",
            )
        new = msgspec.structs.replace(entry, kind=READONLY if readonly else WRITABLE)
        store.put_entry(chat_id, new)
        store.append_event(chat_id, Event.set_readonly(entry, readonly))
        return new
