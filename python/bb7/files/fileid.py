"""The short id a model quotes to prove which version of a file it edited, and the text hashes
the state keys its blobs and local texts by."""

from __future__ import annotations

from typing import TYPE_CHECKING

# CPython's own SHA-256 (the same digest): `hashlib` loads OpenSSL first, a tenth of the start
# of a command such as `bb7 status` that hashes a few texts.
if TYPE_CHECKING:
    from hashlib import sha256 as _sha256
else:
    try:
        from _sha2 import sha256 as _sha256  # Python 3.12 and later
    except ImportError:
        try:
            from _sha256 import sha256 as _sha256
        except ImportError:  # a build without them
            from hashlib import sha256 as _sha256


def sha256_hex(text: str) -> str:
    """The SHA-256 of `text` (UTF-8) in hex."""
    return _sha256(text.encode("utf-8")).hexdigest()


def file_id(path: str, content: str) -> str:
    """First 8 hex chars of sha256(path + NUL + content) over the exact bytes (CRs included)."""
    return sha256_hex(f"{path}\0{content}")[:8]


def entry_file_id(path: str, content: str, start: int = 0, end: int = 0) -> str:
    """The file id of a context entry: sections hash under `path:start-end`, so a section and
    the whole file never share an id (the original BB-7 hashed them inconsistently)."""
    return file_id(f"{path}:{start}-{end}" if start else path, content)
