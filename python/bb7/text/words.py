"""Counted nouns in messages people read: `1 problem`, `2 problems`, never `problem(s)`."""

from __future__ import annotations


def plural(count: int, noun: str) -> str:
    """`1 problem`, `2 problems` (regular English plurals only: the nouns bb7 counts)."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
