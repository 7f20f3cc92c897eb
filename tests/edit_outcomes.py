"""The two outcomes an engine test expects of `bb7.edits.replace`, asserted with the outcome
shown when it is the other one."""

from __future__ import annotations

from bb7.edits import Applied, EditError, replace


def applied(content: str, old: str, new: str, **kw: object) -> Applied:
    outcome = replace(content, old, new, **kw)  # type: ignore[arg-type]
    assert isinstance(outcome, Applied), outcome
    return outcome


def refused(content: str, old: str, new: str, kind: str | None = None, **kw: object) -> EditError:
    """The refusal, of `kind` when one is given."""
    outcome = replace(content, old, new, **kw)  # type: ignore[arg-type]
    assert isinstance(outcome, EditError), outcome
    assert kind is None or outcome.kind == kind, outcome
    return outcome
