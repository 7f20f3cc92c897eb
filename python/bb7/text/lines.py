"""The one line splitter: lines end at LF and nowhere else.

Neovim, git and the model all count lines by LF, so a form feed, a vertical tab, a lone CR or
U+2028 stays inside its line (`str.splitlines` would break there and number lines differently
from the editor). A final LF ends the last line rather than starting an empty one, and the empty
text has no lines: callers that need one (an empty buffer) say so with `or [""]`.
"""

from __future__ import annotations


def split_lines(text: str, *, keepends: bool = False, crlf: bool = False) -> list[str]:
    """The lines of `text`, split at LF only.

    `keepends` keeps each line's LF (and a CR before it), so `"".join` gives `text` back.
    Without it, `crlf` also drops the CR of a CRLF ending (a lone CR stays in the line).
    """
    parts = text.split("\n")
    last = parts.pop()  # after the final LF: "" when the text ends with one
    if keepends:
        parts = [part + "\n" for part in parts]
    elif crlf:
        parts = [part.removesuffix("\r") for part in parts]
    if last:
        parts.append(last)
    return parts
