"""One way to refuse, for every layer and both front ends, drawn here once.

A refusal is a value where the caller decides (`Problem`: a kind for code, one line for the
user) and a raise where it cannot (`Abort`: out of a transaction, which rolls back; out of a
host handler, which replies with the problem; out of a CLI command, which prints it and exits
1). `unwrap` is the one way from a value to a raise; catching `Abort` is the way back::

    Problem(kind, message)   the value
    ├── from_path(...)       ← bb7.files.paths.PathProblem    (empty, outside_root, protected)
    └── from_file(...)       ← bb7.files.fsio.FileProblem     (missing, binary, ...)
    Abort(problem)           the raise; `unwrap(value)`: the value, or Abort
    advise(value, advice)    a front end's advice for the kind, after the core's message

Every kind of refusal is listed below, grouped by the layer that gives it, from the floor up:
files (`PathProblemKind`, `FileProblemKind`, `ImageProblemKind`, `ClipboardProblemKind`), state
(`StateProblemKind`), adding many files (`AddingProblemKind`), the agent client
(`AgentProblemKind`), the command line and the editor
host. The layers take their kinds from
here, so this module imports nothing of bb7 and every layer can import it.

A core message says what is wrong and what was kept; it names no flag of the CLI and no command
of the editor. Each front end adds its own advice by kind (`bb7.commands.output`,
`bb7.host.handlers.outputs`). A database that cannot be used at all is not a refusal but
`bb7.state.problems.StoreError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol, TypeVar

import msgspec

T = TypeVar("T")

# ---- files (`bb7.files`) ------------------------------------------------------------------------
# A path bb7 refuses (`bb7.files.paths.PathProblem`).
PathProblemKind = Literal["empty", "outside_root", "protected", "bad_name", "ignored"]
# A file that is not usable as text (`bb7.files.fsio.FileProblem`).
FileProblemKind = Literal["missing", "binary", "too_large", "not_utf8", "unreadable", "special"]
# An image bb7 cannot send (`bb7.files.images.ImageProblem`; one too large is `too_large`), a
# clipboard that gives none (`bb7.files.clipboard.ClipboardProblem`).
ImageProblemKind = Literal["not_image"]
ClipboardProblemKind = Literal["no_clipboard_tool", "no_image", "clipboard_failed"]

# ---- state (`bb7.state`) ------------------------------------------------------------------------
StateProblemKind = Literal[
    # paths and the project
    "invalid_path",
    "invalid_range",
    "invalid_root",
    "not_initialized",
    "unusable_state",
    "global",
    # chats
    "no_chat",
    "ambiguous",
    "invalid_name",
    "no_message",
    "same_scope",
    "locked",
    "lost",
    "busy",
    "no_title",
    "no_summary",
    # context
    "not_in_context",
    "readonly",
    "always_readonly",
    "section",
    "live",
    # model outputs
    "stale_base",
    "no_edits",
    "edits_failed",
    "nothing_pending",
    "pending_output",
    "choose",
    # apply and undo
    "no_output",
    "changed",
    "conflict",
    "exists",
    "gone",
    "read_only_file",
    "write_failed",
    "nothing_to_undo",
    # review and merge in the editor
    "new_file",
    "stale",
    # a call whose arguments do not go together
    "invalid_args",
]

# ---- adding many files (`bb7.adding`) -----------------------------------------------------------
# A glob or directory that names too many files or none; a file that looks like a secret.
AddingProblemKind = Literal["too_many", "no_match", "secret"]

# ---- live context parts (`bb7.live`) -----------------------------------------------------------
# git could not give the diff part (not installed, not a repository, an unknown ref, too slow).
LiveProblemKind = Literal["git"]

# ---- the agent client (`bb7.agent`) ------------------------------------------------------------
# No such agent; a path `.bb7/ignore` names, or a file where a directory should be (or the
# other way round), refused to an agent's request.
AgentProblemKind = Literal["no_agent", "ignored", "path_conflict"]

# ---- the front ends -----------------------------------------------------------------------------
# The command line's own refusal: a batch (apply --all, update --all) that finished with some
# files refused. Arguments that do not go together are `invalid_args`, as in every layer.
CommandProblemKind = Literal["partial"]
# The project's checks (`bb7.checks`): a declaration bb7 cannot use, none declared, no chat's
# change to check.
ChecksProblemKind = Literal["bad_checks", "no_checks"]
# The editor host's own: a call it cannot route, options it cannot use, a bug.
HostProblemKind = Literal["unknown_method", "settings", "bad_effort", "bug"]

ProblemKind = (
    PathProblemKind
    | FileProblemKind
    | ImageProblemKind
    | ClipboardProblemKind
    | StateProblemKind
    | AddingProblemKind
    | CommandProblemKind
    | ChecksProblemKind
    | HostProblemKind
    | AgentProblemKind
    | LiveProblemKind
)


class Problem(msgspec.Struct, frozen=True):
    """Why an action was refused, for the user: `kind` for code, `message` says what to do."""

    kind: ProblemKind
    message: str


class Abort(Exception):
    """A `Problem` raised where it cannot be returned; caught at the layer's edge."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def unwrap(value: T | Problem) -> T:
    """`value`, or `Abort` when it is a Problem."""
    if isinstance(value, Problem):
        raise Abort(value)
    return value


def advise(value: T | Problem, advice: Mapping[str, str]) -> T | Problem:
    """A front end's advice for the problem's kind after the core's message (which says what
    is wrong); a value, or a kind without advice, passes unchanged."""
    if isinstance(value, Problem) and value.kind in advice:
        return Problem(value.kind, f"{value.message}; {advice[value.kind]}")
    return value


class _Refused(Protocol):
    """A lower layer's own refusal (`PathProblem`, `FileProblem`): a kind listed here and a
    message."""

    @property
    def kind(self) -> ProblemKind: ...

    @property
    def message(self) -> str: ...


def from_path(problem: _Refused) -> Problem:
    return Problem(problem.kind, problem.message)


def from_file(problem: _Refused, hint: str | None = None) -> Problem:
    return Problem(problem.kind, f"{problem.message}; {hint}" if hint else problem.message)
