"""Live context parts: the editor's own state as read-only context, read again at each send.

`:BB7Add diagnostics` (the language server's diagnostics of the chat's files; `diagnostics all`:
of every loaded buffer), `:BB7Add diff` (the unstaged git diff; `diff --staged`, `diff REF`) and
`:BB7Add terminal [NAME]` (the last lines of the most recent terminal, or of a named one). Each
is a context entry of its own kind (`bb7.state.records.ENTRY_KINDS`) whose path is its name as
typed (`@diff --staged`); its text is what one of the readers here made of the editor's state
(`EditorState`, sent by Lua) or of git, bounded in size with what was left out said in it.

What the model saw is the entry's snapshot at each user message, as for a file. Reading a part
is pure but for `diff` (which runs git); storing it is `bb7.state.context`'s job.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import msgspec

from bb7.live.bound import LIVE_MAX_BYTES
from bb7.live.diagnostics import Diagnostic, diagnostics_text
from bb7.live.diff import diff_text
from bb7.live.terminal import Terminal, terminal_text
from bb7.refusal import Problem
from bb7.state.records import ContextEntry, EntryKind

# The words `:BB7Add` (and `@` in the input) takes for each kind, with what may follow.
WORDS: dict[str, EntryKind] = {"diagnostics": "diagnostics", "diff": "diff", "terminal": "terminal"}
PREFIX = "@"


class EditorState(msgspec.Struct, frozen=True):
    """What Lua reads of the editor for the live parts: every loaded buffer's diagnostics (with
    the line each points at) and the terminal buffers' last lines, most recent first."""

    diagnostics: list[Diagnostic] = []
    terminals: list[Terminal] = []


class Named(msgspec.Struct, frozen=True):
    """A live part as the user named it: its kind, its argument ('' for none) and its name in
    the chat (`@diff --staged`), the path its entry is stored under."""

    kind: EntryKind
    arg: str
    name: str


def is_live(spec: str) -> bool:
    """Whether `spec` (a `:BB7Add` argument list joined by spaces, or an `@` word) names a
    live part rather than a path."""
    first = spec.removeprefix(PREFIX).split(" ", 1)[0]
    return first in WORDS


def parse(words: list[str]) -> Named | Problem:
    """`["diff", "--staged"]` (or `["@diff", ...]`) as a live part."""
    if not words or words[0].removeprefix(PREFIX) not in WORDS:
        return Problem("invalid_path", f"{' '.join(words)} names no live part")
    kind = WORDS[words[0].removeprefix(PREFIX)]
    arg = " ".join(words[1:]).strip()
    if kind == "diagnostics" and arg not in ("", "all"):
        return Problem("invalid_path", f"diagnostics takes 'all' or nothing, not {arg!r}")
    if kind == "diff" and arg.startswith("-") and arg != "--staged":
        return Problem("invalid_path", f"diff takes --staged, a git ref or nothing, not {arg}")
    return Named(kind, arg, PREFIX + " ".join([kind, arg]).strip())


def named(entry: ContextEntry) -> Named:
    """The part an entry stores (its path is its name)."""
    arg = entry.path.removeprefix(PREFIX).partition(" ")[2]
    return Named(entry.kind, arg, entry.path)


def read_all(
    entries: Iterable[ContextEntry],
    editor: EditorState | None,
    root: Path | None,
    chat_paths: Iterable[str] = (),
    shown: dict[str, str] | None = None,
) -> tuple[dict[str, str], list[str]]:
    """Each live part among `entries` read again now, by name, and the one-line problems of
    those that could not be (they keep the text the model saw last). A part that cannot be
    read here at all (a terminal without an editor) is in neither."""
    texts: dict[str, str] = {}
    problems: list[str] = []
    paths = list(chat_paths)
    for entry in entries:
        if entry.facts.of_file:
            continue
        text = read(named(entry), editor, root, paths, shown)
        if isinstance(text, str):
            texts[entry.path] = text
        elif text is not None:
            problems.append(f"{entry.path}: {text.message}")
    return texts, problems


def read(
    part: Named,
    editor: EditorState | None,
    root: Path | None,
    chat_paths: Iterable[str],
    shown: dict[str, str] | None = None,
    max_bytes: int = LIVE_MAX_BYTES,
) -> str | Problem | None:
    """The part's text now; None when it cannot be read here (diagnostics and terminals without
    an editor: the part keeps the text it had). `chat_paths` are the chat's files (absolute),
    whose diagnostics `diagnostics` reads; `shown` maps an absolute path to how the part
    names it (project-relative)."""
    if part.kind == "diff":
        if root is None:
            return Problem("global", "a diff needs a project: global chats have none")
        return diff_text(root, part.arg, max_bytes)
    if editor is None:
        return None
    if part.kind == "diagnostics":
        wanted = None if part.arg == "all" else set(chat_paths)
        return diagnostics_text(editor.diagnostics, wanted, shown or {}, max_bytes)
    return terminal_text(editor.terminals, part.arg, max_bytes)
