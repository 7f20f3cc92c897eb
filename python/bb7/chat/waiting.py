"""An answer's edits that match several places, as choices waiting for the user.

`bb7.formats.apply` keeps such an edit aside (`Choice`) when it is the answer's only kind of
problem; the state keeps it beside the file's pending output (`PendingChoice`,
`bb7.state.choices`) until the user takes one of its places or refuses it.
"""

from __future__ import annotations

from bb7.formats.apply import Result
from bb7.state.records import PendingChoice


def waiting(result: Result) -> list[PendingChoice]:
    """The answer's edits waiting for a choice of place, as the state keeps them."""
    return [
        PendingChoice(
            path=choice.path,
            old=choice.old,
            new=choice.new,
            whole_lines=choice.whole_lines,
            block=choice.block,
            edit=choice.edit,
            message=choice.message,
        )
        for choice in result.choices
    ]
