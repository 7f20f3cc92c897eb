"""The records bb7 stores per chat: msgspec Structs, shared by the store, the host and the CLI.

Only shapes live here; reading and writing them is `bb7.state.store`'s job.
"""

from __future__ import annotations

import msgspec

# Context entry kinds. A full file is `writable` or `readonly`; a `section` is a read-only line
# range of a project file; an `external` file lives outside the project (absolute path, read-only).
WRITABLE = "writable"
READONLY = "readonly"
SECTION = "section"
EXTERNAL = "external"

PROJECT = "project"
GLOBAL = "global"


class Chat(msgspec.Struct, kw_only=True):
    """One conversation. `scope` says which database holds it (project or global)."""

    id: str
    name: str
    created: float
    updated: float
    model: str = ""
    reasoning_effort: str = ""
    draft: str = ""
    pinned: bool = False
    # Text the next request carries after a failed edit, so a repair survives a restart.
    retry_context: str = ""
    scope: str = PROJECT


class Event(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A change to the chat's files, shown in the history and sent to the model.

    `action` is one of: user_added, user_removed, user_updated, user_set_readonly,
    user_applied, user_partially_applied, user_discarded, user_undid_apply, assistant_wrote,
    fork_warning_modified, fork_warning_deleted.
    """

    action: str
    path: str
    file_id: str = ""
    prev_file_id: str = ""
    blob: str = ""
    start_line: int = 0
    end_line: int = 0
    readonly: bool = False
    added: bool = False


class TextPart(msgspec.Struct, tag="text"):
    text: str


class ReasoningPart(msgspec.Struct, tag="reasoning"):
    text: str


class EventPart(msgspec.Struct, tag="event"):
    event: Event


Part = TextPart | ReasoningPart | EventPart


class Usage(msgspec.Struct, kw_only=True, omit_defaults=True):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost: float = 0.0
    duration: float = 0.0


class SnapshotRef(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One context entry as it was when a user message was sent (content by blob hash)."""

    path: str
    kind: str
    blob: str
    file_id: str
    start_line: int = 0
    end_line: int = 0


class OutputRef(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One pending output as it was when a user message was sent."""

    path: str
    blob: str
    file_id: str = ""
    base_file_id: str = ""
    added: bool = False


class Message(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A chat message. Roles: user, assistant, system, and `event` for a user's file action.

    User messages carry the context and pending outputs at send time, so fork and
    edit-message can restore the exact contents the model saw.
    """

    role: str
    parts: list[Part]
    id: int = 0
    seq: int = 0
    model: str = ""
    usage: Usage | None = None
    created: float = 0.0
    context_snapshot: list[SnapshotRef] = []
    outputs_snapshot: list[OutputRef] = []

    def text(self) -> str:
        """The message's visible text (text parts joined)."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


class ContextEntry(msgspec.Struct, kw_only=True):
    """A file (or section) in a chat's context with the snapshot the model sees.

    Entries are keyed by (path, start_line, end_line); whole files use 0, 0, so a full file
    and a section of the same path are separate entries.
    """

    path: str
    kind: str
    blob: str
    file_id: str
    start_line: int = 0
    end_line: int = 0
    # True when the entry came from applying a file the model created.
    added: bool = False

    @property
    def readonly(self) -> bool:
        return self.kind != WRITABLE

    def label(self) -> str:
        """`path` or `path:start-end`, how users and messages name the entry."""
        if self.kind == SECTION:
            return f"{self.path}:{self.start_line}-{self.end_line}"
        return self.path


class PendingOutput(msgspec.Struct, kw_only=True):
    """A file the model wrote, waiting for the user to apply, merge or discard it."""

    path: str
    blob: str
    file_id: str
    base_file_id: str
    added: bool
    created: float = 0.0


class Lease(msgspec.Struct, kw_only=True):
    """Who has a chat open: one process per chat, renewed by heartbeats."""

    chat_id: str
    pid: int
    host: str
    heartbeat: float
    token: str


class Problem(msgspec.Struct, frozen=True):
    """Why an action was refused, for the user: `kind` for code, `message` says what to do."""

    kind: str
    message: str
