"""The editor's side of a project, translated for the core: paths, buffers and lines.

Neovim names files by absolute path and holds them as buffers of lines; the core (`bb7.state`)
works with project paths (relative inside the root, absolute for external files) and text. This
module is the one place that converts between the two, once per request.

Text <-> lines: a buffer holds lines without line endings; whether the file ends with a newline
is the buffer's 'endofline' option, CRLF its 'fileformat' and a BOM its 'bomb' (Neovim writes
those back as it read them). So text becomes lines split at LF with a trailing CR and a leading
BOM dropped, plus an `eol` flag; lines become text as the buffer would be written (its line
endings and BOM), and statuses compare it up to line endings.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from bb7.host.protocol import BufferText
from bb7.refusal import Problem
from bb7.state.context import resolve
from bb7.state.local import LocalText, local_file
from bb7.state.store import Store
from bb7.text.lines import split_lines

BOM = "\ufeff"


class EditorLines(msgspec.Struct, frozen=True):
    """A buffer's content: `lines` and whether the text ended with a newline."""

    lines: list[str]
    eol: bool = True


def to_lines(text: str) -> EditorLines:
    """The lines (and 'endofline') a buffer needs to hold `text`."""
    text = text.removeprefix(BOM)
    lines = [line.removesuffix("\r") for line in split_lines(text)]
    return EditorLines(lines=lines or [""], eol=text.endswith("\n"))


def from_lines(lines: list[str], eol: bool = True, *, crlf: bool = False, bom: bool = False) -> str:
    """The text of a buffer's lines as writing it would make the file: CRLF line endings for a
    'fileformat' dos buffer and a BOM for a 'bomb' one, so a copy of it kept to restore later
    (an apply's undo) has the file's bytes."""
    newline = "\r\n" if crlf else "\n"
    text = newline.join(lines)
    text = text + newline if eol and lines else text
    return BOM + text if bom else text


def project_path(store: Store, raw: str) -> str | Problem:
    """The project path (or external absolute path) the editor's path `raw` names."""
    found = resolve(store, raw)
    return found if isinstance(found, Problem) else found.path


def editor_path(store: Store, path: str) -> str:
    """The absolute path the editor knows a stored path by (`local_file` as a string; without
    pathlib, which a 500-file status refresh notices)."""
    if os.path.isabs(path) or store.root is None:
        return str(local_file(store, path))
    return os.path.join(store.root, path)


def shown(root: Path | None, raw: str) -> str:
    """An editor path as messages name it: relative to the project root when inside it, else
    from `~` when in the home directory (as Neovim's `:~` shows it)."""
    if root is not None and Path(raw).is_relative_to(root):
        return Path(raw).relative_to(root).as_posix()
    home = Path.home()
    if Path(raw).is_absolute() and Path(raw).is_relative_to(home):
        return "~/" + Path(raw).relative_to(home).as_posix()
    return raw


@dataclass(frozen=True)
class EditorBuffers:
    """The editor's loaded buffers of one request, by project path (each resolved once)."""

    # Unsaved text (the core's `Buffers`): the core reads these instead of the disk.
    text: dict[str, LocalText] = field(default_factory=dict)
    # Every loaded buffer: a write to its file goes through it.
    loaded: dict[str, BufferText] = field(default_factory=dict)
    # The project path of every buffer, in the order Lua sent them.
    paths: list[str] = field(default_factory=list)


def editor_buffers(store: Store, buffers: Iterable[BufferText]) -> EditorBuffers:
    """The buffers Lua sent, keyed by the project path each names (paths that cannot be in the
    chat's store are left out)."""
    out = EditorBuffers()
    for buffer in buffers:
        path = project_path(store, buffer.path)
        if isinstance(path, Problem):
            continue
        out.paths.append(path)
        if buffer.lines is not None:
            text = from_lines(buffer.lines, buffer.eol, crlf=buffer.crlf, bom=buffer.bom)
            out.text[path] = LocalText(text, buffer.changedtick)
        if buffer.buf:
            out.loaded[path] = buffer
    return out
