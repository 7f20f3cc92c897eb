"""The size bound of a live part, and the line that says what it left out."""

from __future__ import annotations

from bb7.text.words import plural

# A live part's text at most (a diff or a terminal can be endless); configurable per call.
LIVE_MAX_BYTES = 24 * 1024


def bounded(
    head: str,
    items: list[str],
    max_bytes: int,
    what: str,
    *,
    keep_last: bool = False,
    skip: bool = False,
) -> str:
    """`head`, then as many of `items` (each one or more whole lines) as fit in `max_bytes`
    (the first ones, or with `keep_last` the last ones; with `skip` an item too large is left
    out and the next ones still tried), then a line saying how many `what` were left out and
    the bound, when any were."""
    room = max_bytes - len(head.encode("utf-8"))
    kept: list[str] = []
    order = reversed(items) if keep_last else iter(items)
    for item in order:
        size = len(item.encode("utf-8"))
        if size > room:
            if skip:
                continue
            break
        kept.append(item)
        room -= size
    if keep_last:
        kept.reverse()
    left = len(items) - len(kept)
    text = head + "".join(kept)
    if left:
        where = "earlier" if keep_last else "more"
        said = plural(left, f"{where} {what}")
        text += f"[{said} left out: a live part is at most {max_bytes} bytes]\n"
    return text
