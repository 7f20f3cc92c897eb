"""What Lua calls and what it gets back: the `*Args` Struct of every method, the options of
`setup()`, the editor's buffers, and the replies (`Reply` and the values in it).

Lua sends one table per call, decoded into the `*Args` Struct its route names
(`bb7.host.handlers`); every request gets a `Reply`. Events are in `events`.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from bb7.chatview.conversation import Rendered
from bb7.chatview.files import Panel
from bb7.checks.options import ChecksOptions
from bb7.host.protocol.events import StatusChanged
from bb7.live import EditorState

# One "refused, here is what to do" type everywhere (bb7.refusal).
from bb7.refusal import Problem
from bb7.text.hunks import Hunk


class Reply(msgspec.Struct, frozen=True):
    """The answer to every request: `value` when `ok`, else `error`."""

    ok: bool
    value: Any = None
    error: Problem | None = None


class Said(msgspec.Struct, frozen=True):
    """A reply whose `message` Lua shows to the user (`vim.notify`, info level)."""

    message: str


class PromptArgs(msgspec.Struct, frozen=True):
    """`prompt_parts`: the message as typed so far (it is the request's last part), and the
    editor's state the chat's live parts are read from again, as a send would."""

    text: str = ""
    editor: EditorState | None = None


class PromptPartRow(msgspec.Struct, frozen=True):
    """One part of the next request: `kind` (system_prompt, instructions, tool_prompt, tools,
    file, diff, history, latest, retry), `path` for a file's block or diff (`start_line`,
    `end_line` for a section's), `message` for a history part (one stored message, with its
    events), `excluded` for a message the user left out (listed, not sent, not in the sum),
    `line` as listed."""

    kind: str
    tokens: int
    cost: float | None
    line: str
    path: str = ""
    start_line: int = 0
    end_line: int = 0
    message: int = 0
    excluded: bool = False


class PromptParts(msgspec.Struct, frozen=True):
    """`prompt_parts`' reply: every part of the next request in order, their sum, `title`."""

    parts: list[PromptPartRow]
    tokens: int
    cost: float | None
    title: str


class Estimate(msgspec.Struct, frozen=True):
    """`estimate`'s reply: the next request's prompt in `tokens`, `cached` of them expected from
    the provider's cache, the input's `cost` in USD (None: prices unknown), `text`, what the
    input bar shows (`~12k tok (9.8k cached) · ~$0.0061`), and `near`: the prompt nears the
    model's context limit (the bar offers `:BB7Compact`, by its key)."""

    tokens: int
    cached: int
    cost: float | None
    text: str
    near: bool = False


class Opened(msgspec.Struct, frozen=True):
    """`open`'s reply: the project root in use, whether it has `.bb7/`, the active chat's id."""

    root: str
    initialized: bool
    chat: str | None = None


class DiffView(msgspec.Struct, frozen=True):
    """What `:BB7Diff` shows: the local file `path` (absolute) beside the pending output, given
    as buffer lines (`eol`: the text ends with a newline); `name` is the project path; `own`:
    the 1-based local lines the user changed since the snapshot (shown apart)."""

    path: str
    name: str
    lines: list[str]
    eol: bool = True
    own: list[int] = []


# --- arguments (Lua -> host) ---------------------------------------------------------------


class PrivacySettings(msgspec.Struct, frozen=True):
    """The `provider.privacy` options, for OpenRouter: `data_collection` 'deny' routes only to
    providers that do not keep or train on prompts ('allow' or None: the account's setting);
    `zdr` True only to zero-data-retention endpoints."""

    data_collection: str | None = None
    zdr: bool | None = None


class ProviderSettings(msgspec.Struct, frozen=True):
    """The `provider` options (see lua/bb7/config.lua): an API key *source*, never a key.
    `bb7.provider.provider.provider_config` turns them into the client's configuration."""

    base_url: str | None = None  # None: the preset's (OpenRouter's without a preset)
    # The wire protocol, 'openai' or 'anthropic' (None: the preset's).
    api: str | None = None
    model: str | None = None
    api_key: str | None = None
    preset: str | None = None
    timeout: float | None = None
    idle_timeout: float | None = None
    retries: int | None = None
    # The default for chats without their own; `set_reasoning_effort` changes it at runtime.
    reasoning_effort: str | None = None
    # Cache breakpoints for providers that cache only what is marked (`provider.cache`).
    cache: bool = True
    privacy: PrivacySettings = PrivacySettings()


class ContextSettings(msgspec.Struct, frozen=True):
    """The `context` options: how the user's edits to context files reach the model at a send
    ('diff', 'full' or 'off', checked by Lua's option schema), and the files a project keeps
    for models that are read as its instructions."""

    follow_edits: str = "diff"
    instruction_files: list[str] = msgspec.field(default_factory=lambda: ["AGENTS.md"])


class AgentSettings(msgspec.Struct, frozen=True):
    """The `agents` options: what bb7 answers an agent that asks before a tool call ('ask',
    'allow', 'reject', checked by Lua's option schema) and the agents' commands by name (the
    documented defaults with the user's over them; one set to false is left out)."""

    permissions: str = "ask"
    commands: dict[str, list[str]] = {}


class TitleSettings(msgspec.Struct, frozen=True):
    """The `titles` options: name a chat after its first exchange, with `model` (None: the
    chat's own). Off unless Lua sends the option (on by default there)."""

    enabled: bool = False
    model: str | None = None


class Settings(msgspec.Struct, frozen=True):
    """The options the host needs from `setup()`. `diff_mode` is checked by Lua's option
    schema; the host only passes it on (importing the formats here would slow its start).
    `checks`: this machine's checks over the project's `.bb7/checks.toml`, and when they run
    by themselves."""

    diff_mode: str = "search_replace_multi"
    provider: ProviderSettings = ProviderSettings()
    titles: TitleSettings = TitleSettings()
    context: ContextSettings = ContextSettings()
    agents: AgentSettings = AgentSettings()
    checks: ChecksOptions = ChecksOptions()
    # The prompt log's file (`log_prompts`, `bb7.usage.prompts`); '' while it is off.
    prompt_log: str = ""


class BufferText(msgspec.Struct, frozen=True):
    """A loaded buffer of a file: `lines` only when it has unsaved changes (else the host reads
    the disk); `buf` is its number, so the host can write through it."""

    path: str
    changedtick: int
    lines: list[str] | None = None
    buf: int = 0
    eol: bool = True
    # 'fileformat' dos and 'bomb': how writing the buffer would end lines and start the file.
    crlf: bool = False
    bom: bool = False


class OpenArgs(msgspec.Struct, frozen=True):
    """`open`: the first call of every host (and again on `:cd` or `setup()`): the project
    root (Neovim's working directory) and the options; `buffers`: loaded buffers with unsaved
    changes, so the first statuses count them."""

    root: str
    settings: Settings = Settings()
    buffers: list[BufferText] = []


class NoArgs(msgspec.Struct, frozen=True):
    """Arguments of a method that takes none."""


class PingArgs(msgspec.Struct, frozen=True):
    """`ping`: echo `payload` back (health check round trip, tests)."""

    payload: Any = None


class Pong(msgspec.Struct, frozen=True):
    """`ping`'s answer: the payload back, bb7's version, the host's pid and Python version."""

    payload: Any
    version: str
    pid: int
    python_version: str = ""


class EchoEventsArgs(msgspec.Struct, frozen=True):
    """`echo_events`: a worker thread emits these `[name, payload]` events (tests, benchmarks)."""

    events: list[tuple[str, Any]]
    interval_ms: float = 0.0


class InitArgs(msgspec.Struct, frozen=True):
    root: str


class NewChatArgs(msgspec.Struct, frozen=True):
    """`same_context`: the new chat gets the active chat's model, effort and context (its
    whole files read afresh), none of its history."""

    name: str | None = None
    same_context: bool = False


class PathArgs(msgspec.Struct, frozen=True):
    """A method acting on one file (absolute path); `buffers`: its buffer, when loaded."""

    path: str
    buffers: list[BufferText] = []


class BuffersArgs(msgspec.Struct, frozen=True):
    """A method acting on every file of the chat (`apply_all`): their loaded buffers."""

    buffers: list[BufferText] = []


class AddPathsArgs(msgspec.Struct, frozen=True):
    """`add_paths`: `:BB7Add`'s arguments (paths, `PATH:START-END`, directories, globs;
    relative to `cwd`). `answer` is the action of the `Choice` the user took when the host
    asked (`all`, `no_secrets`); empty the first time. `gathered`: the editor gathered the
    paths (`:BB7Add buffers`, `quickfix`), so what cannot be added is skipped, as under a
    directory; paths the user typed one by one are added all or none."""

    specs: list[str]
    cwd: str
    readonly: bool = False
    answer: Literal["", "all", "no_secrets"] = ""
    buffers: list[BufferText] = []
    gathered: bool = False


class AddPartArgs(msgspec.Struct, frozen=True):
    """`add_part`: `:BB7Add diagnostics|diff|terminal ...` (or `@diagnostics` in the input): the
    words as typed and the editor's state it is read from."""

    words: list[str]
    editor: EditorState = EditorState()


class Choice(msgspec.Struct, frozen=True):
    """One answer the user may give: `action` goes back as `AddPathsArgs.answer`."""

    action: Literal["all", "no_secrets", "cancel"]
    label: str


class AddPlan(msgspec.Struct, frozen=True, omit_defaults=True):
    """`add_paths`' reply: `message` when it added; else `question` with its `choices` (many
    files, or one that looks like a secret): nothing was added yet."""

    message: str | None = None
    question: str | None = None
    choices: list[Choice] = []


class ApplyArgs(msgspec.Struct, frozen=True):
    """`apply`: `force` applies over local changes (`:BB7Apply!`)."""

    path: str
    force: bool = False
    buffers: list[BufferText] = []


class SetModelArgs(msgspec.Struct, frozen=True):
    model: str


class SetReasoningEffortArgs(msgspec.Struct, frozen=True):
    """`set_reasoning_effort`: 'none', 'minimal', 'low', 'medium' or 'high' for the active chat
    (and the session's default from then on); '' goes back to the model's default."""

    effort: str = ""


class PasteArgs(msgspec.Struct, frozen=True):
    """`paste`: a model response (edit blocks) pasted by the user."""

    text: str
    buffers: list[BufferText] = []


class SendArgs(msgspec.Struct, frozen=True):
    """`send`: `text` to the model in the active chat; `model` overrides the chat's model for
    this request; `buffers`: unsaved buffers, whose edits the model is sent (they count as the
    user's copy of a context file). `fix_checks`: the text is "make the checks pass" (refused
    unless the last check run failed), the `fix_round`th bb7 sent by itself (0: the user's)."""

    request_id: str
    text: str
    model: str | None = None
    buffers: list[BufferText] = []
    # The editor's state the chat's live parts (diagnostics, terminal) are read from again.
    editor: EditorState | None = None
    fix_checks: bool = False
    fix_round: int = 0


class CheckArgs(msgspec.Struct, frozen=True):
    """`check`: run the project's checks on the active chat's pending change (`path`, an
    editor path: that file's change alone); `buffers`: unsaved buffers (a pending file's
    local edits, which the change is rebased on)."""

    path: str = ""
    buffers: list[BufferText] = []


class CheckOutputArgs(msgspec.Struct, frozen=True):
    """`check_output`: the check run kept in message `message_id` (0: the chat's last run)."""

    message_id: int = 0


class CheckPlace(msgspec.Struct, frozen=True):
    """A `file:line:col` a check printed: `path` the editor's (absolute) path, `name` the
    project path; in a `pending` file the line is one of its pending text (the text the check
    ran on)."""

    path: str
    name: str
    line: int
    col: int
    text: str
    check: str
    pending: bool = False


class CheckDetails(msgspec.Struct, frozen=True):
    """`check_output`'s reply: the float (`title`, `lines`: each check that did not pass,
    the end of its output), the `places` for the quickfix list, and the pending text of each
    pending file they point into (buffer lines; `eol` as `DiffView`'s)."""

    title: str
    lines: list[str]
    places: list[CheckPlace] = []
    pending: dict[str, list[str]] = {}


class CheckFound(msgspec.Struct, frozen=True):
    """One declared check for `:checkhealth bb7`: its command, and where it was found or why
    not (`problem`)."""

    name: str
    command: str
    found: str = ""
    problem: str = ""


class ChecksHealth(msgspec.Struct, frozen=True):
    """`checks_health`'s reply: the project's checks (`problem`: why they cannot be read) and
    how a check is kept from the project here (`isolation`: namespace, copy (confined by
    Landlock), unconfined, or none: checks are not run; `why` not the namespace)."""

    checks: list[CheckFound] = []
    problem: str = ""
    isolation: str = ""
    why: str = ""


class AgentArgs(msgspec.Struct, frozen=True):
    """`agent_chat` (`:BB7Agent [NAME]`): the agent by name; '' for the active chat's agent,
    else the first one found."""

    name: str = ""


class AgentAnswerArgs(msgspec.Struct, frozen=True):
    """`agent_answer`: the answer to the agent's question `ask_id` of the active chat: one of
    its options, or None (cancelled)."""

    ask_id: str
    option_id: str | None = None


class CancelArgs(msgspec.Struct, frozen=True):
    """`cancel`: the given request, or whatever is streaming when None."""

    request_id: str | None = None


class StatusesArgs(msgspec.Struct, frozen=True):
    """`statuses`: recompute these buffers (or every file of the chat when `all`)."""

    buffers: list[BufferText] = []
    all: bool = False


# --- the chat view and the chat list -------------------------------------------------------


class ChatSummary(msgspec.Struct, frozen=True):
    """A chat as the chat list and the view's title show it (`effort`: the chat's own
    reasoning effort, '' for the default)."""

    id: str
    name: str
    scope: str
    pinned: bool
    updated: float
    model: str
    active: bool
    effort: str = ""
    held_by: str = ""  # another live bb7 process holding the chat (`pid 4242 in ~/p`), or ''
    agent: str = ""  # the agent the chat talks to (`:BB7Agent`), '' for the model


class ChatView(msgspec.Struct, frozen=True, omit_defaults=True):
    """Everything the chat view draws for a chat: title, draft, retry banner, conversation,
    files panel. `retry`: the last answer's edits failed and the next send carries the retry
    context. The optional fields are left out when empty (Lua reads nil, not `vim.NIL`)."""

    chat: ChatSummary
    draft: str
    retry: bool
    conversation: Rendered
    files: Panel
    hint: str = ""  # one line to show once (a global chat opened outside any project)
    statuses: StatusChanged | None = None  # asked for with `ChatViewArgs.statuses`
    resend: bool = False  # the last send ended in an error or a cancel: it can be sent again


class ProjectFiles(msgspec.Struct, frozen=True):
    """The files the picker offers (`bb7.adding.project_files`): relative to `root`."""

    root: str
    files: list[str]


class EditInstructionsArgs(msgspec.Struct, frozen=True):
    """`:BB7EditInstructions [project|global]`: empty is the project's, else the user's."""

    scope: Literal["", "project", "global"] = ""


class InstructionFiles(msgspec.Struct, frozen=True):
    """The instruction file to open (absolute; created when missing) and a one-line `message`
    naming every instruction file that applies."""

    path: str
    message: str


class MoveChatArgs(msgspec.Struct, frozen=True):
    """Move a chat to the project's chats (`project`) or the global ones (`global`)."""

    chat_id: str
    scope: Literal["project", "global"]


class ChatViewArgs(msgspec.Struct, frozen=True):
    """`chat_view`: the given chat, or the active one (`create`: held by this host, and a new
    one when the project has none, as `:BB7Chat` opens); `buffers`: the editor's buffers;
    `statuses`: the active chat's statuses too, for Lua's cache, computed once with the
    panel's (the view's redraw at the end of a send). `width`: the conversation pane's text
    width, which the lines that would wrap badly fit (0: unknown)."""

    chat_id: str | None = None
    create: bool = False
    buffers: list[BufferText] = []
    statuses: bool = False
    width: int = 0


class TakeChatArgs(msgspec.Struct, frozen=True):
    """`take_chat` (`:BB7Chat!`): hold the active chat; `force`: also from a process that still
    runs (its lease is dropped, and its sending stops)."""

    force: bool = False


class FileListArgs(msgspec.Struct, frozen=True):
    """`file_list`: the active chat's files panel."""

    buffers: list[BufferText] = []


class ChatIdArgs(msgspec.Struct, frozen=True):
    """`switch_chat`, `delete_chat`: one chat by id."""

    chat_id: str


class RenameChatArgs(msgspec.Struct, frozen=True):
    chat_id: str
    name: str


class PinChatArgs(msgspec.Struct, frozen=True):
    chat_id: str
    pinned: bool


class SearchChatsArgs(msgspec.Struct, frozen=True):
    query: str


class ChatSearchHit(msgspec.Struct, frozen=True):
    """A chat found by `search_chats`: by its `name` or a `message` (with an excerpt)."""

    chat: ChatSummary
    match: str
    excerpt: str


class CompactArgs(msgspec.Struct, frozen=True):
    """`compact`: summarize all but the last `keep` turns of the active chat (`:BB7Compact`)."""

    keep: int = 4


class InlineEditArgs(msgspec.Struct, frozen=True):
    """`inline_edit` (`:BB7Edit`): lines `start_line` to `end_line` (1-based, inclusive) of
    `path` changed as `instruction` says, in the project's inline chat; `request_id` names the
    send (its events, its `done`), `buffers` the file's buffer."""

    request_id: str
    path: str
    start_line: int
    end_line: int
    instruction: str
    buffers: list[BufferText] = []


class MessageArgs(msgspec.Struct, frozen=True):
    """`fork_chat`, `edit_message`: a user message of the active chat; `exclude_message`,
    `message_info`: any message of it."""

    message_id: int
    buffers: list[BufferText] = []


class MessageInfo(msgspec.Struct, frozen=True):
    """`message_info`: what `K` shows about a message, one line each (time, model and
    reasoning effort, tokens, cost, duration)."""

    lines: list[str]


class ModelsArgs(msgspec.Struct, frozen=True):
    """`models`: `refresh` asks the provider again, whatever the cache's age."""

    refresh: bool = False


class ChatRestored(msgspec.Struct, frozen=True):
    """After fork or edit: the chat now active, the draft to edit, and warnings about files
    that changed since the message was sent."""

    chat_id: str
    draft: str
    warnings: list[str]


class SaveDraftArgs(msgspec.Struct, frozen=True):
    chat_id: str
    draft: str


class FileArgs(msgspec.Struct, frozen=True):
    """`update_file`, `file_diff`: a file of the active chat (absolute path), with the
    editor's unsaved buffer texts. Sections are named by `start_line`/`end_line`."""

    path: str
    buffers: list[BufferText] = []
    start_line: int = 0
    end_line: int = 0


class SetReadonlyArgs(msgspec.Struct, frozen=True):
    path: str
    readonly: bool
    buffers: list[BufferText] = []


class Updated(msgspec.Struct, frozen=True):
    """`update_all`: the files re-snapshotted, and those refused with why."""

    updated: list[str]
    problems: list[str]


# -- the inline review (`:BB7Review`, `:BB7Merge`) ---------------------------------------------


class ReviewActArgs(msgspec.Struct, frozen=True):
    """`review_accept` / `review_reject`: the hunk the editor drew under the cursor, or `all`;
    `amended`: the lines to accept instead of the hunk's; `reason`: why it is rejected."""

    path: str
    buffers: list[BufferText] = []
    hunk: Hunk | None = None
    all: bool = False
    amended: list[str] | None = None
    reason: str = ""


class ReviewReply(msgspec.Struct, frozen=True, omit_defaults=True):
    """The hunks to draw over the buffer of `path` (absolute); none: nothing is pending."""

    path: str
    hunks: list[Hunk]
    message: str | None = None


class MergeReply(msgspec.Struct, frozen=True):
    """`merge`: `overlaps` (1-based first, last local lines) stay pending for the review."""

    path: str
    overlaps: list[tuple[int, int]]
    message: str


# Every reply value Lua receives (inside `Reply.value`).
REPLIES: tuple[type[msgspec.Struct], ...] = (
    Reply,
    Pong,
    Said,
    AddPlan,
    Opened,
    Estimate,
    PromptParts,
    DiffView,
    ChatView,
    ChatSearchHit,
    ChatRestored,
    MessageInfo,
    Updated,
    ProjectFiles,
    InstructionFiles,
    ReviewReply,
    MergeReply,
    CheckDetails,
    ChecksHealth,
)
