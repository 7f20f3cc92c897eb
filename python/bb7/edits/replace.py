"""Apply one (old, new) edit from a model to a file's content, or refuse it with a useful message.

The cascade runs cheapest and strictest first and stops at the first tier that finds anything:
a tier with one candidate applies, a tier with several is ambiguous (a `start_line` hint may pick
the nearest), so a looser tier never overrides a stricter one. Only the matched span is rewritten;
every other byte of the file, line endings and BOM included, is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import pairwise
from typing import NamedTuple

from rapidfuzz import fuzz
from rapidfuzz.distance import Indel

from bb7.edits import normalize
from bb7.edits.indent import leading, render, tab_indented, width
from bb7.edits.match import (
    Window,
    closest,
    find_drifted,
    find_ignoring_blank_lines,
    find_reflowed,
    find_truncated,
    first_tier,
    plausible_starts,
    window_starts,
)
from bb7.edits.normalize import collapse_ws
from bb7.edits.replacement import (
    Misplaced,
    Opcodes,
    build_lines,
    kept_stale_line,
    line_opcodes,
)
from bb7.edits.text import LineIndex
from bb7.edits.types import Applied, Candidate, EditError, EditOutcome
from bb7.text.lines import split_lines

BOM = "\ufeff"
# How similar (0-100) the last line of `new` must be to a file line that `old` cut short for
# `new` to count as restating it.
RESTATED_MIN = 80.0
# ... or how long, as a share of that file line, a line of `new` ending as it does must be.
RESTATED_LENGTH = 0.8
# Lines of `old` besides a stray first/last context line that must match for it to be dropped.
STRAY_REST_MIN = 2
# Candidate places of an ambiguous `old` (placements of an elided one) built to see whether
# they all give the same file.
MAX_SAME_PLACES = 16
EMPTY_OLD = (
    "old_string (or the SEARCH section) is empty but the file is not. An empty old_string only "
    "creates a new or empty file; it neither appends nor replaces the whole file, since either "
    "could be meant. To add text, put the line(s) next to the insertion point (the file's last "
    "lines, to append) in old_string and repeat them in new_string with the addition; to "
    "rewrite the file, use write_file, or put its whole current content in old_string."
)
_TRIED = (
    "exact text, whole lines, trailing whitespace, indentation, inner whitespace, unicode "
    "quotes/dashes, over-escaping, line-number gutters, truncated first/last lines, blank lines, "
    "line breaks, a fuzzy block match anchored on the first and last lines, a first or last "
    "line the file lacks, and `...` elisions"
)


def replace(
    content: str,
    old: str,
    new: str,
    *,
    replace_all: bool = False,
    start_line: int | None = None,
    index: LineIndex | None = None,
    path: str | None = None,
    whole_lines: bool = False,
    tab_width: int | None = None,
    place: int | None = None,
) -> EditOutcome:
    """Replace `old` with `new` in `content`.

    `start_line` (1-based) only chooses between otherwise equal candidates. `index` may be passed
    to reuse the line index of `content` across several edits (it must describe `content` without
    its BOM). `path` (the file's name) tells prose such as Markdown, where a literal `...` is
    punctuation rather than an elision. `whole_lines`: `old` and `new` are whole lines (text
    blocks), so an `old` line found only after a line's indentation is that line, dedented.
    `tab_width`: the project's setting for the file (.editorconfig); a modeline beats it.
    `place` (0-based): which of the `places` of an ambiguous refusal to edit, as the user chose.
    """
    if old == new:
        return _invalid(
            "old_string and new_string are identical, so the edit would change nothing. "
            "Send the changed text in new_string."
        )
    options = _Options(
        replace_all, start_line, normalize.is_prose(path), whole_lines, tab_width, place
    )
    return _replace(content, old, new, options, index)


def locate(
    content: str,
    old: str,
    *,
    start_line: int | None = None,
    index: LineIndex | None = None,
    path: str | None = None,
) -> EditOutcome:
    """Where `replace` would find `old`, as an `Applied` that changes nothing (strategy
    `unchanged`), or why it would not: for edits whose new text equals `old`."""
    if not old:
        return _invalid(EMPTY_OLD)
    options = _Options(False, start_line, normalize.is_prose(path))
    outcome = _replace(content, old, old, options, index)
    if not isinstance(outcome, Applied):
        return outcome
    return Applied(content, "unchanged", outcome.start_line, outcome.end_line, outcome.similarity)


class _Options(NamedTuple):
    replace_all: bool
    hint: int | None
    prose: bool = False
    whole_lines: bool = False
    tab_width: int | None = None  # configured for the file (.editorconfig)
    place: int | None = None  # the user's choice among an ambiguous edit's places


def _replace(
    content: str, old: str, new: str, options: _Options, index: LineIndex | None
) -> EditOutcome:
    """`replace` after its argument checks."""
    bom = BOM if content.startswith(BOM) else ""
    body = content[len(bom) :]
    old = old.removeprefix(BOM).replace("\r\n", "\n")
    if not old:
        if body:
            return _invalid(EMPTY_OLD)
        # A new file: a BOM the model wrote is part of its content.
        lines = new.count("\n") + (0 if new.endswith("\n") else 1)
        return Applied(bom + new.removeprefix(bom), "create", 1, max(lines, 1), 1.0)
    new = new.removeprefix(BOM)
    new = new.replace("\r\n", "\n")
    if index is None or index.content != body:
        index = LineIndex(body)
    search = _Search(index, *options)
    old_lines = split_lines(old, crlf=True)
    new_lines = split_lines(new, crlf=True) if new else []
    if new.endswith("\n") and not old.endswith("\n") and new_lines:
        # `old` ends inside its last line and `new` ends with a line break: that break ends a
        # line of its own (as the exact tier would splice it), so `new` has an empty last line.
        new_lines.append("")

    bad = _new_elides_code(index, old_lines, new_lines, search.prose)
    if bad is not None:
        return bad
    for attempt in search.attempts(old, new, old_lines, new_lines):
        outcome = attempt()
        if outcome is not None:
            return _with_bom(outcome, bom)
    return _not_found(index, old_lines)


@dataclass
class _Search:
    index: LineIndex
    replace_all: bool
    hint: int | None
    prose: bool = False
    whole_lines: bool = False
    tab_width: int | None = None  # configured for the file (.editorconfig)
    place: int | None = None  # the user's choice among an ambiguous edit's places

    def attempts(
        self, old: str, new: str, old_lines: list[str], new_lines: list[str]
    ) -> Iterator[Callable[[], EditOutcome | None]]:
        """Every tier in cascade order, each a thunk returning None when it found nothing."""
        yield partial(self.exact, old, new, "exact")
        yield partial(self.lines, old_lines, new_lines, "")
        for variant, decoded in normalize.unescape_variants(old):
            fixed = normalize.unescape_like(new, decoded, variant, old)
            yield partial(self.exact, decoded, fixed, "escape")
            yield partial(
                self.lines,
                split_lines(decoded, crlf=True),
                split_lines(fixed, crlf=True) if fixed else [],
                "escape+",
            )
        gutter = normalize.strip_gutters(old_lines)
        if gutter is not None:
            pattern, first_number = gutter
            bare_old = normalize.remove_gutter(old_lines, pattern)
            bare_new = normalize.remove_gutter(new_lines, pattern)
            # The gutter says where the model saw `old`: as good as a start_line it did not send.
            if self.hint is None:
                self.hint = first_number
            old_end = "\n" if old.endswith("\n") else ""
            new_end = "\n" if new.endswith("\n") else ""
            yield partial(
                self.exact, "\n".join(bare_old) + old_end, "\n".join(bare_new) + new_end, "gutter"
            )
            yield partial(self.lines, bare_old, bare_new, "gutter+")
        if self.replace_all:
            return  # every occurrence of a guessed region is too much to risk
        # Every non-blank line equal, blank lines aside, before an end line matched by its
        # start only (a `return spec` cut from `return specs.some(...)` elsewhere).
        yield lambda: self.windows(
            "blank_lines", find_ignoring_blank_lines(self.index, old_lines), old_lines, new_lines
        )
        yield partial(self.truncated, old_lines, new_lines)
        yield partial(self.reflowed, old_lines, new_lines)
        yield partial(self.drifted, old_lines, new_lines)
        yield partial(self.stray_context, old_lines, new_lines)
        if any(normalize.elision_flags(old_lines, self.prose)):
            yield partial(self.elided, old_lines, new_lines)

    # --- tiers ---------------------------------------------------------------------------------

    def exact(self, old: str, new: str, strategy: str) -> EditOutcome | None:
        body = self.index.content
        for probe in _eol_variants(old, self.index):
            hits = _occurrences(body, probe)
            if not hits:
                continue
            if self.replace_all:
                return self._exact_all(probe, new, hits, strategy)
            if len(hits) > 1 and old[:1] in (" ", "\t"):
                # `old` spelled out its indentation: a hit that is really the tail of a deeper
                # indented line is not what it meant.
                hits = [h for h in hits if h == 0 or body[h - 1] == "\n"] or hits
            if len(hits) > 1 and (self.whole_lines or "\n" in old.strip("\n")):
                # Whole lines before substrings: a SEARCH of whole lines (`}`) that is a whole
                # line in one place only means that place, not the longer lines holding it.
                whole = [h for h in hits if _whole_lines_at(body, h, probe)]
                if len(whole) == 1:
                    hits = whole
            if len(hits) == 1 and self._partly_indented(old, new, probe, hits[0]):
                # One line sent with part of its indentation (4 of 8 blanks, 1 of 2 tabs), and
                # `new` adds lines: spliced in, they would land too shallow. The indentation
                # tier matches the whole line and shifts them by what `old` left out; this hit
                # says which line, where its text alone may stand on several.
                self.hint = self.index.line_of(hits[0]) + 1
                return None
            dedented = self._whole_line_dedented(old, new, probe, hits)
            if dedented is not None:
                # One whole line sent without its indentation, and `new` adds lines. Added lines
                # at column 0 were written at the same dedented depth: the line tiers re-indent
                # them (a substring splice would leave them unindented). Indented ones fit two
                # readings (relative to `old`'s line, or already at the file's depth): refused.
                if any(leading(line) for line in new.split("\n")[1:] if line.strip()):
                    return _dedented_line_unclear(dedented)
                return None
            lines = [line + 1 for line in self.index.lines_of(hits)]
            spans = [(ln, ln + probe.rstrip("\r\n").count("\n")) for ln in lines]
            return self._resolve(
                spans, strategy, self._exact_places(hits, probe, old, new, strategy)
            )
        return None

    def _exact_places(
        self, hits: list[int], probe: str, old: str, new: str, strategy: str
    ) -> Callable[[int], EditOutcome]:
        return lambda k: self._exact_at(hits[k], probe, old, new, strategy)

    def _exact_at(self, hit: int, probe: str, old: str, new: str, strategy: str) -> EditOutcome:
        """The exact match at offset `hit` replaced (completed to whole lines where meant)."""
        body = self.index.content
        span = self._complete_lines(hit, hit + len(probe), old, new)
        if span is None:
            return _cut_line_unclear(self.index.line_of(hit) + 1 + old.count("\n"))
        at, end, new = span
        eol = self.index.line_bounds(at)[2] or self.index.eol
        text = new.replace("\n", eol) if eol != "\n" else new
        content = "".join((body[:at], text, body[end:]))
        first = self.index.line_of(at)
        last = first + body.count("\n", at, max(end - 1, at))
        return Applied(content, strategy, first + 1, last + 1, 1.0)

    def _resolve(
        self, spans: list[tuple[int, int]], strategy: str, at: Callable[[int], EditOutcome]
    ) -> EditOutcome:
        """The outcome among candidate places (1-based line spans) that `at(k)` applies: the
        only one, the one the hint or the user's `place` picks, or, when every place gives the
        same file (one of two identical adjacent lines deleted), the first; else ambiguous."""
        chosen = self._choose([first for first, _ in spans])
        if chosen is None and self.place is not None and 0 <= self.place < len(spans):
            chosen = self.place
        if chosen is not None:
            return at(chosen)
        # Places that give the same file run together (one of two identical adjacent lines);
        # scattered ones are not built.
        if len(spans) <= MAX_SAME_PLACES and all(
            b[0] <= a[1] + 1 for a, b in pairwise(sorted(spans))
        ):
            outcomes = [at(0)]
            for k in range(1, len(spans)):
                outcome, first = at(k), outcomes[0]
                if not (
                    isinstance(outcome, Applied)
                    and isinstance(first, Applied)
                    and outcome.content == first.content
                    # A no-op (`locate`) is the same file everywhere but says where nothing.
                    and first.content != self.index.content
                ):
                    break
                outcomes.append(outcome)
            else:
                # Every place gives the same file: the tightest is reported.
                return outcomes[min(range(len(spans)), key=lambda k: spans[k][1] - spans[k][0])]
        return _ambiguous(spans, strategy)

    def _partly_indented(self, old: str, new: str, probe: str, hit: int) -> bool:
        """Whether a one-line `old` that starts with indentation was found after more of it
        (inside the line's indentation), ending its line, while `new` adds lines."""
        if old[:1] not in (" ", "\t") or "\n" in old.rstrip("\n") or "\n" not in new.rstrip("\n"):
            return False
        body = self.index.content
        start, end, _ = self.index.line_bounds(hit)
        return (
            hit > start
            and not body[start:hit].strip(" \t")
            and not body[hit + len(probe.rstrip("\r\n")) : end].strip()
        )

    def _whole_line_dedented(self, old: str, new: str, probe: str, hits: list[int]) -> int | None:
        """For whole-line edits: the 1-based line of an exact hit that is one whole indented file
        line `old` spelled without its indentation, when `new` adds lines; None otherwise.

        Only a one-line `old` qualifies: with more lines, the exact match of its later lines
        proves they carry the file's indentation, so the first line was copied from mid-line.
        """
        if not self.whole_lines or old[:1] in (" ", "\t"):
            return None
        if "\n" in old.rstrip("\n") or "\n" not in new.rstrip("\n"):
            return None
        body = self.index.content
        for hit in hits:
            start, end, _ = self.index.line_bounds(hit)
            if hit == start or body[start:hit].strip(" \t"):
                return None
            if body[hit + len(probe.rstrip("\r\n")) : end].strip():
                return None
        return self.index.line_of(hits[0]) + 1

    def _complete_lines(
        self, start: int, end: int, old: str, new: str
    ) -> tuple[int, int, str] | None:
        """The span an exact match should replace, and the text to put there, so that it covers
        whole lines where the model evidently meant whole lines.

        - `new` is empty and `old` is all the text of its lines (indentation aside): the lines
          go, not just their text (no blank or whitespace-only line is left behind). An `old`
          starting with a line break already takes a line's worth of breaks: it is exact.
        - Only trailing whitespace follows the match on its line: it goes with the replaced text.
        - A multi-line `old` whose last line was cut short: a match ending inside a line is a
          cut, not a substring edit, and `new` must show what becomes of that line. Restated
          in full (perhaps changed) or deleted: the rest of the file line goes too, or it would
          be doubled or left dangling. Kept as sent: `new` gets the rest of the line back.
          Neither: None (the edit is refused).
        - A multi-line `old` whose first line starts inside a file line: see `_cut_head_goes`.
        """
        index = self.index
        first_start = index.line_bounds(start)[0]
        if self._cut_head_goes(first_start, start, old, new):
            start = first_start
        if old.endswith("\n"):
            if not new and not index.content[first_start:start].strip():
                return first_start, end, new
            return start, end, new
        line_start, line_end, eol = index.line_bounds(end)
        if end <= line_start:
            return start, end, new
        rest = index.content[end:line_end]
        if (
            not new
            and not old.startswith("\n")  # it takes the line break before it, not a line
            and not rest.strip()
            and not index.content[first_start:start].strip()
        ):
            return first_start, line_end + len(eol), new
        if rest and not rest.strip():
            return start, line_end, new
        if rest and "\n" in old and old.rsplit("\n", 1)[1].strip():
            old_lines, new_lines = old.split("\n"), new.split("\n")
            last = len(old_lines) - 1
            fate = _cut_line_fate(
                line_opcodes(old_lines, new_lines), old_lines, new_lines, last, old_lines[-1] + rest
            )
            if fate is None:
                return None
            if fate >= 0:
                new_lines[fate] += rest
            return start, line_end, "\n".join(new_lines)
        return start, end, new

    def _cut_head_goes(self, line_start: int, start: int, old: str, new: str) -> bool:
        """Whether an exact match of a multi-line `old` that starts inside a file line should
        take the line's head too. A substring edit keeps it, unless `new` restates the whole
        line (perhaps changed; its indentation, when the head is only that) or drops it beside
        lines it keeps: the head would be doubled or left dangling."""
        head = self.index.content[line_start:start]
        if not head or "\n" not in old.rstrip("\n"):
            return False
        old_lines, new_lines = old.split("\n"), new.split("\n")
        if not head.strip(" \t"):
            # `new` carries the indentation `old` left out: its first line is that
            # indentation before text (blanks alone carry nothing).
            first = new_lines[0]
            return not leading(old_lines[0]) and leading(first) == head and bool(first.strip())
        opcodes = line_opcodes(old_lines, new_lines)
        return _cut_line_fate(opcodes, old_lines, new_lines, 0, head + old_lines[0]) == -1

    def lines(self, old_lines: list[str], new_lines: list[str], prefix: str) -> EditOutcome | None:
        found = self._first_tier(old_lines)
        if found is None:
            return None
        return self.windows(prefix + found[0], found[1], old_lines, new_lines)

    def truncated(self, old_lines: list[str], new_lines: list[str]) -> EditOutcome | None:
        """`old` whose first or last line is the start of the file's line. `new` must show what
        became of each cut line: kept as sent (the file's line is restored), deleted, or
        restated in full (perhaps changed); a line of `new` that is neither would land in place
        of the whole file line, so such a window is not taken."""
        opcodes = line_opcodes(old_lines, new_lines)
        found = [
            w
            for w in find_truncated(self.index, old_lines)
            if all(
                _cut_line_fate(opcodes, old_lines, new_lines, i, self.index.texts[w.first + i])
                is not None
                for i in (0, len(old_lines) - 1)
            )
        ]
        return self.windows("truncated_ends", found, old_lines, new_lines)

    def reflowed(self, old_lines: list[str], new_lines: list[str]) -> EditOutcome | None:
        """`old` with its line breaks elsewhere than the file's (lines joined or split). No
        line of `new` ties to a file line, so `new` lands as sent, moved by as many columns as
        the file's first line is deeper than `old`'s."""
        found = find_reflowed(self.index, old_lines)
        if not found:
            return None
        first_old = next(line for line in old_lines if line.strip())

        def at(k: int) -> EditOutcome:
            window = found[k]
            head = self.index.texts[window.first]
            if self.tab_width or tab_indented(head) or tab_indented(first_old):
                tab = self.index.tab_width(self.tab_width) or 4
            else:
                tab = 4
            shift = width(leading(head), tab) - width(leading(first_old), tab)
            style = self.index.indent_style(window.first, window.last) or " "
            out = [
                render(width(leading(line), tab) + shift, style, tab) + line.lstrip(" \t")
                if shift and line.strip()
                else line
                for line in new_lines
            ]
            content = self._splice(window.first, window.last, out)
            similarity = self._similarity(window.first, window.last, old_lines)
            return Applied(content, "reflowed", window.first + 1, window.last + 1, similarity)

        return self._resolve([(w.first + 1, w.last + 1) for w in found], "reflowed", at)

    def drifted(self, old_lines: list[str], new_lines: list[str]) -> EditOutcome | None:
        scored = find_drifted(self.index, old_lines)
        if not scored:
            return None
        return self.windows(
            "block_anchor", [w for w, _ in scored], old_lines, new_lines, [s for _, s in scored]
        )

    def stray_context(self, old_lines: list[str], new_lines: list[str]) -> EditOutcome | None:
        """`old` whose first or last line is context the file does not have anywhere (a line
        the model misremembered, or its code fence leaking into the block) and that `new`
        repeats unchanged at the same edge: the rest, at least STRAY_REST_MIN non-blank lines,
        must match by the line tiers. The stray line is dropped from both sides, so only lines
        the file really has are replaced."""
        if len(old_lines) < 3 or len(new_lines) < 2:
            return None
        for edge in (-1, 0):
            line = old_lines[edge]
            if new_lines[edge] != line or not line.strip() or line.strip() in self.index.content:
                continue
            rest_old = old_lines[:-1] if edge == -1 else old_lines[1:]
            rest_new = new_lines[:-1] if edge == -1 else new_lines[1:]
            if sum(1 for x in rest_old if x.strip()) < STRAY_REST_MIN:
                continue
            found = self._first_tier(rest_old)
            if found is not None:
                return self.windows("stray_context", found[1], rest_old, rest_new)
        return None

    def elided(self, old_lines: list[str], new_lines: list[str]) -> EditOutcome | None:
        old_parts = _split_at_elisions(old_lines, self.prose)
        new_parts = _split_at_elisions(new_lines, self.prose)
        if len(new_parts) != len(old_parts):
            return _invalid(
                f"old_string has {len(old_parts) - 1} `...` elision(s) but new_string has "
                f"{len(new_parts) - 1}. Keep every elision line of old_string in new_string at the "
                "same place (it stands for the unchanged code there), or spell the code out."
            )
        # Elisions at the very start or end stand for nothing to anchor; drop matching ones.
        while old_parts and not old_parts[0] and not new_parts[0]:
            old_parts, new_parts = old_parts[1:], new_parts[1:]
        while old_parts and not old_parts[-1] and not new_parts[-1]:
            old_parts, new_parts = old_parts[:-1], new_parts[:-1]
        if not old_parts or any(not part for part in old_parts):
            return None
        candidates: list[list[Window]] = []
        strategies: list[str] = []
        for part in old_parts:
            found = self._first_tier(part)
            if found is None:
                return None
            strategies.append(found[0])
            candidates.append(found[1])
        chains = _chains(candidates, limit=MAX_SAME_PLACES + 1)
        if not chains:
            return None

        def at(k: int) -> EditOutcome:
            chain = chains[k]
            content = self._elision_content(chain, old_parts, new_parts)
            if isinstance(content, EditError):
                return content
            first, last = chain[0].first, chain[-1].last
            similarity = self._similarity(first, last, [ln for part in old_parts for ln in part])
            return Applied(content, "elision", first + 1, last + 1, similarity)

        # Placements that differ in what they would change make the edit ambiguous; where
        # every one gives the same file (the parts placed differently are kept as they are),
        # it is applied.
        return self._resolve([(c[0].first + 1, c[-1].last + 1) for c in chains], "elision", at)

    def _elision_content(
        self, chain: list[Window], old_parts: list[list[str]], new_parts: list[list[str]]
    ) -> str | EditError:
        out: list[str] = []
        for k, (window, old_part, new_part) in enumerate(
            zip(chain, old_parts, new_parts, strict=True)
        ):
            built = self._build(window, old_part, new_part)
            if isinstance(built, EditError):
                return built
            out.extend(built)
            if k + 1 < len(chain):
                out.extend(self.index.texts[window.last + 1 : chain[k + 1].first])
        return self._splice(chain[0].first, chain[-1].last, out)

    # --- resolution ----------------------------------------------------------------------------

    def windows(
        self,
        strategy: str,
        found: list[Window],
        old_lines: list[str],
        new_lines: list[str],
        scores: list[float] | None = None,
    ) -> EditOutcome | None:
        if not found:
            return None
        if self.replace_all:
            chosen: list[Window] = []
            for window in sorted(found, key=lambda w: w.first):
                if not chosen or window.first > chosen[-1].last:
                    chosen.append(window)
            content = self.index.content
            for window in reversed(chosen):
                out = self._build(window, old_lines, new_lines)
                if isinstance(out, EditError):
                    return out
                content = self._splice(window.first, window.last, out, content)
            return Applied(
                content, strategy, chosen[0].first + 1, chosen[-1].last + 1, 1.0, len(chosen)
            )
        return self._resolve(
            [(w.first + 1, w.last + 1) for w in found],
            strategy,
            lambda k: self._window_at(found[k], old_lines, new_lines, strategy, scores, k),
        )

    def _window_at(
        self,
        window: Window,
        old_lines: list[str],
        new_lines: list[str],
        strategy: str,
        scores: list[float] | None,
        k: int,
    ) -> EditOutcome:
        """`new` in place of one candidate window, unless it would keep a stale line."""
        texts = self.index.texts[window.first : window.last + 1]
        stale = kept_stale_line(old_lines, new_lines, texts, window.mapping)
        if stale is not None:
            return _stale_line_kept(window.first + stale[1] + 1, old_lines[stale[0]])
        out = self._build(window, old_lines, new_lines)
        if isinstance(out, EditError):
            return out
        content = self._splice(window.first, window.last, out)
        similarity = scores[k] if scores else self._similarity(window.first, window.last, old_lines)
        return Applied(content, strategy, window.first + 1, window.last + 1, similarity)

    def _choose(self, starts: list[int]) -> int | None:
        """Index of the candidate to edit: the only one, or the one the hint clearly points at."""
        if len(starts) == 1:
            return 0
        if self.hint is None:
            return None
        ranked = sorted(range(len(starts)), key=lambda i: abs(starts[i] - self.hint))  # type: ignore[operator]
        near = abs(starts[ranked[0]] - self.hint)
        runner_up = abs(starts[ranked[1]] - self.hint)
        if near < runner_up and near <= max(10, runner_up // 2):
            return ranked[0]
        return None

    def _first_tier(self, old_lines: list[str]) -> tuple[str, list[Window]] | None:
        """(tier name, windows) of the strictest line tier with any candidate."""
        starts = plausible_starts(self.index, old_lines, window_starts(self.index, old_lines))
        return first_tier(self.index, old_lines, starts) if starts else None

    def _exact_all(self, probe: str, new: str, hits: list[int], strategy: str) -> Applied:
        body = self.index.content
        text = new.replace("\n", self.index.eol) if self.index.eol != "\n" else new
        parts: list[str] = []
        cursor = 0
        used: list[int] = []
        for at in hits:
            if at < cursor:
                continue  # overlapping occurrence
            parts.append(body[cursor:at])
            parts.append(text)
            cursor = at + len(probe)
            used.append(at)
        parts.append(body[cursor:])
        first = self.index.line_of(used[0]) + 1
        last = self.index.line_of(used[-1] + max(len(probe) - 1, 0)) + 1
        return Applied("".join(parts), strategy, first, last, 1.0, len(used))

    def _build(
        self, window: Window, old_lines: list[str], new_lines: list[str]
    ) -> list[str] | EditError:
        texts = self.index.texts[window.first : window.last + 1]
        style = self.index.indent_style(window.first, window.last)
        # Tabs in play: the file's own tab width, if it has one, beats inferring it.
        tabbed = any(map(tab_indented, texts)) or any(map(tab_indented, old_lines))
        tab = self.index.tab_width(self.tab_width) if tabbed else None
        built = build_lines(old_lines, new_lines, texts, window.mapping, style, tab)
        if isinstance(built, Misplaced):
            lines = [window.first + (window.mapping[i] or 0) + 1 for i in built.old_lines]
            return _misplaced_kept(lines, [old_lines[i] for i in built.old_lines])
        return built

    def _splice(self, first: int, last: int, out: list[str], content: str | None = None) -> str:
        body = self.index.content if content is None else content
        if not out:
            start, end = self.index.span_with_eol(first, last)
            return body[:start] + body[end:]
        start, end = self.index.span(first, last)
        eol = self.index.eol_at(first) or self.index.eol
        return "".join((body[:start], eol.join(out), body[end:]))

    def _similarity(self, first: int, last: int, old_lines: list[str]) -> float:
        window = "\n".join(self.index.texts[first : last + 1])
        return round(Indel.normalized_similarity(window, "\n".join(old_lines)), 4)


# --- helpers -------------------------------------------------------------------------------------


def _eol_variants(old: str, index: LineIndex) -> list[str]:
    """`old` as sent (LF), and with CRLF when the file uses CRLF: match on LF, keep CRLF."""
    variants = [old]
    if "\n" in old and index.has_crlf:
        variants.append(old.replace("\n", "\r\n"))
    return variants


def _occurrences(body: str, probe: str) -> list[int]:
    """Start offsets of every occurrence, overlapping ones included (they make edits ambiguous)."""
    hits: list[int] = []
    at = body.find(probe)
    while at >= 0:
        hits.append(at)
        at = body.find(probe, at + 1)
    return hits


def _whole_lines_at(body: str, at: int, probe: str) -> bool:
    """Whether `probe` found at `at` starts a line and ends one."""
    end = at + len(probe)
    starts = at == 0 or body[at - 1] == "\n"
    return starts and (probe.endswith("\n") or end == len(body) or body[end] in "\r\n")


def _restates(cut: str, line: str, full: str) -> bool:
    """Whether `line` restates (perhaps changed) the whole file line `full` that `cut` was cut
    from: it is at least RESTATED_MIN similar to the full line and closer to it than to the cut,
    or a line of nearly the full line's length ending as it does (a literal changed whole)."""
    ours, theirs = line.strip(), full.strip()
    if not cut.strip() or len(ours) <= len(cut.strip()):
        return False
    if line == full:
        return True
    to_full = fuzz.ratio(line, full, score_cutoff=RESTATED_MIN)
    if to_full > fuzz.ratio(line, cut):
        return True
    return ours[-1] == theirs[-1:] and len(ours) >= RESTATED_LENGTH * len(theirs)


def _cut_line_fate(
    opcodes: Opcodes, old_lines: list[str], new_lines: list[str], i: int, file_line: str
) -> int | None:
    """What `new` does with old line i, which may be cut from `file_line`: the index of the
    new line that keeps it as sent, -1 when `new` deletes or restates it (or it is not cut),
    None when `new` does neither (a line in its place would stand for the whole file line)."""
    cut = old_lines[i]
    if collapse_ws(cut) == collapse_ws(file_line):
        return -1  # not cut
    for k, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if not i1 <= i < i2:
            continue
        if tag == "equal":
            return j1 + i - i1
        if tag == "delete":
            # Deleted next to lines `new` keeps (not merely blank ones): the model dropped the
            # line. Next to nothing kept, the alignment says nothing.
            side = opcodes[:k] if i else opcodes[k + 1 :]
            if not side or side[-1 if i else 0][0] != "equal":
                return None
            kept = (ln for tag_, n1, n2, _, _ in side if tag_ == "equal" for ln in old_lines[n1:n2])
            return -1 if any(ln.strip() for ln in kept) else None
        restated = any(_restates(cut, new_lines[j], file_line) for j in range(j1, j2))
        return -1 if restated else None
    return -1


def _split_at_elisions(lines: list[str], prose: bool) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for line, elided in zip(lines, normalize.elision_flags(lines, prose), strict=True):
        if elided:
            parts.append([])
        else:
            parts[-1].append(line)
    return parts


def _chains(candidates: list[list[Window]], limit: int) -> list[list[Window]]:
    """Up to `limit` ways to place every part in order without overlap."""
    found: list[list[Window]] = []

    def extend(k: int, after: int, chain: list[Window]) -> None:
        if len(found) >= limit:
            return
        if k == len(candidates):
            found.append(list(chain))
            return
        for window in candidates[k]:
            if window.first > after:
                chain.append(window)
                extend(k + 1, window.last, chain)
                chain.pop()

    extend(0, -1, [])
    return found


def _new_elides_code(
    index: LineIndex, old_lines: list[str], new_lines: list[str], prose: bool
) -> EditError | None:
    """Refuse a `new` with more `...` elisions than `old`: applying it would delete code."""
    flags = normalize.elision_flags(new_lines, prose)
    marked = [ln for ln, elided in zip(new_lines, flags, strict=True) if elided]
    if not marked or len(marked) <= sum(normalize.elision_flags(old_lines, prose)):
        return None
    if all(index.has_line(ln) for ln in marked):
        return None  # the file itself has such lines: they are code, not elisions
    return _invalid(
        "new_string contains an elision such as `...` or `// ... existing code ...` that "
        "old_string does not have; applying it would replace real code with the placeholder. "
        "Write out the complete new text, or put the same elision line in old_string too."
    )


def _with_bom(outcome: EditOutcome, bom: str) -> EditOutcome:
    if bom and isinstance(outcome, Applied):
        return Applied(
            bom + outcome.content,
            outcome.strategy,
            outcome.start_line,
            outcome.end_line,
            outcome.similarity,
            outcome.count,
        )
    return outcome


def _dedented_line_unclear(line: int) -> EditError:
    return EditError(
        "ambiguous",
        f"old_string matches line {line} only without that line's indentation, and the lines "
        "new_string adds are indented: they may be relative to old_string's line or already at "
        "the file's depth. Nothing was changed. Send old_string and new_string with the "
        "indentation the lines have in the file.",
        Candidate(line, line, 1.0, ""),
    )


def _stale_line_kept(line: int, text: str) -> EditError:
    return EditError(
        "not_found",
        f"old_string matches the file only loosely: its line `{text.strip()}` is line {line} "
        "of the file in another version, and new_string keeps it as old_string has it, which "
        "would write that text back over the file's. Nothing was changed. Copy old_string from "
        "the file as it is now and send the edit again.",
        Candidate(line, line, 0.0, ""),
    )


def _misplaced_kept(lines: list[int], texts: list[str]) -> EditError:
    shown = f"lines {lines[0]}-{lines[-1]}" if len(lines) > 1 else f"line {lines[0]}"
    return EditError(
        "ambiguous",
        f"old_string has `{texts[0].strip()}` ({shown} of the file) at another depth, "
        "relative to its other lines, than the file has it, and new_string keeps it there: "
        "whether it should move or is a slip in copying cannot be told. Nothing was changed. "
        "Copy old_string from the file as it is (indentation included) and indent new_string "
        "as the lines should end up.",
        Candidate(lines[0], lines[-1], 1.0, ""),
    )


def _cut_line_unclear(line: int) -> EditError:
    return EditError(
        "ambiguous",
        f"old_string ends inside line {line}, and new_string neither keeps that cut line as it "
        "is, restates it whole, nor deletes it, so what becomes of the rest of the line is "
        "unclear. Nothing was changed. Send whole lines: the full line in old_string and what "
        "it should become in new_string.",
        Candidate(line, line, 1.0, ""),
    )


def _invalid(message: str) -> EditError:
    return EditError("invalid", message)


def _ambiguous(spans: list[tuple[int, int]], strategy: str) -> EditError:
    shown = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans[:8])
    more = f" and {len(spans) - 8} more" if len(spans) > 8 else ""
    how = "exactly" if strategy == "exact" else f"(matching by {strategy})"
    return EditError(
        "ambiguous",
        f"old_string matches {len(spans)} places {how}: lines {shown}{more}. Nothing was changed. "
        "Add surrounding lines to old_string so it matches only the place you mean, give "
        "start_line for that place, or set replace_all to change every occurrence.",
        Candidate(spans[0][0], spans[0][1], 1.0, ""),
        tuple(Candidate(first, last, 1.0, "") for first, last in spans),
    )


def _not_found(index: LineIndex, old_lines: list[str]) -> EditError:
    near = closest(index, old_lines)
    if near is None:
        return EditError(
            "not_found",
            "old_string was not found: the file is empty or shares nothing with it. "
            f"Tried {_TRIED}.",
        )
    first, last, score = near
    text = "\n".join(index.texts[first : last + 1])
    pct = round(score * 100)
    return EditError(
        "not_found",
        f"old_string was not found in the file. Tried {_TRIED}. The closest region is lines "
        f"{first + 1}-{last + 1} ({pct}% similar):\n{text}\n"
        "Copy old_string exactly from the file as it is now (indentation included) and send the "
        "edit again.",
        Candidate(first + 1, last + 1, round(score, 4), text),
    )
