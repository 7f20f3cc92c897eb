"""The inline review of a pending change, hunk by hunk, as pure functions of three texts.

A hunk is one change the model made (snapshot -> pending output) placed on the user's local
text (the buffer): the three-way chunks of `bb7.state.merge` whose output side differs from the
snapshot. Accepting a hunk puts its new lines into the local text and into the snapshot (so the
pending change keeps only the other hunks); rejecting one puts the snapshot's lines back into
the pending output. The user's own edits are never hunks: they are the `local` chunks, marked
apart (`marks`). Not here: the store (`bb7.state.review`) and drawing (`lua/bb7/review.lua`).
"""

from __future__ import annotations

import msgspec

from bb7.state.merge import Chunk, chunks, split_lines


class Hunk(msgspec.Struct, frozen=True):
    """One hunk as the editor draws it, in 0-based lines of the local text.

    `start`/`removed`: the local lines the hunk replaces (`removed` may be 0: an insertion
    before line `start`); `added`: the new lines (without line endings); `overlap`: the user
    changed these lines too (accepting replaces their edit).
    """

    start: int
    removed: int
    added: list[str]
    overlap: bool = False


class Marks(msgspec.Struct, frozen=True):
    """1-based local lines the model's pending change touches, and lines the user changed
    (vs the snapshot). An insertion or deletion marks the line it follows (line 1 first)."""

    model: list[int]
    user: list[int]


class Split(msgspec.Struct, frozen=True):
    """The new texts after accepting or rejecting one hunk: `base` (snapshot), `local` and
    `output`; `lines` the hunk's lines in the version it names (`in_output`: the pending
    output before the change, else the snapshot), for telling the model what was rejected."""

    base: str
    local: str
    output: str
    lines: tuple[int, int]
    in_output: bool


class _Review:
    def __init__(self, base: str, local: str, output: str) -> None:
        self.base = split_lines(base)
        self.local = split_lines(local)
        self.output = split_lines(output)
        self.chunks = chunks(self.base, self.local, self.output)
        self.model = [c for c in self.chunks if c.kind in ("output", "overlap")]


def _plain(line: str) -> str:
    return line.rstrip("\r\n")


def hunks(base: str, local: str, output: str) -> list[Hunk]:
    """The model's hunks on the local text, top to bottom."""
    review = _Review(base, local, output)
    return [
        Hunk(
            start=c.local[0],
            removed=c.local[1] - c.local[0],
            added=[_plain(x) for x in review.output[c.output[0] : c.output[1]]],
            overlap=c.kind == "overlap",
        )
        for c in review.model
    ]


def _touched(chunk: Chunk, count: int) -> range:
    start, end = chunk.local
    if start == end:
        line = min(max(start, 1), max(count, 1))
        return range(line, line + 1)
    return range(start + 1, end + 1)


def marks(base: str | None, local: str | None, output: str | None) -> Marks:
    """Where the editor's signs go: the model's lines and the user's, never mixed up."""
    if base is None or local is None:
        return Marks([], [])
    review = _Review(base, local, output if output is not None else base)
    count = len(review.local)
    model: set[int] = set()
    user: set[int] = set()
    for chunk in review.chunks:
        (model if chunk in review.model else user).update(_touched(chunk, count))
    return Marks(sorted(model), sorted(user - model))


def _replace(lines: list[str], span: tuple[int, int], new: list[str]) -> str:
    """`lines` with `span` replaced by `new`; a line that ends up before others gets a newline."""
    eol = "\r\n" if any(x.endswith("\r\n") for x in lines) else "\n"
    out = lines[: span[0]] + [_plain(x) + eol if x.endswith("\n") else x for x in new]
    out += lines[span[1] :]
    return "".join(x if x.endswith("\n") else x + eol for x in out[:-1]) + "".join(out[-1:])


def _find(base: str, local: str, output: str, hunk: Hunk) -> tuple[_Review, Chunk] | None:
    """The texts' review and the chunk a hunk the editor drew stands for, if they still
    give it."""
    review = _Review(base, local, output)
    for chunk in review.model:
        start, end = chunk.local
        added = [_plain(x) for x in review.output[chunk.output[0] : chunk.output[1]]]
        if (start, end - start, added) == (hunk.start, hunk.removed, hunk.added):
            return review, chunk
    return None


def accept(base: str, local: str, output: str, hunk: Hunk) -> Split | None:
    """Take one hunk: its new lines replace its local lines and its snapshot lines (None when
    the texts no longer have that hunk)."""
    found = _find(base, local, output, hunk)
    if found is None:
        return None
    review, chunk = found
    new = review.output[chunk.output[0] : chunk.output[1]]
    return Split(
        base=_replace(review.base, chunk.base, new),
        local=_replace(review.local, chunk.local, new),
        output=output,
        lines=(chunk.output[0] + 1, chunk.output[1]),
        in_output=True,
    )


def reject(base: str, local: str, output: str, hunk: Hunk) -> Split | None:
    """Drop one hunk from the pending output: the snapshot's lines come back there (None when
    the texts no longer have that hunk)."""
    found = _find(base, local, output, hunk)
    if found is None:
        return None
    review, chunk = found
    new = review.base[chunk.base[0] : chunk.base[1]]
    added = chunk.output[1] > chunk.output[0]
    lines = chunk.output if added else chunk.base
    return Split(
        base=base,
        local=local,
        output=_replace(review.output, chunk.output, new),
        lines=(lines[0] + 1, lines[1]),
        in_output=added,
    )
