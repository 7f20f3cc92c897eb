"""What an agent turn reports to its front end while it runs: tagged msgspec Structs.

Order for one turn: `Started`; any number of `Chunk`, `Thought`, `Tool` (a tool call, each time
it changes: the whole call as it now stands, for a line updated in place), `PlanShown`,
`Permission` (a question waiting for `AgentSession.answer`), `Wrote` (a write that became a
pending output) and `Notice`; then exactly one `Ended`. Not for drawing: the editor and
`bb7 agent` each show these their own way.
"""

from __future__ import annotations

import msgspec

from bb7.state.records import PlanItem


class Started(msgspec.Struct, frozen=True, tag="started", tag_field="type"):
    """The turn began: `agent` is the chat's agent, `user_message_id` the message stored."""

    chat_id: str
    agent: str
    user_message_id: int


class Chunk(msgspec.Struct, frozen=True, tag="chunk", tag_field="type"):
    """A piece of the agent's answer."""

    text: str


class Thought(msgspec.Struct, frozen=True, tag="reasoning", tag_field="type"):
    """A piece of the agent's thinking."""

    text: str


class Tool(msgspec.Struct, frozen=True, tag="tool", tag_field="type"):
    """A tool call as it now stands: kind (`edit`, `read`, ...), title, status (`pending`,
    `in_progress`, `completed`, `failed`) and the unified diff of the changes it shows."""

    id: str
    kind: str
    title: str
    status: str
    diff: str = ""


class PlanShown(msgspec.Struct, frozen=True, tag="plan", tag_field="type"):
    """The agent's plan, whole (each one replaces the one before)."""

    entries: list[PlanItem]


class Choice(msgspec.Struct, frozen=True):
    """One answer to a permission question: the key that gives it, the agent's option."""

    key: str
    option_id: str
    name: str
    kind: str


class Permission(msgspec.Struct, frozen=True, tag="permission", tag_field="type"):
    """The agent asks before a tool call: `question` is one line, `choices` its options."""

    ask_id: str
    question: str
    choices: list[Choice]


class Wrote(msgspec.Struct, frozen=True, tag="wrote", tag_field="type"):
    """A file the agent wrote through bb7: now a pending output (`added`: a new file)."""

    path: str
    added: bool


class Notice(msgspec.Struct, frozen=True, tag="warning", tag_field="type"):
    """Something the user should know that does not end the turn (a refused request, a file
    changed on disk that bb7 cannot record)."""

    kind: str
    message: str


class Ended(msgspec.Struct, frozen=True, tag="done", tag_field="type"):
    """The turn is over. `ok`: the agent ended it (`stop_reason`: end_turn, max_tokens,
    refusal, cancelled, ...); not `ok`: it failed (`kind`: not_found, exited, malformed,
    too_large, timeout, version, refused, cancelled) and `message` says how, in one line.
    `pending`: paths the agent wrote through bb7 (pending outputs); `applied`: paths it
    changed on disk itself (the agent's applies, to review or undo). `message_id`: the
    agent's stored answer (0 when none)."""

    chat_id: str
    ok: bool
    stop_reason: str = ""
    kind: str = ""
    message: str = ""
    message_id: int = 0
    pending: list[str] = []
    applied: list[str] = []


AgentEvent = Started | Chunk | Thought | Tool | PlanShown | Permission | Wrote | Notice | Ended
