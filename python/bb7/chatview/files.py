"""The chat view's files panel as rows: the chat's context files and pending new files in a
tree, each with its status and token count (from `bb7.state.status.file_statuses`), and the
checks' verdict on a pending file's change.

Directories with a single child directory are compressed (`src/bb7/`); files outside the project
are grouped by their absolute directory, under `~` when in the home directory. A row's text
holds the status column, the indentation and the name; Lua right-aligns the token text.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping

import msgspec

from bb7.checks.verdict import Verdict
from bb7.state.records import ENTRY_KINDS
from bb7.state.status import StatusRow
from bb7.text.tokens import format_tokens

STATUS_WIDTH = 3  # the widest status is two cells ('~M', '!A') plus a space
INDENT = "  "
CHOOSE = "  choose"
AGENT = "  agent"


class Row(msgspec.Struct, frozen=True, omit_defaults=True):
    """One line of the panel. File rows carry the file's `path` as stored (relative to the
    root, or absolute outside the project) and its absolute path `abs`; directory rows have
    neither."""

    text: str
    tokens: str
    path: str = ""
    abs: str = ""
    status: str = ""
    kind: str = ""
    has_output: bool = False
    start_line: int = 0
    end_line: int = 0
    # The checks' verdict on its pending change: `check` its state, `check_mark` as drawn.
    check: str = ""
    check_mark: str = ""


class Panel(msgspec.Struct, frozen=True):
    """The rows, the token total as a count and as the text Lua shows (`format_tokens`: Lua
    draws token figures, it never formats them), and the instruction files that apply."""

    rows: list[Row]
    total_tokens: int
    total_tokens_text: str
    # The instruction files that apply (`bb7.prompt.instructions`), as the panel names them.
    instructions: list[str] = []


class _Dir:
    def __init__(self) -> None:
        self.dirs: dict[str, _Dir] = {}
        self.files: list[StatusRow] = []

    def tokens(self) -> int:
        return sum(f.tokens for f in self.files) + sum(d.tokens() for d in self.dirs.values())


def _display_dir(path: str, home: str) -> str:
    parent = os.path.dirname(path)
    if os.path.isabs(path) and home and (parent == home or parent.startswith(home + os.sep)):
        return "~" + parent[len(home) :]
    return parent


def _tree(files: Iterable[StatusRow], home: str) -> _Dir:
    top = _Dir()
    for status in files:
        where = top
        parent = _display_dir(status.path, home)
        if status.kind and not ENTRY_KINDS[status.kind].of_file:
            parent = ""  # a live part: its name, at the top
        elif os.path.isabs(status.path) or parent.startswith("~"):
            # Outside the project: one group per absolute directory, not a deep tree.
            where = where.dirs.setdefault(parent + "/", _Dir())
        elif parent:
            for part in parent.split("/"):
                where = where.dirs.setdefault(part + "/", _Dir())
        where.files.append(status)
    return top


def _name(status: StatusRow) -> str:
    if status.kind and not ENTRY_KINDS[status.kind].of_file:
        return status.path
    name = os.path.basename(status.path)
    return f"{name}:{status.start_line}-{status.end_line}" if status.start_line else name


def _rows(
    node: _Dir,
    depth: int,
    locate: Callable[[str], str],
    verdicts: Mapping[str, Verdict],
    out: list[Row],
) -> None:
    for name in sorted(node.dirs):
        child = node.dirs[name]
        label = name
        while not child.files and len(child.dirs) == 1:
            (inner, only) = next(iter(child.dirs.items()))
            label, child = label + inner, only
        text = " " * STATUS_WIDTH + INDENT * depth + label
        out.append(Row(text=text, tokens=format_tokens(child.tokens())))
        _rows(child, depth + 1, locate, verdicts, out)
    for status in sorted(node.files, key=lambda s: (_name(s), s.start_line)):
        text = status.status.ljust(STATUS_WIDTH) + INDENT * depth + _name(status)
        if status.choose:
            text += CHOOSE  # an edit waits for the user's choice of place (:BB7Review)
        if status.agent:
            text += AGENT  # an agent's own write to disk waits for review (:BB7Review)
        verdict = None if status.start_line else verdicts.get(status.path)
        out.append(
            Row(
                text=text,
                tokens=format_tokens(status.tokens),
                path=status.path,
                abs=locate(status.path),
                status=status.status,
                kind=status.kind,
                has_output=status.has_output,
                start_line=status.start_line,
                end_line=status.end_line,
                check="" if verdict is None else verdict.state,
                check_mark="" if verdict is None else verdict.mark(),
            )
        )


def panel(
    files: list[StatusRow],
    locate: Callable[[str], str],
    home: str = "",
    instructions: Iterable[str] = (),
    verdicts: Mapping[str, Verdict] | None = None,
) -> Panel:
    """The panel for `file_statuses(...)`; `locate` gives a stored path's absolute path,
    `verdicts` the checks' verdict on a pending file's change."""
    rows: list[Row] = []
    _rows(_tree(files, home.rstrip(os.sep)), 0, locate, verdicts or {}, rows)
    total = sum(f.tokens for f in files)
    return Panel(rows, total, format_tokens(total), list(instructions))
