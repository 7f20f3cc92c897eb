"""Result values of the edit engine: what an applied edit did, or why it was refused."""

from __future__ import annotations

from typing import Literal

import msgspec

ErrorKind = Literal["not_found", "ambiguous", "invalid"]


class Candidate(msgspec.Struct, frozen=True):
    """A region of the original file that `old` may have meant (1-based, inclusive lines)."""

    start_line: int
    end_line: int
    similarity: float
    text: str


class Applied(msgspec.Struct, frozen=True):
    """A successful edit: the new content and how `old` was found."""

    content: str
    strategy: str
    start_line: int
    end_line: int
    similarity: float
    count: int = 1


class EditError(msgspec.Struct, frozen=True):
    """A refused edit; `message` is written for the model: what was tried, what to send instead."""

    kind: ErrorKind
    message: str
    best: Candidate | None = None
    # Where an ambiguous `old` matches, in order: `replace(..., place=k)` edits the k-th.
    places: tuple[Candidate, ...] = ()


EditOutcome = Applied | EditError
