"""The diagnostics part: what the language server (or any `vim.diagnostic` source) says about
the chat's files, each with the line it points at, as the model reads it:

    src/app.py:12:5: error [pyright] "parse" is not defined
        12 | result = parse(text)
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from bb7.live.bound import bounded

# `vim.diagnostic.severity` numbers.
SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}


class Diagnostic(msgspec.Struct, frozen=True, kw_only=True):
    """One diagnostic of a loaded buffer: its file (absolute), 1-based line and column,
    severity (1 error .. 4 hint), source ('' when none), message, and the buffer's text of
    the line it points at."""

    path: str
    line: int
    col: int
    severity: int
    message: str
    source: str = ""
    text: str = ""


def diagnostics_text(
    found: list[Diagnostic],
    wanted: set[str] | None,
    shown: Mapping[str, str],
    max_bytes: int,
) -> str:
    """The part's text: the diagnostics of the files in `wanted` (every file when None), by
    file and line, errors first on a line; `shown` names a file as the chat does."""
    mine = [d for d in found if wanted is None or d.path in wanted]
    mine.sort(key=lambda d: (shown.get(d.path, d.path), d.line, d.severity, d.col))
    scope = "every loaded buffer" if wanted is None else "the chat's files"
    if not mine:
        return f"Diagnostics of {scope}: none.\n"
    files = len({d.path for d in mine})
    head = f"Diagnostics of {scope} ({len(mine)} in {files} file{'s' if files != 1 else ''}):\n"
    return bounded(head, [_item(d, shown) for d in mine], max_bytes, "diagnostic")


def _item(d: Diagnostic, shown: Mapping[str, str]) -> str:
    severity = SEVERITIES.get(d.severity, "note")
    source = f" [{d.source}]" if d.source else ""
    message = " ".join(d.message.split("\n"))
    text = f"{shown.get(d.path, d.path)}:{d.line}:{d.col}: {severity}{source} {message}\n"
    if d.text.strip():
        text += f"    {d.line} | {d.text.rstrip()}\n"
    return text
