"""Indentation arithmetic: widths, the file's style, and rendering a width in that style."""

from __future__ import annotations

from collections import Counter


def leading(line: str) -> str:
    """The line's indentation (spaces and tabs before the first other character)."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def tab_indented(line: str) -> bool:
    """Whether the line's indentation holds a tab (`"\t" in leading(line)`, in one C call)."""
    return line.lstrip(" ").startswith("\t")


def width(indent: str, tab: int) -> int:
    """Columns an indentation occupies when a tab advances to the next multiple of `tab`."""
    col = 0
    for ch in indent:
        col = (col // tab + 1) * tab if ch == "\t" else col + 1
    return col


def render(columns: int, style: str, tab: int) -> str:
    """An indentation of `columns` in the file's style (tabs, then spaces for the remainder)."""
    columns = max(columns, 0)
    if style == "\t":
        return "\t" * (columns // tab) + " " * (columns % tab)
    return " " * columns


def pick_tab_width(pairs: list[tuple[str, str]], known: int | None = None) -> int:
    """The tab width under which (old indent, file indent) pairs differ by the most uniform shift.

    Models often send four spaces where the file has a tab (or the reverse); the right width is
    the one that makes the per-line shift agree. `known` (the file's own width, declared or
    inferred from its alignment) wins when it explains as many lines as any other width.
    """
    if not any("\t" in a or "\t" in b for a, b in pairs):
        return known or 4
    best, best_score = known or 4, (-1, False, False)
    for tab in dict.fromkeys((known or 4, 4, 2, 8, 3)):
        deltas = Counter(width(f, tab) - width(o, tab) for o, f in pairs)
        top, count = deltas.most_common(1)[0] if deltas else (0, 0)
        # Equal agreement: the file's own width, then the width under which `old` is not
        # shifted at all (the model only wrote each tab as spaces), is the likelier one.
        score = (count, tab == known, top == 0)
        if score > best_score:
            best, best_score = tab, score
    return best
