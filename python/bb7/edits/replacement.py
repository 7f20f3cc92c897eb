"""Turn `new` into the lines that replace a matched window, undoing the model's systematic slips.

Given how the lines of `old` map onto the file, lines the model did not change are copied from
the file byte for byte, and changed lines are re-indented when `old` was shifted (the model's
whole snippet sits at another indentation or uses the other tab style). When only some lines of
`old` were damaged and `new` already uses the file's indentation, `new` is kept as sent. A line
whose only change is its indentation keeps that change: it is the point of the edit, never
undone by re-indenting `new` to the file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher
from itertools import pairwise
from typing import NamedTuple

from bb7.edits import normalize
from bb7.edits.indent import leading, pick_tab_width, render, tab_indented, width
from bb7.edits.normalize import collapse_ws

Opcodes = Sequence[tuple[str, int, int, int, int]]


class Misplaced(NamedTuple):
    """Lines `new` keeps as `old` has them, at another depth (relative to the rest of `old`)
    than the file has them: a misplaced line the model means to re-align, or its slip in
    copying, which cannot be told apart. 0-based old lines, in order."""

    old_lines: tuple[int, ...]


def build_lines(
    old_lines: list[str],
    new_lines: list[str],
    window: list[str],
    mapping: list[int | None],
    style: str,
    tab_width: int | None = None,
) -> list[str] | Misplaced:
    """Lines replacing `window`; `mapping[i]` is the window line that old line i matched.
    `tab_width`: the file's own, when it declares or shows one (else it is inferred from how
    `old`'s indentation relates to the window's)."""
    if mapping != list(range(len(mapping))):
        new_lines = _separate_added_lines(old_lines, new_lines, window, mapping)
        new_lines = _restore_skipped_blanks(old_lines, new_lines, window, mapping)
    pairs = {
        i: m
        for i, m in enumerate(mapping)
        if m is not None and old_lines[i].strip() and window[m].strip()
    }
    opcodes = line_opcodes(old_lines, new_lines)
    if all(leading(old_lines[i]) == leading(window[m]) for i, m in pairs.items()):
        return _assemble(opcodes, old_lines, new_lines, window, mapping, None)
    opcodes = _align(opcodes, old_lines, new_lines, window, mapping)
    tab = pick_tab_width(
        [(leading(old_lines[i]), leading(window[m])) for i, m in pairs.items()], tab_width
    )
    delta = {
        i: width(leading(window[m]), tab) - width(leading(old_lines[i]), tab)
        for i, m in pairs.items()
    }
    shift = _shift_for_new(opcodes, new_lines, window, pairs, delta, tab)
    # Tabs written as spaces (or the reverse) at the same depth: `old` in the other style. A
    # line whose indentation only gained or lost a blank beside its tabs is damage, not style.
    restyle = any(
        delta[i] == 0 and tab_indented(old_lines[i]) != tab_indented(window[m])
        for i, m in pairs.items()
    )
    first_fix = _first_line_copied_mid_line(opcodes, old_lines, new_lines, window, pairs)
    # `old` with no indentation at all against an indented window was dedented as a whole: as
    # systematic as a uniform shift, though each line lost a different amount. Unless `new`
    # was not: a changed line of it already at its file line's (non-zero) depth.
    dedented = (
        all(not leading(old_lines[i]) for i in pairs)
        and any(delta.values())
        and not _new_at_file_depth(opcodes, new_lines, window, pairs, tab)
    )
    active = shift != 0 or restyle or dedented
    plan = _Reindent(shift, active, delta, tab, style or " ", first_fix and not dedented)
    plan.positional = any(tag == "equal" for tag, *_ in opcodes)
    # `old` shifted as a whole but for a few lines (not dedented line by line): those lines
    # are off the frame the rest of `old` agrees on.
    plan.framed = (
        shift != 0 and not dedented and sum(d == shift for d in delta.values()) * 2 > len(delta)
    )
    misplaced = tuple(
        i
        for tag, i1, i2, _, _ in opcodes
        if tag == "equal"
        for i in range(i1, i2)
        if plan.misplaced(i) and not (plan.first and i == 0)
    )
    if misplaced:
        # Shifted with the frame, they land where the model's frame has them (an `except`
        # re-aligned under its `try`); at the file's depth, they were its slip in copying.
        # Either may be meant, and only one is right.
        return Misplaced(misplaced)
    return _assemble(opcodes, old_lines, new_lines, window, mapping, plan)


def _align(
    opcodes: Opcodes,
    old_lines: list[str],
    new_lines: list[str],
    window: list[str],
    mapping: list[int | None],
) -> Opcodes:
    """How `new`'s lines pair with `old`'s: by `old`'s text, or by the file lines `old` matched
    when `new` spells more of its lines as the file does (the model wrote `new` against the
    file; only `old` was damaged, and a damaged line of `old` may read like another line of
    `new`, as a closing bracket two levels off does)."""
    as_file = [line if m is None else window[m] for line, m in zip(old_lines, mapping, strict=True)]
    by_file = line_opcodes(as_file, new_lines)
    return by_file if _kept_lines(by_file, new_lines) > _kept_lines(opcodes, new_lines) else opcodes


def _kept_lines(opcodes: Opcodes, new_lines: list[str]) -> int:
    """Non-blank lines of `new` the opcodes keep."""
    return sum(
        1
        for tag, _, _, j1, j2 in opcodes
        if tag == "equal"
        for line in new_lines[j1:j2]
        if line.strip()
    )


class _Reindent:
    """How to indent `new`: shifted (`active`) or as sent, plus the first-line fix."""

    def __init__(
        self, shift: int, active: bool, delta: dict[int, int], tab: int, style: str, first: bool
    ) -> None:
        self.shift, self.active, self.delta = shift, active, delta
        self.tab, self.style, self.first = tab, style, first
        self.uniform = len(set(delta.values())) <= 1
        # Set by `build_lines`: with no line of `old` kept as is, nothing ties a line of `new` to
        # a particular old line, so `new` keeps its own relative structure (one global shift).
        self.positional = True
        self.framed = False  # set by `build_lines`

    def misplaced(self, old_index: int) -> bool:
        """Whether `old` has this line off the shift the rest of it agrees on: at a depth the
        file does not have it, in the model's own frame."""
        found = self.delta.get(old_index)
        return self.framed and found is not None and found != self.shift

    def line(self, text: str, old_index: int | None, near: str | None, inserted: bool) -> str:
        """`text` re-indented. `old_index` is the old line it replaces (or, when `inserted`, the
        old line it follows) and `near` that old line's indentation in the file: a line landing
        at its depth takes its exact whitespace (tabs and alignment blanks as they are)."""
        if not text.strip():
            return text
        own = width(leading(text), self.tab)
        target = width(near, self.tab) if near is not None else None
        local = self.delta.get(old_index) if old_index is not None else None
        if self.first and old_index == 0 and not inserted:
            amount = self.delta[0]
        elif not self.active:
            return text
        elif local is None or self.uniform or not self.positional:
            amount = self.shift
        elif inserted:
            amount = local  # `old` lost its structure (fully dedented): follow the line above
        else:
            # A changed line lands where its counterpart sits in the file by the global shift
            # or by its own line's shift; when by neither, it changed depth on purpose.
            amount = self.shift if own + self.shift == target else local
        if near is not None and own + amount == target:
            return near + text.lstrip(" \t")
        return render(own + amount, self.style, self.tab) + text.lstrip(" \t")

    def keeps_file_indent(self, old_index: int) -> bool:
        return self.active or (self.first and old_index == 0)


def _assemble(
    opcodes: Opcodes,
    old_lines: list[str],
    new_lines: list[str],
    window: list[str],
    mapping: list[int | None],
    plan: _Reindent | None,
) -> list[str]:
    out: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            out.extend(_unchanged(new_lines, window, mapping, i1, i2, j1, plan))
            continue
        if tag == "delete":
            continue
        # File lines of this block that `new` restates as the file spells them: that line of
        # `new` is their old line's counterpart, so no other line of `new` is tied to it.
        restated = _file_lines(window, mapping, i1, i2) & set(new_lines[j1:j2])
        moved = _respaced_pairs(old_lines, new_lines, i1, i2, j1, j2) if plan is not None else {}
        for t, j in enumerate(range(j1, j2)):
            if plan is None:
                out.append(new_lines[j])
                continue
            inserted = tag == "insert"
            i = i1 - 1 if inserted else i1 + min(t, i2 - i1 - 1)
            m = mapping[i] if i >= 0 else None
            text = new_lines[j]
            if j in moved:
                i = moved[j]
                m = mapping[i]
                if m is not None and old_lines[i] == window[m] and plan.shift == 0:
                    # The model copied the line exactly and changed only its whitespace: the
                    # change is the point of the edit, kept as sent.
                    out.append(text)
                    continue
                if plan.delta.get(i) == plan.shift:
                    # `old` had this line where the whole of it was (shifted or not): the
                    # new depth is relative to it, even where it spells the file's line
                    # (re-aligning a misplaced line to where it belongs).
                    near = leading(window[m]) if m is not None else None
                    out.append(plan.line(text, i, near, False))
                    continue
            if text.strip() and (
                (i2 - i1 == j2 - j1 and m is not None and text == window[m])
                or (not plan.uniform and text in _file_lines(window, mapping, i1, i2))
            ):
                # `old` damaged this line and `new` spells it as the file does: as sent. (Lines
                # paired in order, or any line of the block when `old` was damaged unevenly
                # rather than shifted as a whole.)
                out.append(text)
                continue
            if (
                (plan.positional or i2 - i1 == j2 - j1 == 1)
                and not inserted
                and t < i2 - i1
                and m is not None
                and text.strip()
                and window[m].strip()
                and window[m] not in restated
                and leading(text) == leading(old_lines[i])
            ):
                # The changed line kept its old line's depth (and kept lines, or a one-for-one
                # change, tie it to that old line): it gets that file line's exact indentation,
                # tabs and alignment spaces as they are, whatever the tab width.
                out.append(leading(window[m]) + text.lstrip(" \t"))
                continue
            near = leading(window[m]) if m is not None else None
            out.append(plan.line(text, i if i >= 0 else None, near, inserted))
    return out


def _respaced_pairs(
    old_lines: list[str], new_lines: list[str], i1: int, i2: int, j1: int, j2: int
) -> dict[int, int]:
    """new line -> old line, for the lines of a changed block that `new` keeps but indents
    differently: moving them is the point of the change."""
    olds = [line.lstrip(" \t") for line in old_lines[i1:i2]]
    news = [line.lstrip(" \t") for line in new_lines[j1:j2]]
    pairs: dict[int, int] = {}
    matcher = SequenceMatcher(None, olds, news, autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            i, j = i1 + a + k, j1 + b + k
            if olds[a + k].strip() and old_lines[i] != new_lines[j]:
                pairs[j] = i
    return pairs


def _file_lines(window: list[str], mapping: list[int | None], i1: int, i2: int) -> set[str]:
    """The file lines that old lines i1..i2-1 matched."""
    return {window[m] for m in mapping[i1:i2] if m is not None}


def line_opcodes(old_lines: list[str], new_lines: list[str]) -> Opcodes:
    """difflib opcodes turning `old_lines` into `new_lines`, with the common head and tail of
    the two taken out first (most edits change a few lines; difflib is slow on the rest)."""
    head = 0
    limit = min(len(old_lines), len(new_lines))
    while head < limit and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while (
        tail < limit - head
        and old_lines[len(old_lines) - 1 - tail] == new_lines[len(new_lines) - 1 - tail]
    ):
        tail += 1
    old_mid = old_lines[head : len(old_lines) - tail]
    new_mid = new_lines[head : len(new_lines) - tail]
    ops: list[tuple[str, int, int, int, int]] = []
    if head:
        ops.append(("equal", 0, head, 0, head))
    for tag, i1, i2, j1, j2 in SequenceMatcher(
        None, old_mid, new_mid, autojunk=False
    ).get_opcodes():
        ops.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        ops.append(
            ("equal", len(old_lines) - tail, len(old_lines), len(new_lines) - tail, len(new_lines))
        )
    return _merge_equal(ops)


def _merge_equal(ops: list[tuple[str, int, int, int, int]]) -> Opcodes:
    merged: list[tuple[str, int, int, int, int]] = []
    for op in ops:
        if merged and op[0] == "equal" and merged[-1][0] == "equal":
            last = merged[-1]
            merged[-1] = ("equal", last[1], op[2], last[3], op[4])
        else:
            merged.append(op)
    return merged


def _restore_skipped_blanks(
    old_lines: list[str], new_lines: list[str], window: list[str], mapping: list[int | None]
) -> list[str]:
    """`new` with the file's blank lines wherever `old` had others and `new` kept that gap as
    `old` had it: the model copied its slip, it did not mean to add or remove blank lines."""
    kept: dict[int, tuple[int, int]] = {}  # old line -> (equal block, new line)
    opcodes = line_opcodes(old_lines, new_lines)
    for block, (tag, i1, i2, j1, _) in enumerate(opcodes):
        if tag == "equal":
            for t in range(i2 - i1):
                kept[i1 + t] = (block, j1 + t)
    solid = [(i, m) for i, m in enumerate(mapping) if m is not None]
    out = list(new_lines)
    for (ia, ma), (ib, mb) in reversed(list(pairwise(solid))):
        if mb - ma == ib - ia or ia not in kept or ib not in kept:
            continue
        (block_a, ja), (block_b, jb) = kept[ia], kept[ib]
        if block_a == block_b:
            out[ja + 1 : jb] = window[ma + 1 : mb]
    return out


def _separate_added_lines(
    old_lines: list[str], new_lines: list[str], window: list[str], mapping: list[int | None]
) -> list[str]:
    """`new` with the file's blank lines between the lines it adds wherever they meet as two
    lines of `old` met across blank lines it left out, when `old` and `new` leave out every
    blank line: the model wrote without them, and the lines it adds lack them as well (a CSS
    rule added after rules the file separates by a blank line)."""
    if not all(line.strip() for line in (*old_lines, *new_lines)):
        return new_lines
    gaps: dict[tuple[str, str], list[str]] = {}  # (line before, indentation after) -> blanks
    solid = [(i, m) for i, m in enumerate(mapping) if m is not None]
    for (ia, ma), (ib, mb) in pairwise(solid):
        if mb - ma > 1:
            gaps.setdefault((old_lines[ia].strip(), leading(old_lines[ib])), window[ma + 1 : mb])
    if not gaps:
        return new_lines
    kept = {
        j
        for tag, _, _, j1, j2 in line_opcodes(old_lines, new_lines)
        if tag == "equal"
        for j in range(j1, j2)
    }
    out = new_lines[:1]
    for j in range(1, len(new_lines)):
        line = new_lines[j]
        if j not in kept or j - 1 not in kept:
            out.extend(gaps.get((new_lines[j - 1].strip(), leading(line)), ()))
        out.append(line)
    return out


def _unchanged(
    new_lines: list[str],
    window: list[str],
    mapping: list[int | None],
    i1: int,
    i2: int,
    j1: int,
    plan: _Reindent | None,
) -> list[str]:
    """Lines the model kept: its text, on the file's indentation when `new` is re-indented.

    The model's text is kept so that what it sent is what lands (its trailing whitespace, and
    blank lines `old` missed, included); a line `old` had cut short is restored from the file.
    """
    out: list[str] = []
    for i in range(i1, i2):
        line, m = new_lines[j1 + (i - i1)], mapping[i]
        here = window[m] if m is not None else None
        if line == here:
            out.append(line)  # most lines: as the file has them, whatever the plan
        elif here is not None and _is_cut_short(line, here):
            out.append(here)
        elif (
            here is not None
            and line.strip()
            and here.strip()
            and ((plan is not None and plan.keeps_file_indent(i)) or not _shallower(line, here))
        ):
            # A line the model did not change keeps the file's indentation, whatever `old`
            # carried there: extra columns it copied into `new`, or spaces for the file's tabs.
            # Only a line `old` put shallower than the file keeps the model's depth (without a
            # shift of the whole of `old`): lines `new` adds under it were placed relative to it.
            out.append(leading(here) + line.lstrip(" \t"))
        else:
            out.append(line)
    return out


def _shift_for_new(
    opcodes: Opcodes,
    new_lines: list[str],
    window: list[str],
    pairs: dict[int, int],
    delta: dict[int, int],
    tab: int,
) -> int:
    """The indentation shift `new` needs, chosen by evidence.

    An unchanged line votes for its own old-to-file shift; a changed line votes for the shift
    that puts it at its counterpart's indentation in the file. `old` shifted as a whole gives one
    clear winner; damage to a few lines of `old` only, with `new` already right, gives 0.
    """
    # Direct evidence weighs 2, the shift of each line of `old` weighs 1 (it breaks ties when a
    # changed block restructures lines so positional counterparts disagree).
    votes: Counter[int] = Counter(delta.values())
    for tag, i1, i2, j1, j2 in opcodes:
        if tag in ("equal", "replace"):
            for t in range(min(i2 - i1, j2 - j1)):
                i, j = i1 + t, j1 + t
                if i in pairs and new_lines[j].strip():
                    target = width(leading(window[pairs[i]]), tab)
                    votes[target - width(leading(new_lines[j]), tab)] += 2
    top = max(votes.values())
    tied = [s for s, c in votes.items() if c == top]
    return 0 if 0 in tied else min(tied, key=abs)


def _new_at_file_depth(
    opcodes: Opcodes, new_lines: list[str], window: list[str], pairs: dict[int, int], tab: int
) -> bool:
    """Whether a line of `new` sits at the indented depth of the file line its old line
    matched (pairing replaced lines in order)."""
    for tag, i1, i2, j1, j2 in opcodes:
        if tag not in ("equal", "replace"):
            continue
        for t in range(min(i2 - i1, j2 - j1)):
            i, line = i1 + t, new_lines[j1 + t]
            if i in pairs and line.strip():
                depth = width(leading(window[pairs[i]]), tab)
                if depth and width(leading(line), tab) == depth:
                    return True
    return False


def _first_line_copied_mid_line(
    opcodes: Opcodes,
    old_lines: list[str],
    new_lines: list[str],
    window: list[str],
    pairs: dict[int, int],
) -> bool:
    """Whether old's first line lost its indentation (copied from mid-line) and new's did too."""
    if 0 not in pairs or leading(old_lines[0]) or not leading(window[pairs[0]]):
        return False
    tag, _, _, j1, _ = opcodes[0]
    if tag not in ("equal", "replace") or j1 != 0 or not new_lines:
        return False
    return not leading(new_lines[0])


def _shallower(line: str, file_line: str) -> bool:
    """Whether `line` is indented less than `file_line` under every usual tab width."""
    ours, theirs = leading(line), leading(file_line)
    return all(width(ours, tab) < width(theirs, tab) for tab in (2, 4, 8))


def kept_stale_line(
    old_lines: list[str], new_lines: list[str], window: list[str], mapping: list[int | None]
) -> tuple[int, int] | None:
    """(old line, window line) of the first line `new` keeps as `old` has it although the file
    line it matched says something else (a fuzzy match whose middle is an older version of the
    file); None if none. Applying would write that stale text back over the file's line."""
    for tag, i1, i2, _, _ in line_opcodes(old_lines, new_lines):
        if tag != "equal":
            continue
        for i in range(i1, i2):
            m = mapping[i]
            if m is None or old_lines[i] == window[m] or not old_lines[i].strip():
                continue
            here = window[m]
            if _stale(old_lines[i], here) and not _is_cut_short(old_lines[i], here):
                return i, m
    return None


def _stale(line: str, file_line: str) -> bool:
    """Whether `line` says something else than `file_line` (beyond blanks, quotes, dashes)."""
    return normalize.no_whitespace(normalize.fold_unicode(line)) != normalize.no_whitespace(
        normalize.fold_unicode(file_line)
    )


def _is_cut_short(line: str, file_line: str) -> bool:
    short, full = collapse_ws(line), collapse_ws(file_line)
    return bool(short) and len(full) > len(short) and full.startswith(short)
