"""The terminal part: the last lines of a terminal buffer (the most recent one, or the one
named), as the model reads it."""

from __future__ import annotations

import msgspec

from bb7.live.bound import bounded


class Terminal(msgspec.Struct, frozen=True, kw_only=True):
    """A terminal buffer: its name (`term://...`), its number, its title (`b:term_title`), its
    last lines (at most what Lua reads) and how many lines it has in all."""

    name: str
    buf: int
    lines: list[str]
    total: int
    title: str = ""


def pick(terminals: list[Terminal], name: str) -> Terminal | None:
    """The terminal `name` names (its number, a part of its name or title), or the most
    recent one (the first: Lua lists them most recent first) when `name` is ''."""
    if not name:
        return terminals[0] if terminals else None
    for term in terminals:
        if name == str(term.buf) or name in term.name or (term.title and name in term.title):
            return term
    return None


def terminal_text(terminals: list[Terminal], name: str, max_bytes: int) -> str:
    """The part's text: the terminal's last lines that fit, blank ones at its end dropped, and
    what was left out."""
    term = pick(terminals, name)
    if term is None:
        return f"No terminal {name!r} is open.\n" if name else "No terminal is open.\n"
    lines = list(term.lines)
    while lines and not lines[-1].strip():
        lines.pop()
    earlier = term.total - len(term.lines)
    title = f" ({term.title})" if term.title and term.title not in term.name else ""
    head = f"The last lines of terminal {term.name}{title}:\n"
    text = bounded(head, [line + "\n" for line in lines], max_bytes, "line", keep_last=True)
    if earlier > 0 and "left out" not in text:
        text += f"[{earlier} earlier lines not read]\n"
    return text
