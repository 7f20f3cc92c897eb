"""The edit engine: apply a model's (old, new) edit to file content, never in the wrong place."""

from bb7.edits.replace import locate, replace
from bb7.edits.text import LineIndex
from bb7.edits.types import Applied, Candidate, EditError, EditOutcome, ErrorKind

__all__ = [
    "Applied",
    "Candidate",
    "EditError",
    "EditOutcome",
    "ErrorKind",
    "LineIndex",
    "locate",
    "replace",
]
