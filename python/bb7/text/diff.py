"""Unified diffs between two versions of a text file, plain or coloured for a terminal, and
their hunks alone (what the prompt's history shows of a file's changes).

`difflib` is imported on first use: `bb7.state.status` imports this module, and `bb7 status`,
which never diffs, should not pay for it at every start.
"""

from __future__ import annotations

from bb7.text.lines import split_lines

_NO_EOL = "\\ No newline at end of file\n"
_COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
_RESET = "\x1b[0m"


def unified_diff(path: str, before: str | None, after: str | None, context: int = 3) -> str:
    """The diff from `before` to `after` (None: the file does not exist), git style headers;
    "" when they are the same.

    Lines end at LF only (`bb7.text.lines`) and keep their endings, so a CRLF/LF change shows
    up as a change and a form feed or lone CR is just a character.
    """
    body = hunks(before or "", after or "", context)
    if not body:
        return ""
    old = "/dev/null" if before is None else f"a/{path}"
    new = "/dev/null" if after is None else f"b/{path}"
    return f"--- {old}\n+++ {new}\n{body}"


def hunks(before: str, after: str, context: int = 3) -> str:
    """The unified diff's hunks from `before` to `after`, without the file header (the prompt's
    history shows a file's changes this way). The lines both share at the start and the end
    are set aside first: an edit is usually a few lines of a long file, and difflib's time
    grows with the lines it is given."""
    import difflib

    old = split_lines(before, keepends=True)
    new = split_lines(after, keepends=True)
    shortest = min(len(old), len(new))
    start = 0
    while start < shortest and old[start] == new[start]:
        start += 1
    end = 0
    while end < shortest - start and old[-1 - end] == new[-1 - end]:
        end += 1
    lo = max(0, start - context)
    keep = max(0, end - context)
    a, b = old[lo : len(old) - keep], new[lo : len(new) - keep]
    out: list[str] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(lo + i1, i2 - i1)} +{_range(lo + j1, j2 - j1)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(" " + line for line in a[a1:a2])
                continue
            out.extend("-" + line for line in a[a1:a2])
            out.extend("+" + line for line in b[b1:b2])
    return "".join(line if line.endswith("\n") else line + "\n" + _NO_EOL for line in out)


def _range(start: int, length: int) -> str:
    """A hunk header's range, as `diff -u` writes it (1-based; an empty range names the line
    before it)."""
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def changed_lines(before: str, after: str) -> list[int]:
    """The 1-based lines of `after` that differ from `before` (added or replaced)."""
    import difflib

    old = split_lines(before, keepends=True)
    new = split_lines(after, keepends=True)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [
        line + 1
        for tag, _i1, _i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
        for line in range(j1, j2)
    ]


def line_counts(before: str | None, after: str | None) -> tuple[int, int]:
    """Lines added and removed going from `before` to `after`."""
    import difflib

    old = split_lines(before or "", keepends=True)
    new = split_lines(after or "", keepends=True)
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


def colorize(diff: str) -> str:
    """`diff` with ANSI colours: additions green, removals red, hunk headers cyan."""
    out: list[str] = []
    for line in split_lines(diff, keepends=True):
        colour = "\x1b[1m" if line.startswith(("+++", "---")) else _COLOURS.get(line[:1])
        if colour is None:
            out.append(line)
        else:
            body = line.rstrip("\n")
            out.append(f"{colour}{body}{_RESET}" + line[len(body) :])
    return "".join(out)
