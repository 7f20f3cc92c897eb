"""Reading JSON-lines corpora: one typed record per non-blank line, bad lines as values."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

import msgspec

T = TypeVar("T")


def decode_lines(
    lines: Iterable[str], decoder: msgspec.json.Decoder[T]
) -> Iterator[tuple[int, T | msgspec.DecodeError]]:
    """(1-based line number, record or its decode error) for every non-blank line, in order."""
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            yield number, decoder.decode(raw)
        except msgspec.DecodeError as exc:
            yield number, exc
