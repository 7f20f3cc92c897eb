"""Ways a model's `old` text systematically differs from the file, and how to undo each.

Line normalisers (used to compare a line of `old` with a line of the file), the over-escaping
decoder, line-number gutter stripping and elision markers. Pure string functions only.
"""

from __future__ import annotations

import re
from itertools import pairwise

# Characters models substitute for ASCII ones: curly quotes, primes, dashes, odd spaces.
FOLDS = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u2032": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u201f": '"',
    "\u2033": '"',
    "\u00ab": '"',
    "\u00bb": '"',
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2015": "-",
    "\u2212": "-",
    "\u00a0": " ",
    "\u2007": " ",
    "\u202f": " ",
    "\u2009": " ",
    "\u200a": " ",
    "\u3000": " ",
    "\u200b": "",
    "\ufeff": "",
    "\u2026": "...",
}
_FOLD_TABLE = str.maketrans(FOLDS)


def identity(line: str) -> str:
    return line


def rstrip(line: str) -> str:
    return line.rstrip()


def strip(line: str) -> str:
    return line.strip()


def collapse_ws(line: str) -> str:
    """Inner runs of blanks (tabs included) become one space; ends are stripped."""
    return " ".join(line.split())


def no_whitespace(line: str) -> str:
    """Every blank removed: `f(a,b)` and `f(a, b)` compare equal (used on whole lines only)."""
    return "".join(line.split())


def fold_unicode(line: str) -> str:
    """Smart quotes, unicode dashes and odd spaces folded to ASCII, then blanks collapsed."""
    if line.isascii():  # nothing to fold, and translating is slow (a lookup per character)
        return " ".join(line.split())
    return " ".join(line.translate(_FOLD_TABLE).split())


# --- over-escaping ---------------------------------------------------------------------------

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\", "`": "`"}
_QUOTE_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "`": "`"}


def _decode(text: str, table: dict[str, str]) -> str:
    out: list[str] = []
    i = 0
    size = len(text)
    while i < size:
        ch = text[i]
        if ch == "\\" and i + 1 < size and text[i + 1] in table:
            out.append(table[text[i + 1]])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def unescape_variants(text: str) -> list[tuple[str, str]]:
    """Plausible un-escapings of over-escaped text, most complete first, as (name, decoded).

    A model that JSON-escapes twice sends a real newline as `\\n`, a quote as `\\"` and a real
    backslash as `\\\\`; decoding left to right in one pass undoes exactly that. The second
    variant keeps `\\n`/`\\t` for code whose string literals legitimately contain them.
    """
    if "\\" not in text:
        return []
    variants: list[tuple[str, str]] = []
    full = _decode(text, _ESCAPES)
    if full != text:
        variants.append(("full", full))
    quotes = _decode(text, _QUOTE_ESCAPES)
    if quotes != text and quotes != full:
        variants.append(("quotes", quotes))
    return variants


def unescape_like(new: str, decoded_old: str, variant: str, old: str = "") -> str:
    """`new` decoded like `old` was, if `new` shows the same escaping.

    Only the lines of `new` that decoding changes are evidence (its other lines say nothing
    about escaping). Such a line that already equals a line of the decoded `old` is plain text
    whose backslashes are the file's own: `new` is kept. Such a line that equals one only once
    decoded is over-escaped: `new` is decoded. When no line tells (the escaped lines are the
    ones the model changed), the escapes do: `new` is decoded when every escape it has is one
    `old` has too (the same over-escaping, such as `\\\\032` for `\\032`).
    """
    table = _ESCAPES if variant == "full" else _QUOTE_ESCAPES
    decoded = _decode(new, table)
    if decoded == new:
        return new
    reference = set(decoded_old.split("\n"))
    escaped = [line for line in new.split("\n") if _decode(line, table) != line]
    plain = sum(line in reference for line in escaped)
    unescaped = sum(
        part in reference for line in escaped for part in _decode(line, table).split("\n")
    )
    if plain or unescaped:
        return decoded if unescaped > plain else new
    escapes = _escapes(new, table)
    return decoded if escapes and escapes <= _escapes(old, table) else new


def _escapes(text: str, table: dict[str, str]) -> set[str]:
    """The escape pairs a left-to-right decoding of `text` with `table` would undo."""
    found: set[str] = set()
    i = text.find("\\")
    while 0 <= i < len(text) - 1:
        if text[i + 1] in table:
            found.add(text[i : i + 2])
            i = text.find("\\", i + 2)
        else:
            i = text.find("\\", i + 1)
    return found


# --- line-number gutters ---------------------------------------------------------------------

_GUTTERS = (
    re.compile(r"^\s*(\d+)\s*\|\s?"),  # "  42 | code"
    re.compile(r"^\s*(\d+)\t"),  # "    42\tcode" (cat -n)
    re.compile(r"^\s*L(\d+):\s?"),  # "L42: code"
    re.compile(r"^\s*(\d+)\u2192"),  # "    42→code"
    re.compile(r"^\s*(\d+):\s"),  # "42: code"
)


def strip_gutters(old_lines: list[str]) -> tuple[re.Pattern[str], int] | None:
    """The gutter pattern every non-empty line of `old` carries with consecutive numbers.

    Returns (pattern, first line number) or None when `old` has no consistent gutter.
    """
    content = [line for line in old_lines if line.strip()]
    if not content:
        return None
    for pattern in _GUTTERS:
        numbers: list[int] = []
        for line in old_lines:
            m = pattern.match(line)
            if m:
                numbers.append(int(m.group(1)))
            elif line.strip():
                break
        else:
            if numbers and all(b == a + 1 for a, b in pairwise(numbers)):
                return pattern, numbers[0]
    return None


def remove_gutter(lines: list[str], pattern: re.Pattern[str]) -> list[str]:
    return [pattern.sub("", line, count=1) for line in lines]


# --- elision markers -------------------------------------------------------------------------

# Cheap first test: every elision has dots or one of these word stems.
_MAYBE_ELISION = re.compile(
    r"\.\.\.|…|rest|remain|exist|unchang|omit|previous|original|same|snip|elid|other|more",
    re.IGNORECASE,
)
# First characters of a comment or bracket that may wrap an elision phrase.
_WRAPPERS = frozenset("/#-;*<{([%")
_OPENERS = re.compile(r"^(?://+|#+|--+|;+|/\*+|\*|<!--|\{/\*|%+|REM\s)\s*")
_CLOSERS = re.compile(r"\s*(?:\*+/\}?|-->)$")
_DOTS = re.compile(r"\.{3,}|…")
_ELIDED_WORDS = re.compile(
    r"^(?:the\s+)?(?:rest|remainder)\s+of\b"
    r"|\b(?:existing|unchanged|remaining|omitted|previous|other|original|more)\s+"
    r"(?:\w+\s+)?(?:code|content|lines?|logic|methods?|functions?|implementation|imports?|"
    r"fields?|properties|cases?|tests?|items?|entries|declarations?|definitions?|config\w*|"
    r"statements?|body|handlers?|members?|setup)\b"
    r"|\b(?:code|content|lines?|implementation|body|rest)\s+(?:is\s+)?"
    r"(?:unchanged|omitted|elided|remains?\s+the\s+same|as\s+before|stays?\s+the\s+same)\b"
    r"|^(?:same\s+as\s+before|unchanged|etc\.?|and\s+so\s+on|snip)$",
    re.IGNORECASE,
)

_NOUNS = (
    r"(?:code|content|lines?|logic|methods?|functions?|implementation|imports?|fields?|"
    r"properties|cases?|tests?|items?|entries|declarations?|definitions?|statements?|body|"
    r"handlers?|members?|file|class|module|setup)"
)
_SAME = (
    r"(?:unchanged|omitted|elided|as\s+before|(?:remains?|stays?|is|are)\s+(?:the\s+same|"
    r"unchanged)|here|goes\s+here|below|above)"
)
# Without `...`, a comment must say nothing but "code was left out here".
_ELIDED_PHRASE = re.compile(
    r"(?:the\s+)?(?:rest|remainder)\s+of\s+(?:the\s+)?(?:\w+\s+)?"
    + _NOUNS
    + r"(?:\s+"
    + _SAME
    + r")?"
    r"|(?:keep\s+)?(?:the\s+)?(?:existing|unchanged|remaining|omitted|previous|original)\s+"
    r"(?:\w+\s+)?" + _NOUNS + r"(?:\s+" + _SAME + r")?"
    r"|" + _NOUNS + r"\s+" + _SAME + r"|same\s+as\s+before|unchanged|snip",
    re.IGNORECASE,
)


def is_elision(line: str) -> bool:
    """True for a line that stands for omitted code: `...`, `// ... existing code ...`,
    `(rest of methods ...)`, `# unchanged code here` and kin.

    A bare `...` counts (with or without a comment opener); words alone count only inside a
    comment or brackets and only when they say that code was left out.
    """
    text = line.strip()
    if not text:
        return False
    dotted_somewhere = "..." in text or "…" in text
    if not dotted_somewhere and text[0] not in _WRAPPERS and not text.startswith("REM "):
        return False  # words alone count only inside a comment or brackets
    if not _MAYBE_ELISION.search(text):
        return False
    core = _CLOSERS.sub("", _OPENERS.sub("", text))
    wrapped = core != text
    if len(core) >= 2 and core[0] in "([{" and core[-1] in ")]}":
        core, wrapped = core[1:-1].strip(), True
    dotted = bool(_DOTS.search(core))
    words = _DOTS.sub(" ", core).strip(" \t.,:;-")
    if not words:
        return dotted
    if len(words) > 60:
        return False
    if dotted:
        return bool(_ELIDED_WORDS.search(words))
    return wrapped and bool(_ELIDED_PHRASE.fullmatch(words))


# Files whose lines are prose: `...` there is punctuation, and code in them is an example.
PROSE_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc", ".org")
_FENCE = re.compile(r"\s*(`{3,}|~{3,})")


def is_prose(path: str | None) -> bool:
    return path is not None and path.lower().endswith(PROSE_SUFFIXES)


def elision_flags(lines: list[str], prose: bool = False) -> list[bool]:
    """For each line, whether it stands for omitted text (`is_elision`).

    In prose (Markdown and kin) only a marker wrapped in a comment or brackets counts
    (`<!-- ... -->`, `[... rest of the section ...]`): a bare `...` or `and so on...` there is
    punctuation, and lines inside fenced code blocks are example code, not the file's.
    """
    if not prose:
        return [is_elision(line) for line in lines]
    flags: list[bool] = []
    fence = ""
    for line in lines:
        opened = _FENCE.match(line)
        if fence:
            if opened is not None and opened.group(1).startswith(fence) and not line.strip(" \t`~"):
                fence = ""
            flags.append(False)
            continue
        if opened is not None:
            fence = opened.group(1)
            flags.append(False)
            continue
        text = line.strip()
        wrapped = text[:1] in "<[({" and is_elision(line)
        flags.append(wrapped)
    return flags
