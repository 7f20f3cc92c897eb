"""What the host tells Lua unasked: every event payload, typed field for field.

Lua receives batches of `[name, payload]` pairs (`bb7.host.events`). A running send's events
are wire Structs of their own (`Chunk`, `Reasoning`, ...), made from the send loop's records by
`bb7.host.protocol.convert`: a field added to a core record (`bb7.chat.events`, `StatusRow`,
`Candidate`) reaches Lua, or a `User` autocmd, only when it is added here too.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from bb7.state.status import Status


class Ready(msgspec.Struct, frozen=True):
    """First event of every host: Lua queues calls until it arrives."""

    version: str
    protocol: int
    pid: int
    channel: int
    python: str


class Notify(msgspec.Struct, frozen=True):
    """A message for `vim.notify` (errors of notifications, which have no reply)."""

    level: Literal["error", "warn", "info"]
    message: str


class StatusItem(msgspec.Struct, frozen=True):
    """Status of one file of the active chat, and the lines its signs go on (1-based): `lines`
    the model's pending change touches, `user_lines` the user changed since the snapshot the
    model saw; `choose`: edits of the change waiting for the user's choice of place; `agent`:
    an agent's own write of the file to disk waits for review (`StatusRow.agent`). `check`:
    the checks' verdict on its pending change, as `vim.b.bb7_check` holds it ('failed 2'; ''
    when none), `check_mark` as the statusline and the files panel show it ('✗2')."""

    status: Status
    lines: list[int] = []
    user_lines: list[int] = []
    choose: int = 0
    check: str = ""
    check_mark: str = ""
    agent: bool = False


class StatusChanged(msgspec.Struct, frozen=True):
    """New statuses keyed by absolute path; `full` replaces the whole Lua cache."""

    files: dict[str, StatusItem]
    removed: list[str] = []
    full: bool = False


class RequestStarted(msgspec.Struct, frozen=True):
    """A `send` began streaming (becomes `User BB7RequestStarted`); `repair`: the automatic
    repair request after failed edits."""

    request_id: str
    chat_id: str = ""
    model: str = ""
    edit_format: Literal["", "none", "tools", "text_blocks"] = ""
    repair: bool = False


# --- the events of a running send, each under `Streamed.event` --------------------------------


class Candidate(msgspec.Struct, frozen=True):
    """Where a failed edit probably belonged (1-based, inclusive lines)."""

    start_line: int
    end_line: int
    similarity: float
    text: str


class ApplyError(msgspec.Struct, frozen=True):
    """One failed tool call or edit: `block` its place in the answer, `edit` the edit inside
    it, `line` the block's first line in the answer; `message` is written for the model."""

    block: int | None
    edit: int | None
    path: str
    kind: str
    message: str
    best: Candidate | None = None
    line: int | None = None


class Chunk(msgspec.Struct, frozen=True, tag="chunk", tag_field="type"):
    """A piece of the answer text."""

    text: str


class Reasoning(msgspec.Struct, frozen=True, tag="reasoning", tag_field="type"):
    """A piece of the model's reasoning."""

    text: str


class ToolProgress(msgspec.Struct, frozen=True, tag="tool_progress", tag_field="type"):
    """A tool call growing: its name, the first path its arguments name ('' until seen), and
    the length of its arguments so far."""

    index: int
    name: str
    path: str
    arguments_length: int


class BlockStatus(msgspec.Struct, frozen=True, tag="block", tag_field="type"):
    """A text edit block closed while streaming; not `ok`: it is malformed, `message` says why."""

    index: int | None
    path: str
    line: int
    ok: bool
    message: str = ""


class Notice(msgspec.Struct, frozen=True, tag="warning", tag_field="type"):
    """Something the user should know that does not stop the send (`kind`: context_near,
    models, instructions, retry, stream, reasoning)."""

    kind: str
    message: str


class Retrying(msgspec.Struct, frozen=True, tag="retrying", tag_field="type"):
    """The provider failed before answering; the request goes out again after `delay`
    seconds (attempt `attempt` of `max_attempts`; `reason` says why)."""

    attempt: int
    max_attempts: int
    delay: float
    reason: str


class Repairing(msgspec.Struct, frozen=True, tag="repairing", tag_field="type"):
    """The answer's file changes failed; bb7 asks the model once more to fix them."""

    errors: list[ApplyError]


class TitleChanged(msgspec.Struct, frozen=True, tag="title", tag_field="type"):
    """The chat was named after its first exchange."""

    chat_id: str
    title: str


SendEvent = (
    Chunk | Reasoning | ToolProgress | BlockStatus | Notice | Retrying | Repairing | TitleChanged
)


class Streamed(msgspec.Struct, frozen=True):
    """Any other event of a running `send`, named by its `event.type` (`chunk`, `reasoning`,
    `tool_progress`, `block`, `warning`, `retrying`, `repairing`, `title`)."""

    request_id: str
    event: SendEvent


class Usage(msgspec.Struct, frozen=True):
    """What a send's requests took: tokens in (`cached_tokens` of them read from the provider's
    prompt cache, `cache_write_tokens` written to it) and out, `cost` and `saved` (by the
    cache, against full price) in USD, seconds to the `first_token` and in all (`duration`)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float = 0.0
    saved: float = 0.0
    first_token: float = 0.0
    duration: float = 0.0


class AskedFile(msgspec.Struct, frozen=True, kw_only=True):
    """A file the answer asked for: `file` is the editor's path to add it with (empty when it
    is not available, `reason` says why), `tokens` what it would add."""

    path: str
    file: str = ""
    start_line: int | None = None
    end_line: int | None = None
    available: bool
    tokens: int = 0
    reason: str = ""


class SendDone(msgspec.Struct, frozen=True):
    """A response ended; its fields are `User BB7ResponseDone`'s data.

    `files`: absolute paths of the pending outputs it wrote; `errors`: why its edits failed,
    one line each. Not `ok` without edits means the send itself failed: `kind` says how
    (`cancelled`, `auth`, `connection`, ...) and `message` what to do. `usage`: what its
    requests took and cost, when any was made. `requested`: files the answer asks the user
    to add (`why`: its one line of reason); nothing is added without the user.
    """

    request_id: str
    ok: bool
    files: list[str] = []
    errors: list[str] = []
    kind: str = ""
    message: str = ""
    usage: Usage | None = None
    requested: list[AskedFile] = []
    why: str = ""
    # An agent's turn: files it changed on disk itself (absolute paths; their buffers reload).
    applied: list[str] = []


class DiffError(msgspec.Struct, frozen=True):
    """The file changes of a response failed (sent before its `done`): every error, and
    whether the retry context was saved for the next send."""

    request_id: str
    errors: list[ApplyError]
    retry_saved: bool = False


class Pricing(msgspec.Struct, frozen=True):
    """USD per token; None where the provider did not say."""

    prompt: float | None = None
    completion: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None


class ModelInfo(msgspec.Struct, frozen=True):
    """One model of the provider, as the model picker shows it. `capabilities_source`: the
    local server API that said whether it takes tools and its context size ("" when the
    models list said it, or nobody did); `edits`: how its answers with edits landed in this
    project's chats, short (`bb7.stats`; "" when it has none)."""

    id: str
    name: str = ""
    context_length: int | None = None
    max_completion_tokens: int | None = None
    supports_tools: bool | None = None
    supports_reasoning: bool | None = None
    pricing: Pricing = Pricing()
    capabilities_source: str = ""
    edits: str = ""
    context: str = ""  # the context length as users skim it (`1.5k`, `200k`), '' unknown


class Models(msgspec.Struct, frozen=True):
    """The `models` event: the provider's models, tool-capable first; `current` is the active
    chat's model; `error` says why there is no list."""

    models: list[ModelInfo] = []
    current: str = ""
    warning: str | None = None
    error: str | None = None


# --- an agent's turn (`:BB7Agent`), beside the send's events it shares (`chunk`, `reasoning`) --


class AgentTool(msgspec.Struct, frozen=True):
    """A tool call of the agent as it now stands (`agent_tool`): `line` is the one line the
    conversation shows and updates in place (`id` says which), `diff` the lines of the
    changes it shows ('' when none), drawn under it."""

    request_id: str
    id: str
    line: str
    diff: list[str] = []


class AgentPlan(msgspec.Struct, frozen=True):
    """The agent's plan, whole, as checklist lines (`agent_plan`)."""

    request_id: str
    lines: list[str]


class AgentChoice(msgspec.Struct, frozen=True):
    """One answer to the agent's question: the key that gives it, its option and name."""

    key: str
    option_id: str
    name: str


class AgentPermission(msgspec.Struct, frozen=True):
    """The agent asks before a tool call (`agent_permission`): one line, and its answers;
    `agent_answer` with `ask_id` replies."""

    request_id: str
    ask_id: str
    question: str
    choices: list[AgentChoice]


class AgentNotice(msgspec.Struct, frozen=True):
    """Something of the turn the user should know (`agent_notice`): a request of the agent
    bb7 refused, a file changed on disk it cannot record; one line."""

    request_id: str
    message: str


class ChatLost(msgspec.Struct, frozen=True):
    """Another bb7 took over the chat this host held (`:BB7Chat!` there): the sends running
    here ended, the view turns read-only. `held_by`: who has it now (`pid 4242 in ~/p`)."""

    chat_id: str
    name: str
    held_by: str


class CheckStarted(msgspec.Struct, frozen=True):
    """The project's checks began on the active chat's pending change (`scope`: one file's,
    its editor path): which checks, on how many pending files."""

    chat_id: str
    checks: list[str]
    files: int
    scope: str = ""


class CheckDone(msgspec.Struct, frozen=True):
    """A check run ended (becomes `User BB7CheckDone`): its verdict (`state`: passed, failed,
    timed_out, error; `cancelled` by a new answer or an apply, or `problem` when it could not
    start), `failed` of `total` checks, the chat `message` that keeps it, `summary` one line
    for the user; `fix_next`: the "make the checks pass" round to send now (`checks.auto_fix`;
    0: none)."""

    chat_id: str
    state: str = ""
    failed: int = 0
    total: int = 0
    message: int = 0
    scope: str = ""
    summary: str = ""
    cancelled: bool = False
    problem: str = ""
    fix_round: int = 0
    fix_next: int = 0


class InlineText(msgspec.Struct, frozen=True):
    """Text an in-place edit's answer writes into the file, as it streams (`inline_text`): what
    its edits' new lines add, after the text of the events before."""

    request_id: str
    text: str


# Every event Lua receives: its name -> its payload (the send's others are `Streamed`, named by
# their tag: `chunk`, `reasoning`, ...).
EVENTS: dict[str, type[msgspec.Struct]] = {
    "ready": Ready,
    "notify": Notify,
    "status_changed": StatusChanged,
    "request_started": RequestStarted,
    "done": SendDone,
    "diff_error": DiffError,
    "models": Models,
    "agent_tool": AgentTool,
    "agent_plan": AgentPlan,
    "agent_permission": AgentPermission,
    "agent_notice": AgentNotice,
    "chat_lost": ChatLost,
    "check_started": CheckStarted,
    "check_done": CheckDone,
    "inline_text": InlineText,
}
