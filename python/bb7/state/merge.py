"""Three-way merges of a pending output with the user's local edits, and finishing a vimdiff merge.

`chunks(base, local, output)` is the one line-based diff3. On it: `plan_merge` (`:BB7Merge` and
`bb7 output apply --merge`) takes changes on one side only, equal changes once, and leaves
overlapping changes pending (never guessed, never conflict markers); `merge3` writes overlaps as
standard conflict regions (or the output's side, with `prefer_output`, to carry a pending change
over to a new snapshot); the inline review's hunks (`bb7.review`) are its chunks too.
Lines compare without their line endings, and lines taken from the output follow the local
file's line-ending style, so a CRLF checkout never looks like a conflict everywhere.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from typing import Literal

import msgspec

from bb7.fileid import entry_file_id
from bb7.state.local import Buffers, read_local, same_text, text_of
from bb7.state.records import WRITABLE, ContextEntry, Event, PendingOutput, Problem
from bb7.state.store import Store
from bb7.text.words import plural

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


def split_lines(text: str) -> list[str]:
    """Lines split at LF only, ends kept (CR, form feeds and the like stay inside lines, as
    in an editor buffer, so line numbers here are the buffer's)."""
    if not text:
        return []
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _eol(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _restyle(lines: list[str], eol: str) -> list[str]:
    return [_key(line) + eol if line != _key(line) else line for line in lines]


class Chunk(msgspec.Struct, frozen=True):
    """A stretch where base, local and output do not all agree; half-open 0-based line ranges.

    `kind`: `output` (only the model changed it), `local` (only the user), `same` (both, alike)
    or `overlap` (both, differently: never merged without the user)."""

    kind: str
    base: tuple[int, int]
    local: tuple[int, int]
    output: tuple[int, int]


# Above this many line pairs the bit-parallel LCS would need too much memory (its matrix is
# len(a) * len(b) / 64 words); difflib is slower but small.
_LCS_LIMIT = 100_000_000


def matching_blocks(a: list[str], b: list[str]) -> list[tuple[int, int, int]]:
    """Lines a and b share, as (a_start, b_start, size) blocks ending with a size-0 sentinel:
    a longest common subsequence (rapidfuzz, ~1 ms for 2,000 lines where difflib takes ~1 s)."""
    if len(a) * len(b) > _LCS_LIMIT:
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        return [(m.a, m.b, m.size) for m in matcher.get_matching_blocks()]
    # Imported here: rapidfuzz costs ~30 ms, which the host's cold start should not pay.
    from rapidfuzz.distance import Indel

    blocks = Indel.opcodes(a, b).as_matching_blocks()
    return [(m.a, m.b, m.size) for m in blocks]


def _sync_regions(base: list[str], a: list[str], b: list[str]) -> list[tuple[int, ...]]:
    """Stretches of base unchanged in both a and b: (base_start, base_end, a_start, a_end, ...)."""
    amatches = matching_blocks(base, a)
    bmatches = matching_blocks(base, b)
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


def chunks(base: list[str], local: list[str], output: list[str]) -> list[Chunk]:
    """The stretches between the lines all three versions share, classified (lines compare
    without their line endings). The one diff3 of bb7: merges, review hunks and signs."""
    keys_o = [_key(x) for x in base]
    keys_a = [_key(x) for x in local]
    keys_b = [_key(x) for x in output]
    out: list[Chunk] = []
    o0 = a0 = b0 = 0
    for o1, o2, a1, a2, b1, b2 in _sync_regions(keys_o, keys_a, keys_b):
        chunk_o, chunk_a, chunk_b = keys_o[o0:o1], keys_a[a0:a1], keys_b[b0:b1]
        if chunk_o or chunk_a or chunk_b:
            if chunk_a == chunk_b:
                kind = "same" if chunk_a != chunk_o else ""
            elif chunk_b == chunk_o:
                kind = "local"
            elif chunk_a == chunk_o:
                kind = "output"
            else:
                kind = "overlap"
            if kind:
                out.append(Chunk(kind, (o0, o1), (a0, a1), (b0, b1)))
        o0, a0, b0 = o2, a2, b2
    return out


def _assemble(
    local: list[str], found: list[Chunk], pick: Callable[[Chunk], list[str]], eol: str
) -> str:
    """The local lines with each chunk replaced by `pick(chunk)`, every line but the last
    terminated (a last line without a newline stays so)."""
    out: list[str] = []
    at = 0
    for chunk in found:
        out += local[at : chunk.local[0]]
        out += pick(chunk)
        at = chunk.local[1]
    out += local[at:]
    return "".join(_terminated(out[:-1], eol) + out[-1:])


class _Sides:
    """The three versions split into lines, output lines in the local line-ending style."""

    def __init__(self, base: str, local: str, output: str) -> None:
        self.local = split_lines(local)
        self.eol = _eol(local) if local else _eol(output)
        self.base = self._styled(base)
        self.output = self._styled(output)
        self.chunks = chunks(self.base, self.local, self.output)

    def _styled(self, text: str) -> list[str]:
        lines = split_lines(text)
        return _restyle(lines, self.eol) if _eol(text) != self.eol else lines

    def side(self, chunk: Chunk, name: str) -> list[str]:
        lines: list[str] = getattr(self, name)
        start, end = getattr(chunk, name)
        return lines[start:end]


def merge3(base: str, local: str, output: str, *, prefer_output: bool = False) -> Merge3:
    """Merge the changes base→local and base→output; see the module docstring."""
    sides = _Sides(base, local, output)
    eol = sides.eol
    overlaps = sum(c.kind == "overlap" for c in sides.chunks)

    def pick(chunk: Chunk) -> list[str]:
        if chunk.kind == "output" or (chunk.kind == "overlap" and prefer_output):
            return sides.side(chunk, "output")
        if chunk.kind != "overlap":
            return sides.side(chunk, "local")
        return [
            LOCAL_MARKER + eol,
            *_terminated(sides.side(chunk, "local"), eol),
            SEPARATOR + eol,
            *_terminated(sides.side(chunk, "output"), eol),
            OUTPUT_MARKER + eol,
        ]

    text = _assemble(sides.local, sides.chunks, pick, eol)
    return Merge3(text=text, conflicts=0 if prefer_output else overlaps)


def overlapping(base: str, local: str, output: str) -> bool:
    """Whether the user's edits (base→local) and the model's (base→output) touch the same
    lines: only then is a pending change a conflict; otherwise it rebases onto the edits."""
    return any(chunk.kind == "overlap" for chunk in _Sides(base, local, output).chunks)


class Outcome(msgspec.Struct, frozen=True):
    """What became of one hunk of the model's proposal after the user acted on it: `taken`
    as proposed, `amended` (other lines taken there instead), or `left` (not taken). `lines`:
    its 1-based lines (first, last) in the proposal, or for a deletion (`in_output` False) in
    the base; `proposed` and `taken` its lines without line endings."""

    kind: Literal["taken", "amended", "left"]
    lines: tuple[int, int]
    in_output: bool
    proposed: list[str]
    taken: list[str]


_OUTCOMES: dict[str, Literal["taken", "amended", "left"]] = {
    "same": "taken",
    "overlap": "amended",
    "output": "left",
}


def outcomes(base: str, output: str, taken: str) -> list[Outcome]:
    """Each hunk of the change base→output, classified by the text the user made of `base`
    (`taken`: the new snapshot); the user's own changes elsewhere are not the model's hunks."""
    sides = _Sides(base, taken, output)
    found: list[Outcome] = []
    for chunk in sides.chunks:
        kind = _OUTCOMES.get(chunk.kind)
        if kind is None:
            continue
        in_output = chunk.output[1] > chunk.output[0]
        span = chunk.output if in_output else chunk.base
        found.append(
            Outcome(
                kind=kind,
                lines=(span[0] + 1, span[1]),
                in_output=in_output,
                proposed=[_key(x) for x in sides.side(chunk, "output")],
                taken=[_key(x) for x in sides.side(chunk, "local")],
            )
        )
    return found


def amendment(proposed: list[str], taken: list[str]) -> str:
    """How the user changed a hunk's lines: the differing middle, `-` proposed, `+` taken."""
    head = 0
    while head < min(len(proposed), len(taken)) and proposed[head] == taken[head]:
        head += 1
    tail = 0
    while tail < min(len(proposed), len(taken)) - head and proposed[-1 - tail] == taken[-1 - tail]:
        tail += 1
    removed = proposed[head : len(proposed) - tail]
    added = taken[head : len(taken) - tail]
    return "".join(f"-{line}\n" for line in removed) + "".join(f"+{line}\n" for line in added)


def taken_events(
    output: PendingOutput,
    proposal: str,
    entry: ContextEntry | None,
    base: str,
    taken: str,
    *,
    amended: bool = True,
) -> list[Event]:
    """What the user took of a proposal (`output`, whose text is `proposal`, over the snapshot
    `base` of `entry`) into the new snapshot `taken`, for the model: one event per hunk taken
    as proposed or (with `amended`) amended; none when all of it was taken as proposed (the
    apply says so). Without `amended`, a hunk taken differently is one left pending (a
    merge keeps the model's version of such lines pending)."""
    found = outcomes(base, proposal, taken)
    if all(o.kind == "taken" for o in found):
        return []
    events = []
    for o in found:
        if o.kind == "left" or (o.kind == "amended" and not amended):
            continue
        named = output.file_id if o.in_output or entry is None else entry.file_id
        diff = amendment(o.proposed, o.taken) if o.kind == "amended" else ""
        events.append(Event.taken_hunk(output.path, named, o.lines[0], o.lines[1], diff))
    return events


class MergePlan(msgspec.Struct, frozen=True):
    """A merge that leaves overlaps pending: `local` takes every change of the model that
    does not overlap the user's, `base` and `output` are the new snapshot and pending output
    (equal to `local` except in the overlaps), `overlaps` the 1-based local lines of each
    overlap (first, last; last = first - 1 for an empty local side)."""

    local: str
    base: str
    output: str
    overlaps: list[tuple[int, int]]


def plan_merge(base: str, local: str, output: str) -> MergePlan:
    """Three-way merge of snapshot, local text and pending output (`:BB7Merge`, `bb7 output
    apply --merge`): clean changes are taken, overlaps are never guessed."""
    sides = _Sides(base, local, output)

    def build(overlap_side: str) -> str:
        def pick(chunk: Chunk) -> list[str]:
            if chunk.kind == "overlap":
                return sides.side(chunk, overlap_side)
            return sides.side(chunk, "output" if chunk.kind == "output" else "local")

        return _assemble(sides.local, sides.chunks, pick, sides.eol)

    overlaps = [(c.local[0] + 1, c.local[1]) for c in sides.chunks if c.kind == "overlap"]
    return MergePlan(
        local=build("local"), base=build("base"), output=build("output"), overlaps=overlaps
    )


class Merged(msgspec.Struct, frozen=True):
    """A `merge_output`: `overlaps` (1-based local lines) stay pending, the rest is merged."""

    path: str
    overlaps: list[tuple[int, int]]


def merge_output(
    store: Store,
    chat_id: str,
    path: str,
    buffers: Buffers | None,
    write: Callable[[str], None],
) -> Merged | Problem:
    """Merge the pending output of `path` into the local text (`write` puts it where the user
    sees it: the buffer, or the file for the CLI; an OSError undoes everything). The snapshot
    and pending output move on with it, so what stays pending is exactly the overlaps."""
    try:
        return _merge_output(store, chat_id, path, buffers, write)
    except OSError as exc:
        return Problem("write_failed", f"could not merge {path}: {exc.strerror or exc}")


def _merge_output(
    store: Store, chat_id: str, path: str, buffers: Buffers | None, write: Callable[[str], None]
) -> Merged | Problem:
    with store.transaction():
        output = store.output(chat_id, path)
        if output is None:
            return Problem("no_output", f"{path} has no pending change to merge")
        entry = store.entry(chat_id, path)
        if entry is None:
            return Problem("new_file", f"{path} is a new file: nothing to merge it with")
        if entry.kind != WRITABLE:
            return Problem("readonly", f"{path} is read-only in this chat")
        local = text_of(read_local(store, path, buffers))
        if local is None:
            return Problem("missing", f"{path} is missing locally: nothing to merge into")
        base, proposal = store.blob(entry.blob), store.blob(output.blob)
        plan = plan_merge(base, local, proposal)
        new_entry = msgspec.structs.replace(
            entry, blob=store.put_blob(plan.base), file_id=entry_file_id(path, plan.base)
        )
        store.put_entry(chat_id, new_entry)
        if same_text(plan.output, plan.base):
            store.delete_output(chat_id, path)
        else:
            store.put_output(
                chat_id,
                msgspec.structs.replace(
                    output,
                    blob=store.put_blob(plan.output),
                    file_id=entry_file_id(path, plan.output),
                    base_file_id=new_entry.file_id,
                ),
            )
        store.append_event(
            chat_id,
            Event.applied(new_entry, entry, partly=bool(plan.overlaps)),
        )
        for event in taken_events(output, proposal, entry, base, plan.base):
            store.append_event(chat_id, event)
        if not same_text(plan.local, local):
            store.push_undo(
                chat_id,
                path,
                prev_local=store.put_blob(local),
                written=store.put_blob(plan.local),
                prev_entry=entry,
                prev_output=output,
            )
            write(plan.local)
        return Merged(path, plan.overlaps)


def describe_lines(spans: list[tuple[int, int]]) -> str:
    """`3-5, 9, after 12` for 1-based (first, last) spans (last < first: nothing, an insertion
    after first - 1)."""
    parts = []
    for first, last in spans:
        if last < first:
            parts.append(f"after {first - 1}" if first > 1 else "at the top")
        else:
            parts.append(str(first) if first == last else f"{first}-{last}")
    return ", ".join(parts)


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
            f"({plural(merged.conflicts, 'region')}); merge them first or discard the output",
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
        new_entry = ContextEntry.taken(path, store.put_blob(local), local, entry)
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
        if snapshot is not None:
            for taken in taken_events(output, out_text, entry, snapshot, local, amended=False):
                store.append_event(chat_id, taken)
        return MergeOutcome(path, "full" if full else "partial")
