"""The inline review of a pending change, hunk by hunk, as pure functions of three texts.

A hunk is one change the model made (snapshot -> pending output) placed on the user's local
text (the buffer): the three-way chunks of `bb7.text.merge` whose output side differs from the
snapshot. Accepting a hunk puts its new lines into the local text and into the snapshot (so the
pending change keeps only the other hunks); rejecting one puts the snapshot's lines back into
the pending output. The user's own edits are never hunks: they are the `local` chunks, marked
apart (`marks`). Not here: the store (`bb7.state.review`) and drawing (`lua/bb7/review.lua`).

A change already applied (an agent wrote the file itself: `before` its turn -> `after`) is
reviewed the other way round (`applied_hunks`): its hunks are where the local text still
carries what it wrote; keeping one takes it into `before`, rejecting one puts the lines from
before back into the local text (and into `after`).
"""

from __future__ import annotations

import msgspec

from bb7.text.lines import split_lines
from bb7.text.merge import Chunk, chunks, common_ends, line_change, matching_blocks


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
    # A change already applied (`applied_hunks`): `start`/`removed` are the local lines it
    # wrote, `added` the lines before it, which rejecting the hunk puts back.
    applied: bool = False
    # One place of an edit waiting for the user's choice (`bb7.state.choices`): the choice's
    # id, and which of its `places` (1-based) this hunk would take; 0 for any other hunk.
    choice: int = 0
    place: int = 0
    places: int = 0


class Marks(msgspec.Struct, frozen=True):
    """1-based local lines the model's pending change touches, and lines the user changed
    (vs the snapshot). An insertion or deletion marks the line it follows (line 1 first)."""

    model: list[int]
    user: list[int]


class Split(msgspec.Struct, frozen=True):
    """The new texts after accepting or rejecting one hunk: `base` (snapshot), `local` and
    `output`; `lines` the hunk's lines in the version it names (`in_output`: the pending
    output before the change, else the snapshot), and for a rejected hunk its `change` (`-`
    the lines kept, `+` the model's, `bb7.text.merge.line_change`), for telling the model
    what was rejected."""

    base: str
    local: str
    output: str
    lines: tuple[int, int]
    in_output: bool
    change: str = ""


class _Review:
    def __init__(self, base: str, local: str, output: str, *, applied: bool = False) -> None:
        self.base = split_lines(base, keepends=True)
        self.local = split_lines(local, keepends=True)
        self.output = split_lines(output, keepends=True)
        self.chunks = chunks(self.base, self.local, self.output)
        # An applied change's hunks are those the local text has as written (`same`), or
        # edited since (`overlap`); a pending change's those it does not have yet.
        kinds = ("same", "overlap") if applied else ("output", "overlap")
        self.model = [c for c in self.chunks if c.kind in kinds]


def _plain(line: str) -> str:
    return line.rstrip("\r\n")


def _added(review: _Review, chunk: Chunk) -> list[str]:
    """A chunk's new lines as the buffer holds them: without line endings, and without the
    BOM of the text's first line (a buffer keeps it in 'bomb', not in its text)."""
    added = [_plain(x) for x in review.output[chunk.output[0] : chunk.output[1]]]
    if added and chunk.output[0] == 0:
        added[0] = added[0].removeprefix("\ufeff")
    return added


def hunks(base: str, local: str, output: str) -> list[Hunk]:
    """The model's hunks on the local text, top to bottom."""
    review = _Review(base, local, output)
    return [
        Hunk(
            start=c.local[0],
            removed=c.local[1] - c.local[0],
            added=_added(review, c),
            overlap=c.kind == "overlap",
        )
        for c in review.model
    ]


def _before_lines(review: _Review, chunk: Chunk) -> list[str]:
    """An applied hunk's lines from before the change, as the buffer would hold them."""
    lines = [_plain(x) for x in review.base[chunk.base[0] : chunk.base[1]]]
    if lines and chunk.base[0] == 0:
        lines[0] = lines[0].removeprefix("\ufeff")
    return lines


def applied_hunks(before: str, local: str, after: str) -> list[Hunk]:
    """The hunks of a change already applied (`before` -> `after`) on the local text."""
    review = _Review(before, local, after, applied=True)
    return [
        Hunk(
            start=c.local[0],
            removed=c.local[1] - c.local[0],
            added=_before_lines(review, c),
            overlap=c.kind == "overlap",
            applied=True,
        )
        for c in review.model
    ]


def _find_applied(before: str, local: str, after: str, hunk: Hunk) -> tuple[_Review, Chunk] | None:
    review = _Review(before, local, after, applied=True)
    for chunk in review.model:
        start, end = chunk.local
        if (start, end - start, _before_lines(review, chunk)) == (
            hunk.start,
            hunk.removed,
            hunk.added,
        ):
            return review, chunk
    return None


def keep_applied(before: str, local: str, after: str, hunk: Hunk) -> Split | None:
    """Keep one hunk of an applied change: `before` takes its lines, so it is no longer a
    hunk (and undoing the change leaves it). `base` of the result is the new `before`."""
    found = _find_applied(before, local, after, hunk)
    if found is None:
        return None
    review, chunk = found
    new = review.output[chunk.output[0] : chunk.output[1]]
    return Split(
        base=_replace(review.base, chunk.base, new),
        local=local,
        output=after,
        lines=(chunk.output[0] + 1, chunk.output[1]),
        in_output=True,
    )


def revert_applied(before: str, local: str, after: str, hunk: Hunk) -> Split | None:
    """Reject one hunk of an applied change: its lines from before come back into the local
    text and into `after` (the user's edits elsewhere stay). `output` of the result is the new
    `after`; `change` says what was rejected (`-` the lines kept, `+` those written)."""
    found = _find_applied(before, local, after, hunk)
    if found is None:
        return None
    review, chunk = found
    old = review.base[chunk.base[0] : chunk.base[1]]
    written = review.output[chunk.output[0] : chunk.output[1]]
    lines = chunk.output if written else chunk.base
    return Split(
        base=before,
        local=_replace(review.local, chunk.local, old),
        output=_replace(review.output, chunk.output, old),
        lines=(lines[0] + 1, lines[1]),
        in_output=bool(written),
        change=line_change([_plain(x) for x in old], [_plain(x) for x in written]),
    )


class _Map:
    """Where each line of `base` is in `other` (two-way, lines compared without endings):
    `at[i]` its index there, or -1 when `other` changed it; `gap[i]` for a changed line, the
    stretch of `other` that replaced the stretch of base it is in."""

    def __init__(self, base: list[str], other: list[str]) -> None:
        self.at = [-1] * (len(base) + 1)
        self.gap: dict[int, tuple[int, int]] = {}
        prev_base = prev_other = 0
        for start, other_start, size in matching_blocks(base, other):
            for i in range(prev_base, start):
                self.gap[i] = (prev_other, other_start)
            for k in range(size):
                self.at[start + k] = other_start + k
            prev_base, prev_other = start + size, other_start + size
        kept = set(self.at)
        # Lines of other that are not base's.
        self.changed = [j for j in range(len(other)) if j not in kept]

    def where(self, first: int, last: int) -> range:
        """The 0-based lines of `other` that base's lines first..last-1 became; for an empty
        range (an insertion before base line `first`), the line it follows."""
        if first == last:
            before = self.at[first - 1] if first > 0 else -1
            if first > 0 and before < 0:
                before = self.gap[first - 1][1] - 1
            return range(max(before, 0), max(before, 0) + 1)
        rows: set[int] = set()
        for i in range(first, last):
            if self.at[i] >= 0:
                rows.add(self.at[i])
            else:
                start, end = self.gap[i]
                rows.update(range(start, end) if end > start else range(max(start - 1, 0), start))
        return range(min(rows), max(rows) + 1) if rows else range(0)


def marks(base: str | None, local: str | None, output: str | None) -> Marks:
    """Where the editor's signs go: the local lines the model's change touches (its changes
    to the snapshot, placed on the local text) and the lines the user changed, never mixed up
    (a line both changed is the model's: accepting would replace it)."""
    if base is None or local is None:
        return Marks([], [])
    keys_base = [_plain(x) for x in split_lines(base, keepends=True)]
    keys_local = [_plain(x) for x in split_lines(local, keepends=True)]
    keys_output = [
        _plain(x) for x in split_lines(output if output is not None else base, keepends=True)
    ]
    count = max(len(keys_local), 1)
    to_local = _Map(keys_base, keys_local)
    model: set[int] = set()
    prev_base = prev_out = 0
    for start, out_start, size in matching_blocks(keys_base, keys_output):
        if start > prev_base or out_start > prev_out:
            model.update(row + 1 for row in to_local.where(prev_base, start))
        prev_base, prev_out = start + size, out_start + size
    user = {j + 1 for j in to_local.changed}
    for i, row in enumerate(to_local.at[: len(keys_base)]):
        if row < 0 and to_local.gap[i][0] == to_local.gap[i][1]:
            user.add(max(to_local.gap[i][0], 1))  # a deletion marks the line it follows
    model = {line for line in model if line <= count}
    return Marks(sorted(model), sorted(line for line in user - model if line <= count))


class Placed(msgspec.Struct, frozen=True):
    """One place of an edit waiting for the user's choice, as a hunk of its own (`hunk`, on
    the local text) and the texts once it is taken (`split`: the snapshot and local text with
    it, the pending output with the edit made there)."""

    hunk: Hunk
    split: Split


def _span_in(blocks: list[tuple[int, int, int]], first: int, last: int) -> tuple[int, int] | None:
    """Where lines first..last-1 of b are in a, when a has them all, unchanged, in one
    stretch (`matching_blocks(a, b)`); an empty span (first == last: an insertion before line
    `first` of b) lands after the line before it."""
    for a_start, b_start, size in blocks:
        if first == last:
            if first == 0:
                return 0, 0
            if b_start < first <= b_start + size:
                at = a_start + first - b_start
                return at, at
        elif b_start <= first and last <= b_start + size:
            return a_start + first - b_start, a_start + last - b_start
    return None


def placed_hunk(base: str, local: str, output: str, placed: str) -> Placed | None:
    """The hunk that taking one place of a waiting edit adds (`output` without the edit ->
    `placed` with it), apart from the pending change's own hunks even where it touches one
    (a plain three-way diff would merge the two); None when the lines it replaces are not as
    the snapshot and the local text have them (another hunk or the user changed them)."""
    out = split_lines(output, keepends=True)
    new = split_lines(placed, keepends=True)
    head, tail = common_ends(out, new)
    replaced = (head, len(out) - tail)
    added = new[head : len(new) - tail]
    base_lines = split_lines(base, keepends=True)
    local_lines = split_lines(local, keepends=True)
    keys_base = [_plain(x) for x in base_lines]
    in_base = _span_in(matching_blocks(keys_base, [_plain(x) for x in out]), *replaced)
    if in_base is None:
        return None
    in_local = _span_in(matching_blocks([_plain(x) for x in local_lines], keys_base), *in_base)
    if in_local is None:
        return None
    shown = [_plain(x) for x in added]
    if shown and in_local[0] == 0:
        shown[0] = shown[0].removeprefix("\ufeff")
    hunk = Hunk(start=in_local[0], removed=in_local[1] - in_local[0], added=shown)
    split = Split(
        base=_replace(base_lines, in_base, added),
        local=_replace(local_lines, in_local, added),
        output=placed,
        # As for any hunk: its new lines in the output, or for a deletion the snapshot's.
        lines=(head + 1, head + len(added)) if added else (in_base[0] + 1, in_base[1]),
        in_output=bool(added),
    )
    return Placed(hunk, split)


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
        if (start, end - start, _added(review, chunk)) == (hunk.start, hunk.removed, hunk.added):
            return review, chunk
    return None


def accept(
    base: str, local: str, output: str, hunk: Hunk, amended: list[str] | None = None
) -> Split | None:
    """Take one hunk: its new lines (or the user's `amended` lines, without line endings,
    which then replace them in the output too) replace its local lines and its snapshot lines
    (None when the texts no longer have that hunk)."""
    found = _find(base, local, output, hunk)
    if found is None:
        return None
    review, chunk = found
    new = review.output[chunk.output[0] : chunk.output[1]]
    if amended is not None:
        ends_file = (
            chunk.output[1] == len(review.output) and bool(new) and new[-1] == _plain(new[-1])
        )
        new = [line + "\n" for line in amended]
        if ends_file and new:
            new[-1] = amended[-1]  # the file's last line keeps having no newline
    return Split(
        base=_replace(review.base, chunk.base, new),
        local=_replace(review.local, chunk.local, new),
        output=output if amended is None else _replace(review.output, chunk.output, new),
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
    proposed = review.output[chunk.output[0] : chunk.output[1]]
    return Split(
        base=base,
        local=local,
        output=_replace(review.output, chunk.output, new),
        lines=(lines[0] + 1, lines[1]),
        in_output=added,
        change=line_change([_plain(x) for x in new], [_plain(x) for x in proposed]),
    )
