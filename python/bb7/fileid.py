"""The short id a model quotes to prove which version of a file it edited."""

from __future__ import annotations

import hashlib


def file_id(path: str, content: str) -> str:
    """First 8 hex chars of sha256(path + NUL + content) over the exact bytes (CRs included)."""
    digest = hashlib.sha256(path.encode("utf-8") + b"\0" + content.encode("utf-8"))
    return digest.hexdigest()[:8]
