"""Unified diffs between two versions of a text file, plain or coloured for a terminal.

`difflib` is imported on first use: `bb7.state.status` imports this module, and `bb7 status`,
which never diffs, should not pay for it at every start.
"""

from __future__ import annotations

from bb7.text.lines import split_lines

_NO_EOL = "\\ No newline at end of file\n"
_COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
_RESET = "\x1b[0m"


def unified_diff(path: str, before: str | None, after: str | None, context: int = 3) -> str:
    """The diff from `before` to `after` (None: the file does not exist), git style headers.

    Lines end at LF only (`bb7.text.lines`) and keep their endings, so a CRLF/LF change shows
    up as a change and a form feed or lone CR is just a character.
    """
    import difflib

    old = split_lines(before or "", keepends=True)
    new = split_lines(after or "", keepends=True)
    lines = difflib.unified_diff(
        old,
        new,
        fromfile="/dev/null" if before is None else f"a/{path}",
        tofile="/dev/null" if after is None else f"b/{path}",
        n=context,
    )
    out: list[str] = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n" + _NO_EOL)
    return "".join(out)


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
