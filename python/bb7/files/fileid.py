"""The short id a model quotes to prove which version of a file it edited."""

from __future__ import annotations

import hashlib


def file_id(path: str, content: str) -> str:
    """First 8 hex chars of sha256(path + NUL + content) over the exact bytes (CRs included)."""
    digest = hashlib.sha256(path.encode("utf-8") + b"\0" + content.encode("utf-8"))
    return digest.hexdigest()[:8]


def entry_file_id(path: str, content: str, start: int = 0, end: int = 0) -> str:
    """The file id of a context entry: sections hash under `path:start-end`, so a section and
    the whole file never share an id (the original BB-7 hashed them inconsistently)."""
    return file_id(f"{path}:{start}-{end}" if start else path, content)
