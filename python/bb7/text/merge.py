"""Three-way line merges: the one line diff3 (`chunks`) and what is built on it, as pure
functions of texts (no store, no I/O).

`chunks(base, local, output)` classifies the stretches where the snapshot (`base`), the user's
local text and the model's pending output do not all agree. On it: `plan_merge` (`:BB7Merge`
and `bb7 output apply --merge`) takes changes on one side only, equal changes once, and leaves
overlapping changes pending (never guessed, never conflict markers); `merge3` writes overlaps
as standard conflict regions (or the output's side, with `prefer_output`, to carry a pending
change over to a new snapshot); `outcomes` says what became of each of the model's hunks once
the user acted; the inline review's hunks (`bb7.text.hunks`) are its chunks too. Lines compare
without their line endings, and lines taken from the output follow the local text's
line-ending style, so a CRLF checkout never looks like a conflict everywhere. Not here: the
merges that change a chat's snapshot and pending output (`bb7.state.merge`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Literal

import msgspec

from bb7.text.lines import split_lines

LOCAL_MARKER = "<<<<<<< local"
SEPARATOR = "======="
OUTPUT_MARKER = ">>>>>>> output"


class Merge3(msgspec.Struct, frozen=True):
    text: str
    conflicts: int


def _key(line: str) -> str:
    return line.rstrip("\r\n")


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
        self.local = split_lines(local, keepends=True)
        self.eol = _eol(local) if local else _eol(output)
        self.base = self._styled(base)
        self.output = self._styled(output)
        self.chunks = chunks(self.base, self.local, self.output)

    def _styled(self, text: str) -> list[str]:
        lines = split_lines(text, keepends=True)
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


def common_ends(before: list[str], after: list[str]) -> tuple[int, int]:
    """How many first lines and how many last lines (not overlapping them) the two share."""
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return head, tail


def line_change(before: list[str], after: list[str]) -> str:
    """A hunk's change as the model reads it: the lines that differ (common first and last
    lines left out), `-` before and `+` after, each line ending in a newline."""
    head, tail = common_ends(before, after)
    removed = before[head : len(before) - tail]
    added = after[head : len(after) - tail]
    return "".join(f"-{line}\n" for line in removed) + "".join(f"+{line}\n" for line in added)


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


def describe_lines(spans: list[tuple[int, int]]) -> str:
    """`line 9`, `lines 3-5`, `lines 3-5, 9, after 12`, `after line 12` for 1-based (first,
    last) spans (last < first: nothing, an insertion after first - 1)."""
    parts = []
    for first, last in spans:
        if last < first:
            parts.append(f"after {first - 1}" if first > 1 else "at the top")
        else:
            parts.append(str(first) if first == last else f"{first}-{last}")
    if len(parts) == 1 and parts[0][0].isalpha():
        return parts[0].replace("after ", "after line ")
    word = "line" if len(parts) == 1 and parts[0].isdigit() else "lines"
    return f"{word} {', '.join(parts)}"


def _terminated(lines: list[str], eol: str) -> list[str]:
    """Lines each ending in a newline (a last line without one gets `eol`)."""
    return [line if line != _key(line) else line + eol for line in lines]
