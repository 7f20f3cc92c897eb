"""Where in the file `old` could be: one finder per matching tier, each returning every candidate.

Finders never pick among candidates (that is `replace`'s job, which refuses ambiguity).
Candidates come from the rarest word of `old`: every tier here only changes whitespace, quotes,
dashes or line boundaries, so a word of `old` (a run of letters, digits and `_`) sits unchanged
in the matching line of the file. `str.find` locates it at C speed, and only the windows around
its occurrences are compared line by line. An `old` with no word at all falls back to a
whole-file table of normalised lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Indel

from bb7.edits import normalize
from bb7.edits.text import COUNT_CAP, LineIndex, Normalizer


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
# as BB-7 counted) and some non-blank text to anchor anything ...
MIN_PREFIX = 8
# ... unless this many other non-blank lines of `old` match whole (then 3 characters do).
VOUCHING_LINES = 2
# Block anchor: a middle line counts as "the same line with a typo" at this similarity (0-100).
DRIFT_LINE_MIN = 72.0
# ... and the whole window must be at least this similar to `old` (0-100). Real drift measured
# 96-100 on our corpora, invented middles 50-76.
DRIFT_BLOCK_MIN = 90.0
# Candidate windows (or lines of `old`) beyond which one pass under the loosest tier narrows
# them for every tier: a window failing it fails them all.
PLAUSIBLE_MIN = 8
# Candidate windows beyond which reading every line at once is cheaper than line by line.
MANY_STARTS = 256
# Words `closest` may count afresh to place the nearest region (each is a scan of the file).
CLOSEST_SCANS = 8
# Files up to this many lines are searched line by line for a closest region no word places.
CLOSEST_SCAN_LINES = 2000
# How many of the longest words of `old` are counted to find the rarest one.
_WORDS_TRIED = 6
_WORD = re.compile(r"\w+")


def _loosest(line: str) -> str:
    return normalize.no_whitespace(normalize.fold_unicode(line))


def window_starts(
    index: LineIndex,
    old_lines: list[str],
    skip: frozenset[int] = frozenset(),
    table: bool = True,
    cut: bool = False,
) -> list[int]:
    """Every start line where a window of len(old) lines could match `old` under any tier.

    Lines in `skip` are not used as anchors (their words may be damaged). `table`: a wordless
    `old` whose characters are common everywhere may be looked up in a table of every line
    (whole-file work); without it, such an `old` has no start. `cut`: the first and last lines
    of `old` may be cut short (the file's lines only start with them).
    """
    n = len(old_lines)
    limit = len(index) - n
    anchored = anchor_lines(index, old_lines, skip, cut=cut)
    if anchored is not None:
        k, lines = anchored
        if len(lines) > MANY_STARTS:
            index.all_texts()  # every tier will read these windows: a list beats lazy reads
        return [s for s in (line - k for line in lines) if 0 <= s <= limit]
    keys = [_loosest(line) if k not in skip else "" for k, line in enumerate(old_lines)]
    found = _lines_by_char(index, keys)
    if found is None:
        found = _lines_by_block(index, keys, cut=cut)
    if found is None and table:
        found = _rarest_key(index.positions("loosest", _loosest), keys)
    if found is None:
        return []
    k, lines = found
    return [s for s in (line - k for line in lines) if 0 <= s <= limit]


def anchor_lines(
    index: LineIndex,
    old_lines: list[str],
    skip: frozenset[int] = frozenset(),
    gaps: bool = False,
    cut: bool = False,
) -> tuple[int, list[int]] | None:
    """(k, file lines) such that line k of `old` can only match one of those file lines under
    any tier: the lines of its rarest word, or, when every word is common, the places a
    whitespace-blind pattern of all its lines finds, else of one of its lines (the fewest).
    `gaps`: blank lines may come between the lines in the file; `cut`: see `window_starts`.
    None if `old` has no word."""
    anchor = rarest_word(index, old_lines, skip)
    if anchor is None:
        return None
    k, word = anchor
    if index.word_count(word) > COUNT_CAP:
        keys = [_loosest(line) if j not in skip else "" for j, line in enumerate(old_lines)]
        found = _lines_by_block(index, keys, gaps, cut) or _lines_by_pattern(index, old_lines, skip)
        if found is not None:
            return found
    return k, index.word_lines(word)


# Lines of `old` tried as a whitespace-blind pattern, and the matches that make one too common.
_PATTERN_LINES = 3
_PATTERN_MAX = 4 * COUNT_CAP
# For each character folding produces, the characters it is produced from (itself included).
_FOLDED_FROM: dict[str, str] = {}
for _source, _target in normalize.FOLDS.items():
    if len(_target) == 1:
        _FOLDED_FROM[_target] = _FOLDED_FROM.get(_target, _target) + _source
_BLANKS = "[^\\S\\n]*"  # whitespace within a line
_ANY_LINE = r"[^\n]*"


def _line_pattern(key: str) -> re.Pattern[str] | None:
    """A regex finding, in the raw file, every line that equals a line with `_loosest` key
    `key` under any line tier (blanks anywhere, folded characters as any of their sources);
    None when the key holds an elided `...` (one character in the file)."""
    if not key or "..." in key:
        return None
    parts = []
    for char in key:
        sources = _FOLDED_FROM.get(char)
        parts.append("[" + re.escape(sources) + "]" if sources else re.escape(char))
    return re.compile(_BLANKS.join(parts))


def _lines_by_pattern(
    index: LineIndex, old_lines: list[str], skip: frozenset[int]
) -> tuple[int, list[int]] | None:
    """(offset in old_lines, lines) for the longest lines of `old` found in the fewest file
    lines by a whitespace-blind regex scan (C speed, cost following the matches); None when the
    file has characters folding deletes (they may sit anywhere) or every line is common."""
    if index.has_zero_width:
        return None
    keyed = [(len(key), k, key) for k, key in enumerate(map(_loosest, old_lines)) if k not in skip]
    best: tuple[int, list[int]] | None = None
    for _, k, key in sorted(keyed, reverse=True)[:_PATTERN_LINES]:
        pattern = _line_pattern(key)
        if pattern is None:
            continue
        lines = index.pattern_lines(pattern, _PATTERN_MAX)
        if lines is not None and (best is None or len(lines) < len(best[1])):
            best = (k, lines)
    return best


def _lines_by_block(
    index: LineIndex, keys: list[str], gaps: bool = False, cut: bool = False
) -> tuple[int, list[int]] | None:
    """(0, lines) for every place where the file's lines, in order, equal the `_loosest` keys
    under any line tier (a blank key stands for any line), found by one regex scan: lines of
    `}`, `return 0;` and blanks are everywhere, their sequence seldom. `gaps`: blank lines may
    come between; `cut`: the first and last lines need only start like their keys. None when
    fewer than two keys make a pattern, the file has characters folding deletes, or the places
    are too many to be worth it."""
    if index.has_zero_width:
        return None
    parts = []
    for k, key in enumerate(keys):
        pattern = _line_pattern(key) if key else None
        if pattern is None:
            parts.append(_ANY_LINE)
        elif cut and k in (0, len(keys) - 1):
            parts.append(_BLANKS + pattern.pattern + _ANY_LINE)
        else:
            parts.append(_BLANKS + pattern.pattern + _BLANKS)
    if sum(part != _ANY_LINE for part in parts) < 2:
        return None  # one line alone is a single-line pattern's job (a sequence is what is rare)
    body = (r"\n(?:" + _BLANKS + r"\n)*" if gaps else r"\n").join(parts) + r"(?=\n|\Z)"
    # After a line break, as a lookahead: every place, overlapping ones included, and the
    # regex engine leaps from line break to line break.
    lines = index.pattern_lines(re.compile(r"\n(?=" + body + ")"), _PATTERN_MAX)
    if lines is None:
        return None
    starts = [line + 1 for line in lines]
    if re.match(body, index.content):
        starts.insert(0, 0)
    return 0, starts


# What folding and blank removal can produce from other characters: a line equal to a key under
# `_loosest` holds every other character of the key literally.
_PRODUCED = frozenset("'\"-. ")


def _lines_by_char(index: LineIndex, keys: list[str]) -> tuple[int, list[int]] | None:
    """(offset in keys, lines) for a wordless `old` (`}`, `{`, `);`) without normalising the
    whole file: the lines holding a character of one key, found with `str.find`, that equal that
    key under `_loosest`. The key whose character is rarest is used; None if no key has a
    character that only it can produce."""
    best: tuple[int, int, str] | None = None  # (count, offset in keys, char)
    for k, key in enumerate(keys):
        for char in dict.fromkeys(key):
            if char in _PRODUCED:
                continue
            count = index.word_count(char)
            if best is None or count < best[0]:
                best = (count, k, char)
    if best is None or best[0] > COUNT_CAP:
        return None  # common everywhere: the whole-file table is cheaper than checking each
    _, k, char = best
    texts = index.texts
    return k, [line for line in index.word_lines(char) if _loosest(texts[line]) == keys[k]]


def rarest_word(
    index: LineIndex, lines: list[str], skip: frozenset[int] = frozenset()
) -> tuple[int, str] | None:
    """(line in `lines`, word) for the word of `lines` that occurs least often in the file."""
    return index.memo(("rarest", tuple(lines), skip), lambda: _rarest_word(index, lines, skip))


def _rarest_word(
    index: LineIndex, lines: list[str], skip: frozenset[int]
) -> tuple[int, str] | None:
    words: dict[str, int] = {}
    for k, line in enumerate(lines):
        if k in skip:
            continue
        for word in _words(line):
            words.setdefault(word, k)
    if not words:
        return None
    best, best_count = "", -1
    for word in sorted(words, key=len, reverse=True)[:_WORDS_TRIED]:
        count = index.word_count(word)
        if best_count < 0 or count < best_count:
            best, best_count = word, count
        if count <= 1:
            break  # cannot do better, and every count is a scan of the whole file
    return words[best], best


def find_lines(
    index: LineIndex, old_lines: list[str], starts: list[int], fn: Normalizer
) -> list[Window]:
    """Windows among `starts` equal to `old` line by line under `fn`."""
    texts = index.texts
    n = len(old_lines)
    keys: list[str | None] = [None] * n  # normalised when a file line is not the same as it is
    # Longer lines first: they tell candidates apart sooner than `}` or a blank line.
    order = sorted(range(n), key=lambda j: -len(old_lines[j]))

    def same(line: str, j: int) -> bool:
        if line == old_lines[j]:
            return True
        key = keys[j]
        if key is None:
            key = keys[j] = fn(old_lines[j])
        return fn(line) == key

    return [
        Window(s, s + n - 1, list(range(n)))
        for s in starts
        if all(same(texts[s + j], j) for j in order)
    ]


def first_tier(
    index: LineIndex, old_lines: list[str], starts: list[int]
) -> tuple[str, list[Window]] | None:
    """(name, windows) of the strictest of LINE_TIERS under which any window among `starts`
    equals `old` line by line, as `find_lines` per tier in turn would find, in one pass: a
    line equal as it is matches under every tier, and only the others are normalised."""
    n = len(old_lines)
    every = (1 << len(LINE_TIERS)) - 1
    texts = index.texts
    keys: dict[tuple[int, int], str] = {}  # (tier, old line) -> normalised old line
    order = sorted(range(n), key=lambda j: -len(old_lines[j]))
    masks: list[tuple[int, int]] = []  # (start, tiers under which its window matches)
    for s in starts:
        window = texts[s : s + n]
        mask = every
        for j in order:
            line = window[j]
            if line == old_lines[j]:
                continue
            for t, (_, fn) in enumerate(LINE_TIERS):
                if mask >> t & 1:
                    key = keys.get((t, j))
                    if key is None:
                        key = keys[t, j] = fn(old_lines[j])
                    if fn(line) != key:
                        mask &= ~(1 << t)
            if not mask:
                break
        if mask:
            masks.append((s, mask))
    for t, (name, _) in enumerate(LINE_TIERS):
        found = [Window(s, s + n - 1, list(range(n))) for s, mask in masks if mask >> t & 1]
        if found:
            return name, found
    return None


def plausible_starts(index: LineIndex, old_lines: list[str], starts: list[int]) -> list[int]:
    """The starts whose window equals `old` under the loosest line tier: every line tier's
    match is among them (each compares less loosely), so many candidates are narrowed once."""
    if len(starts) <= PLAUSIBLE_MIN and len(old_lines) <= PLAUSIBLE_MIN:
        return starts
    return [w.first for w in find_lines(index, old_lines, starts, _loosest)]


def find_truncated(index: LineIndex, old_lines: list[str]) -> list[Window]:
    """Windows where the first and/or last line of `old` is a prefix of the file's: one of at
    least MIN_PREFIX characters, or a shorter one (`#ifdef`, `extern`) where VOUCHING_LINES
    other lines of `old` match whole and vouch for the place."""
    n = len(old_lines)
    if n < 2:
        return []
    fn = normalize.collapse_ws
    keys = [fn(line) for line in old_lines]
    head, tail = keys[0], keys[-1]
    cut_head, cut_tail = len(head) >= 3, len(tail) >= 3
    if not (cut_head or cut_tail):
        return []
    middle = sum(1 for key in keys[1:-1] if key)
    long_head = len(old_lines[0].rstrip()) >= MIN_PREFIX
    long_tail = len(old_lines[-1].rstrip()) >= MIN_PREFIX
    # A cut line is cut only at its end: all but its last word is reliable. Candidates come
    # from every end that may be cut (a long one, or a short one where middle lines could
    # vouch for it) taken as cut: a superset of taking fewer as cut, unless that leaves no
    # word to anchor on, when each such end is taken as cut alone. Never from a table of every
    # line (lines of `}` and blanks are everywhere, and vouch for no place).
    head_may = cut_head and (long_head or middle > 0)
    tail_may = cut_tail and (long_tail or middle > 0)
    variants = [_trim_ends(old_lines, head_may, tail_may)]
    if rarest_word(index, variants[0]) is None:
        variants += [_trim_ends(old_lines, head_may, False), _trim_ends(old_lines, False, tail_may)]
    found: set[int] = set()
    for trimmed in variants:
        if trimmed != old_lines and any(line.strip() for line in trimmed):
            found.update(window_starts(index, trimmed, table=False, cut=True))
    starts = sorted(found)
    texts = index.texts
    out: list[Window] = []
    for s in starts:
        first, last = fn(texts[s]), fn(texts[s + n - 1])
        whole_head, whole_tail = first == head, last == tail
        if whole_head and whole_tail:
            continue  # not truncated: an earlier tier owns this
        if not all(fn(texts[s + j]) == keys[j] for j in range(1, n - 1)):
            continue
        # Lines that vouch: the middle ones, and an end matching whole or cut but long.
        head_vouches = long_head or (whole_head and bool(head))
        tail_vouches = long_tail or (whole_tail and bool(tail))
        vouched_ok = middle + head_vouches + tail_vouches >= VOUCHING_LINES
        if not (whole_head or (cut_head and (long_head or vouched_ok) and first.startswith(head))):
            continue
        if not (whole_tail or (cut_tail and (long_tail or vouched_ok) and last.startswith(tail))):
            continue
        out.append(Window(s, s + n - 1, list(range(n))))
    return out


def _trim_ends(old_lines: list[str], head: bool, tail: bool) -> list[str]:
    """`old` with the last word of its first and/or last line left out (cut there)."""
    trimmed = list(old_lines)
    for k, cut in ((0, head), (len(old_lines) - 1, tail)):
        if cut:
            words = old_lines[k].split()
            trimmed[k] = old_lines[k].rsplit(None, 1)[0] if len(words) > 1 else ""
    return trimmed


def find_ignoring_blank_lines(index: LineIndex, old_lines: list[str]) -> list[Window]:
    """Windows whose non-blank lines equal the non-blank lines of `old` (blank lines differ)."""
    fn = normalize.collapse_ws
    solid = [(j, key) for j, key in enumerate(fn(line) for line in old_lines) if key]
    if not solid or len(old_lines) < 2:
        return []
    keys = [key for _, key in solid]
    anchored = anchor_lines(index, keys, gaps=True)
    texts = index.texts
    if anchored is None:
        return []
    k, lines = anchored
    seen: set[tuple[int, int]] = set()
    out: list[Window] = []
    for line in lines:
        placed = _place_skipping_blanks(texts, keys, k, line, fn)
        if placed is None:
            continue
        first, last = placed[0], placed[-1]
        if (first, last) in seen:
            continue
        seen.add((first, last))
        same_shape = last - first + 1 == len(old_lines) and all(
            (fn(texts[first + j]) == "") == (fn(line_) == "") for j, line_ in enumerate(old_lines)
        )
        if same_shape:
            continue  # same blank structure: an earlier tier owns this
        mapping: list[int | None] = [None] * len(old_lines)
        for (j, _), pos in zip(solid, placed, strict=True):
            mapping[j] = pos - first
        out.append(Window(first, last, mapping))
    return out


def _place_skipping_blanks(
    texts: Sequence[str], keys: list[str], k: int, line: int, fn: Normalizer
) -> list[int] | None:
    """File lines for each key when key k sits at `line` and blank lines are skipped between."""
    if fn(texts[line]) != keys[k]:
        return None
    placed = [line]
    pos = line
    for key in reversed(keys[:k]):
        pos -= 1
        while pos >= 0 and not fn(texts[pos]):
            pos -= 1
        if pos < 0 or fn(texts[pos]) != key:
            return None
        placed.insert(0, pos)
    pos = line
    for key in keys[k + 1 :]:
        pos += 1
        while pos < len(texts) and not fn(texts[pos]):
            pos += 1
        if pos >= len(texts) or fn(texts[pos]) != key:
            return None
        placed.append(pos)
    return placed


# A reflowed `old` must keep this many characters besides whitespace to vouch for a region,
# and have at most this many lines (line breaks moved is a slip over a few lines).
REFLOW_MIN = 24
REFLOW_MAX_LINES = 40


def find_reflowed(index: LineIndex, old_lines: list[str]) -> list[Window]:
    """Windows whose text equals `old`'s once every blank and line break is left out: `old`
    joined lines the file breaks (or broke one it joins). Only whole file lines are taken,
    and no line of `old` maps to one of the window (their boundaries differ).

    A file line holding the rarest word of `old` must sit whole in `old`'s text; from each
    place it does, the lines before and after are matched piece by piece, so a line that is
    not there costs one `str.find`."""
    if len(old_lines) > REFLOW_MAX_LINES:
        return []
    key = "".join(map(_loosest, old_lines))
    anchor = rarest_word(index, old_lines)
    if len(key) < REFLOW_MIN or anchor is None or index.word_count(anchor[1]) > COUNT_CAP:
        return []
    texts = index.texts
    found: dict[int, Window] = {}
    for line in index.word_lines(anchor[1]):
        piece = _loosest(texts[line])
        at = key.find(piece)
        while at >= 0:
            first, start = line, at
            while start > 0 and first > 0:
                before = _loosest(texts[first - 1])
                if not key.endswith(before, 0, start):
                    break
                first, start = first - 1, start - len(before)
            last, end = line, at + len(piece)
            while start == 0 and end < len(key) and last + 1 < len(index):
                after = _loosest(texts[last + 1])
                if not key.startswith(after, end):
                    break
                last, end = last + 1, end + len(after)
            if start == 0 and end == len(key):
                found.setdefault(first, Window(first, last, [None] * len(old_lines)))
            at = key.find(piece, at + 1)
    return sorted(found.values(), key=lambda w: w.first)


def find_drifted(index: LineIndex, old_lines: list[str]) -> list[tuple[Window, float]]:
    """Block anchor: first and last lines match, middle lines are `old`'s with small typos.

    Every middle line must either match or be a recognisable variant of its counterpart
    (similarity >= DRIFT_LINE_MIN), at least one must match as it is, and the whole block must
    be DRIFT_BLOCK_MIN similar: first/last-line anchors alone never make a match.
    """
    n = len(old_lines)
    if n < 3:
        return []
    fn = normalize.collapse_ws
    keys = [fn(line) for line in old_lines]
    if not keys[0] or not keys[-1]:
        return []
    ends = [old_lines[0], *([""] * (n - 2)), old_lines[-1]]
    if rarest_word(index, ends) is not None:
        starts = window_starts(index, ends)
    else:  # first and last lines have no word (`}`, `end`-less braces): anchor on the middle
        # lines that have one (a wordless middle line would mean reading the whole file).
        starts = sorted(
            {
                s
                for k in range(1, n - 1)
                if _words(old_lines[k])
                for s in window_starts(index, _only(old_lines, k))
            }
        )
    texts = index.texts
    allowed = max(2, (n - 2) // 3)
    out: list[tuple[Window, float]] = []
    for s in starts:
        if fn(texts[s]) != keys[0] or fn(texts[s + n - 1]) != keys[-1]:
            continue
        drifted = 0
        for j in range(1, n - 1):
            line = fn(texts[s + j])
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
            window = "\n".join(fn(t) for t in texts[s : s + n])
            score = fuzz.ratio(window, "\n".join(keys), score_cutoff=DRIFT_BLOCK_MIN)
            if score:
                out.append((Window(s, s + n - 1, list(range(n))), score / 100))
    return out


def closest(index: LineIndex, old_lines: list[str]) -> tuple[int, int, float] | None:
    """The window most similar to `old` (first, last, similarity 0-1), for error messages.

    The longest word of each line of `old` votes for where the window starts (lines whose word
    is everywhere do not vote); the best few starts are scored with rapidfuzz.
    """
    n = len(old_lines)
    total = len(index)
    if not n or not total:
        return None
    votes: dict[int, int] = {}
    step = max(1, n // 24)
    scans = CLOSEST_SCANS  # words counted afresh (each a scan of the file); known ones are free
    for k in range(0, n, step):
        # The longest word of the line that the file has, but not everywhere.
        word = None
        for w in sorted(set(_WORD.findall(old_lines[k])), key=len, reverse=True)[:2]:
            if len(w) < 3 or (scans <= 0 and not index.counted(w)):
                continue
            scans -= not index.counted(w)
            if 0 < index.word_count(w) <= COUNT_CAP:
                word = w
                break
        if word is None:
            continue
        for line in index.word_lines(word):
            votes[line - k] = votes.get(line - k, 0) + 1
    fn = normalize.collapse_ws
    starts = sorted(votes, key=lambda s: -votes[s])[:8]
    if not starts:
        if total > CLOSEST_SCAN_LINES:
            return None  # comparing every line costs more than the hint is worth
        probe = next(((k, fn(line)) for k, line in enumerate(old_lines) if line.strip()), None)
        if probe is None:
            return None
        hit = process.extractOne(probe[1], index.all_texts(), scorer=fuzz.ratio, processor=fn)
        starts = [hit[2] - probe[0]] if hit is not None else [0]
    target = "\n".join(fn(line) for line in old_lines)
    best: tuple[int, int, float] | None = None
    for s in starts:
        s = min(max(s, 0), max(total - n, 0))
        last = min(s + n, total) - 1
        window = "\n".join(fn(t) for t in index.texts[s : last + 1])
        score = Indel.normalized_similarity(window, target)
        if best is None or score > best[2]:
            best = (s, last, score)
    return best


@lru_cache(maxsize=4096)
def _words(line: str) -> tuple[str, ...]:
    """Words of a line (cached: every tier asks again for the same lines of `old`)."""
    return tuple(_WORD.findall(line))


def _only(lines: list[str], k: int) -> list[str]:
    return [line if j == k else "" for j, line in enumerate(lines)]


def _rarest_key(positions: dict[str, list[int]], keys: list[str]) -> tuple[int, list[int]] | None:
    """(offset in keys, file positions) of the non-blank key occurring least often."""
    best: tuple[int, list[int]] | None = None
    for k, key in enumerate(keys):
        if not key:
            continue
        found = positions.get(key)
        if not found:
            return None
        if best is None or len(found) < len(best[1]):
            best = (k, found)
    return best
