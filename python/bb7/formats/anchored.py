"""Anchored edits: regions located by start (and optional end) anchor lines, replaced whole.

Every anchor is matched against the file as it was before the call, in three passes: exact,
ignoring trailing whitespace, ignoring all surrounding whitespace. The first pass that finds
anything decides, and must find exactly one place (an end anchor: exactly one after its start).
A start found only by the last pass re-indents the content by the anchor's indentation shift.
Regions must not overlap (touching is fine). All changes apply, or none: errors are per change.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import msgspec

from bb7.edits import LineIndex
from bb7.edits.indent import leading, pick_tab_width, render, width
from bb7.edits.match import LINE_TIERS, Window, closest, find_lines, window_starts
from bb7.edits.types import Applied, Candidate
from bb7.formats.schemas import AnchoredChange
from bb7.text.lines import split_lines

BOM = "\ufeff"
_PASSES = LINE_TIERS[:3]  # exact, trailing whitespace, indentation


class ChangeError(msgspec.Struct, frozen=True):
    """Why change number `change` (1-based) cannot apply."""

    change: int
    kind: str  # not_found, ambiguous, overlap, invalid
    message: str
    best: Candidate | None = None


class _Region(msgspec.Struct):
    change: int
    first: int  # 0-based, inclusive
    last: int
    lines: list[str]
    strategy: str


def apply_anchored(content: str, changes: Sequence[AnchoredChange]) -> Applied | list[ChangeError]:
    """The content with every change applied, or the errors of every change that cannot."""
    bom = BOM if content.startswith(BOM) else ""
    index = LineIndex(content[len(bom) :])
    regions: list[_Region] = []
    errors: list[ChangeError] = []
    for number, change in enumerate(changes, 1):
        found = _locate(index, number, change)
        if isinstance(found, ChangeError):
            errors.append(found)
        else:
            regions.append(found)
    regions.sort(key=lambda r: r.first)
    for before, after in pairwise(regions):
        if after.first <= before.last:
            errors.append(_overlap(before, after))
    if errors:
        return sorted(errors, key=lambda e: e.change)
    body = index.content
    for region in reversed(regions):
        if region.lines:
            start, end = index.span(region.first, region.last)
            eol = index.eol_at(region.first) or index.eol
            body = body[:start] + eol.join(region.lines) + body[end:]
        else:
            start, end = index.span_with_eol(region.first, region.last)
            body = body[:start] + body[end:]
    strategies = sorted({r.strategy for r in regions}, key=[s for s, _ in _PASSES].index)
    return Applied(
        bom + body,
        "anchored:" + "+".join(strategies),
        regions[0].first + 1,
        regions[-1].last + 1,
        1.0,
        len(regions),
    )


def _locate(index: LineIndex, number: int, change: AnchoredChange) -> _Region | ChangeError:
    start = _lines(change.start)
    if not start or not any(line.strip() for line in start):
        return ChangeError(number, "invalid", f"change {number}: start has no text to anchor on.")
    found = _unique(index, number, "start", start, after=-1)
    if isinstance(found, ChangeError):
        return found
    window, strategy = found
    last = window.last
    end = _lines(change.end or [])
    if end:
        found_end = _unique(index, number, "end", end, after=window.last)
        if isinstance(found_end, ChangeError):
            return found_end
        last = found_end[0].last
    lines = _lines(change.content)
    if strategy == "indentation":
        lines = _reindent(
            lines, start[0], index.texts[window.first], index.indent_style(window.first, last)
        )
    if lines == index.texts[window.first : last + 1]:
        return ChangeError(
            number,
            "invalid",
            f"change {number}: content equals lines {window.first + 1}-{last + 1} as they are, "
            "so it changes nothing. Send only changes that change something, with content "
            "holding the whole region as it should become.",
        )
    return _Region(number, window.first, last, lines, strategy)


def _unique(
    index: LineIndex, number: int, which: str, anchor: list[str], after: int
) -> tuple[Window, str] | ChangeError:
    """The one window matching `anchor` below line `after` (0-based), by the first pass that
    finds any."""
    starts = window_starts(index, anchor)
    for name, fn in _PASSES:
        found = [w for w in find_lines(index, anchor, starts, fn) if w.first > after]
        if len(found) == 1:
            return found[0], name
        if found:
            shown = ", ".join(str(w.first + 1) for w in found[:8])
            where = " after the start anchor" if which == "end" else ""
            return ChangeError(
                number,
                "ambiguous",
                f"change {number}: the {which} anchor {anchor[0].strip()!r} matches "
                f"{len(found)} places{where} (lines {shown}; compared {_how(name)}). Nothing "
                f"was changed. Add neighbouring lines to the {which} anchor (up to 10) so it "
                "matches only the place you mean.",
                Candidate(found[0].first + 1, found[0].last + 1, 1.0, ""),
            )
    near = closest(index, anchor)
    best = None
    hint = ""
    if near is not None:
        first, last, score = near
        text = "\n".join(index.texts[first : last + 1])
        best = Candidate(first + 1, last + 1, round(score, 4), text)
        pct = round(score * 100)
        hint = f" The closest lines are {first + 1}-{last + 1} ({pct}% similar):\n{text}\n"
    where = " after the start anchor" if which == "end" else ""
    return ChangeError(
        number,
        "not_found",
        f"change {number}: the {which} anchor starting {anchor[0].strip()!r} was not found"
        f"{where} (compared exactly, then ignoring trailing whitespace, then indentation).{hint}"
        " Copy anchor lines exactly from the file as it was before this call.",
        best,
    )


def _reindent(lines: list[str], model: str, file: str, style: str) -> list[str]:
    """Shift `lines` by the indentation the first anchor line was off by."""
    model_indent, file_indent = leading(model), leading(file)
    tab = pick_tab_width([(model_indent, file_indent)])
    shift = width(file_indent, tab) - width(model_indent, tab)
    if not shift and model_indent == file_indent:
        return lines
    return [
        render(width(leading(line), tab) + shift, style or " ", tab) + line.lstrip(" \t")
        if line.strip()
        else line
        for line in lines
    ]


def _lines(items: Sequence[str]) -> list[str]:
    """List items as lines; an item holding line breaks counts as several lines (each item ends
    a line, so an item ending in a line break adds an empty line)."""
    return [line for item in items for line in split_lines(item + "\n", crlf=True)]


def _how(name: str) -> str:
    return {"line_exact": "exactly", "trailing_whitespace": "ignoring trailing whitespace"}.get(
        name, "ignoring indentation"
    )


def _overlap(before: _Region, after: _Region) -> ChangeError:
    return ChangeError(
        after.change,
        "overlap",
        f"changes {before.change} (lines {before.first + 1}-{before.last + 1}) and "
        f"{after.change} (lines {after.first + 1}-{after.last + 1}) overlap. Nothing was "
        "changed. Merge them into one change, or anchor them on separate regions.",
    )
