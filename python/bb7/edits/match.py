"""Where in the file `old` could be: one finder per matching tier, each returning every candidate.

Finders never pick among candidates (that is `replace`'s job, which refuses ambiguity). Each
looks candidates up through the line index (the rarest line of `old` anchors the search), so a
tier costs about one dictionary lookup per occurrence of that line, never a scan of all windows.
"""

from __future__ import annotations

from typing import NamedTuple

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Indel

from bb7.edits import normalize
from bb7.edits.text import LineIndex, Normalizer


class Window(NamedTuple):
    """Candidate lines first..last (0-based, inclusive); mapping[i] = window line of old line i."""

    first: int
    last: int
    mapping: list[int | None]


# Tiers comparing whole lines under a normaliser, strictest first.
LINE_TIERS: tuple[tuple[str, Normalizer], ...] = (
    ("line_exact", normalize.identity),
    ("trailing_whitespace", normalize.rstrip),
    ("indentation", normalize.strip),
    ("inner_whitespace", normalize.collapse_ws),
    ("no_whitespace", normalize.no_whitespace),
    ("unicode", normalize.fold_unicode),
)

# A truncated first/last line must keep at least this many characters (indentation included,
# as BB-7 counted) and some non-blank text to anchor anything.
MIN_PREFIX = 8
# Block anchor: a middle line counts as "the same line with a typo" at this similarity (0-100).
DRIFT_LINE_MIN = 72.0
# ... and the whole window must be at least this similar to `old` (0-100). Real drift measured
# 96-100 on our corpora, invented middles 50-76.
DRIFT_BLOCK_MIN = 90.0


def find_lines(index: LineIndex, old_lines: list[str], name: str, fn: Normalizer) -> list[Window]:
    """Windows of len(old) lines equal to `old` line by line under `fn`."""
    keys = [fn(line) for line in old_lines]
    norm = index.normalized(name, fn)
    anchor = _rarest(index.positions(name, fn), keys)
    if anchor is None:
        return []
    k, starts = anchor
    n = len(keys)
    out: list[Window] = []
    for p in starts:
        s = p - k
        if s < 0 or s + n > len(norm):
            continue
        if all(norm[s + j] == keys[j] for j in range(n)):
            out.append(Window(s, s + n - 1, list(range(n))))
    return out


def find_truncated(index: LineIndex, old_lines: list[str]) -> list[Window]:
    """Windows where the first and/or last line of `old` is a prefix (>= 8 chars) of the file's."""
    n = len(old_lines)
    if n < 2:
        return []
    fn = normalize.collapse_ws
    keys = [fn(line) for line in old_lines]
    head, tail = keys[0], keys[-1]
    cut_head = _prefix_ok(old_lines[0], head)
    cut_tail = _prefix_ok(old_lines[-1], tail)
    if not (cut_head or cut_tail):
        return []
    norm = index.normalized("inner_whitespace", fn)
    if n > 2:
        middle_anchor = _rarest(index.positions("inner_whitespace", fn), keys[1:-1])
        if middle_anchor is None:
            return []
        starts = [p - middle_anchor[0] - 1 for p in middle_anchor[1]]
    else:
        starts = list(range(len(norm) - 1))

    out: list[Window] = []
    for s in starts:
        if s < 0 or s + n > len(norm):
            continue
        first, last = norm[s], norm[s + n - 1]
        if first == head and last == tail:
            continue  # not truncated: an earlier tier owns this
        if not (first == head or (cut_head and first.startswith(head))):
            continue
        if not (last == tail or (cut_tail and last.startswith(tail))):
            continue
        if all(norm[s + j] == keys[j] for j in range(1, n - 1)):
            out.append(Window(s, s + n - 1, list(range(n))))
    return out


def find_ignoring_blank_lines(index: LineIndex, old_lines: list[str]) -> list[Window]:
    """Windows whose non-blank lines equal the non-blank lines of `old` (blank lines differ)."""
    fn = normalize.collapse_ws
    norm = index.normalized("inner_whitespace", fn)
    solid = [(j, key) for j, key in enumerate(fn(line) for line in old_lines) if key]
    if not solid:
        return []
    lines_of, positions = index.nonblank("inner_whitespace", fn)
    keys = [key for _, key in solid]
    anchor = _rarest(positions, keys)
    if anchor is None:
        return []
    k, starts = anchor
    out: list[Window] = []
    for p in starts:
        s = p - k
        if s < 0 or s + len(keys) > len(lines_of):
            continue
        if not all(norm[lines_of[s + j]] == keys[j] for j in range(len(keys))):
            continue
        first, last = lines_of[s], lines_of[s + len(keys) - 1]
        if last - first + 1 == len(old_lines) and all(
            not norm[first + j] for j, line in enumerate(old_lines) if not fn(line)
        ):
            continue  # same blank structure: an earlier tier owns this
        mapping: list[int | None] = [None] * len(old_lines)
        for (j, _), pos in zip(solid, range(s, s + len(keys)), strict=True):
            mapping[j] = lines_of[pos] - first
        out.append(Window(first, last, mapping))
    return out


def find_drifted(index: LineIndex, old_lines: list[str]) -> list[tuple[Window, float]]:
    """Block anchor: first and last lines match, middle lines are `old`'s with small typos.

    Every middle line must either match or be a recognisable variant of its counterpart
    (similarity >= DRIFT_LINE_MIN); an invented middle line refuses the window outright, so
    first/last-line anchors alone never make a match.
    """
    n = len(old_lines)
    if n < 3:
        return []
    fn = normalize.collapse_ws
    keys = [fn(line) for line in old_lines]
    if not keys[0] or not keys[-1]:
        return []
    norm = index.normalized("inner_whitespace", fn)
    starts = index.positions("inner_whitespace", fn).get(keys[0], [])
    allowed = max(2, (n - 2) // 3)
    out: list[tuple[Window, float]] = []
    for s in starts:
        if s + n > len(norm) or norm[s + n - 1] != keys[-1]:
            continue
        drifted = 0
        for j in range(1, n - 1):
            line = norm[s + j]
            if line == keys[j]:
                continue
            drifted += 1
            if drifted > allowed or fuzz.ratio(line, keys[j], score_cutoff=DRIFT_LINE_MIN) == 0:
                break
        else:
            # Some middle line must match as it is: with every middle line different, the
            # anchors would be all that vouches for the region.
            if drifted == 0 or drifted == n - 2:
                continue
            score = fuzz.ratio(
                "\n".join(norm[s : s + n]), "\n".join(keys), score_cutoff=DRIFT_BLOCK_MIN
            )
            if score:
                out.append((Window(s, s + n - 1, list(range(n))), score / 100))
    return out


def closest(index: LineIndex, old_lines: list[str]) -> tuple[int, int, float] | None:
    """The window most similar to `old` (first, last, similarity 0-1), for error messages.

    Lines of `old` found in the file vote for where the window starts; the best few starts are
    scored with rapidfuzz. Cheap enough to run on every refused edit.
    """
    n = len(old_lines)
    if not n or not len(index):
        return None
    fn = normalize.collapse_ws
    keys = [fn(line) for line in old_lines]
    positions = index.positions("inner_whitespace", fn)
    votes: dict[int, int] = {}
    for k, key in enumerate(keys):
        found = positions.get(key)
        if not key or not found or len(found) > 64:
            continue
        for p in found:
            votes[p - k] = votes.get(p - k, 0) + 1
    starts = sorted(votes, key=lambda s: -votes[s])[:8]
    norm = index.normalized("inner_whitespace", fn)
    if not starts:
        probe = next((key for key in keys if key), "")
        hit = process.extractOne(probe, norm, scorer=fuzz.ratio) if probe else None
        if hit is None:
            return None
        starts = [hit[2] - keys.index(probe)]
    target = "\n".join(keys)
    best: tuple[int, int, float] | None = None
    for s in starts:
        s = min(max(s, 0), max(len(norm) - n, 0))
        last = min(s + n, len(norm)) - 1
        score = Indel.normalized_similarity("\n".join(norm[s : last + 1]), target)
        if best is None or score > best[2]:
            best = (s, last, score)
    return best


def _prefix_ok(raw: str, key: str) -> bool:
    return len(raw.rstrip()) >= MIN_PREFIX and len(key) >= 3


def _rarest(positions: dict[str, list[int]], keys: list[str]) -> tuple[int, list[int]] | None:
    """(offset in keys, file positions) of the key occurring least often; None if one is absent.

    Blank keys are used only when nothing else is available: they occur everywhere.
    """
    best: tuple[int, list[int]] | None = None
    for k, key in enumerate(keys):
        found = positions.get(key)
        if not found:
            return None
        if best is None or (key and (not keys[best[0]] or len(found) < len(best[1]))):
            best = (k, found)
    return best
