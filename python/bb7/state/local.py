"""The user's copy of a context file: buffer text when the editor supplies it, else the disk.

Also the one definition of "same text" for sync checks: line endings and trailing newlines alone
never make two versions differ.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import msgspec

from bb7.files.fileid import sha256_hex
from bb7.files.fsio import DEFAULT_MAX_BYTES, FileProblem, load_text
from bb7.state.store import Store


class LocalText(msgspec.Struct, frozen=True):
    """A file's text as an editor buffer holds it (unsaved edits included)."""

    text: str
    changedtick: int | None = None


class LocalView(msgspec.Struct, frozen=True):
    """What a caller saw of a local file when it decided to act: text hash and changedtick.

    `hash` is `local_hash(text)`, or '' when the file did not exist.
    """

    hash: str
    changedtick: int | None = None


Buffers = Mapping[str, LocalText]


def local_file(store: Store, path: str) -> Path:
    """Where a stored path lives on disk: absolute (external) or under the project root."""
    if os.path.isabs(path):
        return Path(path)
    if store.root is None:
        raise ValueError(f"relative path {path} in a store without a project root")
    return store.root / path


def read_local(
    store: Store, path: str, buffers: Buffers | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> LocalText | FileProblem:
    """The current local text of `path`, or why there is none (kind `missing` if absent)."""
    if buffers is not None and path in buffers:
        return buffers[path]
    loaded = load_text(local_file(store, path), max_bytes=max_bytes)
    return LocalText(loaded) if isinstance(loaded, str) else loaded


def text_of(local: LocalText | FileProblem) -> str | None:
    return local.text if isinstance(local, LocalText) else None


def exists(local: LocalText | FileProblem) -> bool:
    """Whether there is a file (or buffer) at all, readable or not."""
    return isinstance(local, LocalText) or local.kind != "missing"


def local_hash(text: str | None) -> str:
    return "" if text is None else sha256_hex(text)


def view_of(local: LocalText | FileProblem) -> LocalView:
    """The `LocalView` a caller records at status time and hands back when applying."""
    if isinstance(local, FileProblem):
        return LocalView("" if local.kind == "missing" else f"unreadable:{local.kind}")
    return LocalView(local_hash(local.text), local.changedtick)


def normalized(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")


def same_text(a: str | None, b: str | None) -> bool:
    """Equal up to line endings and trailing newlines (None, a missing file, equals only None)."""
    if a is None or b is None:
        return a is b
    return a == b or normalized(a) == normalized(b)
