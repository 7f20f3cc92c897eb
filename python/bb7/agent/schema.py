"""The Agent Client Protocol (ACP) v1 messages bb7 sends and reads, as msgspec Structs of the
protocol's JSON schema (`schema/v1/schema.json` of agentclientprotocol/agent-client-protocol).

Only what a client that offers `fs/read_text_file` and `fs/write_text_file` (and no terminal)
needs: initialize, session/new, session/prompt, session/cancel, session/update,
session/request_permission and the two fs methods. Field names are the protocol's camelCase
(`rename="camel"`); unknown fields are ignored and the optional ones default, as the schema's
`x-deserialize-default-on-error` asks of a tolerant reader. `session/update` is decoded in two
steps (`update_of`): its tag first, then the one variant bb7 shows; an update kind bb7 does not
show (available commands, modes, usage) is skipped, never an error.

Why Structs and not the `agent-client-protocol` package from PyPI: importing it (pydantic
models of the whole schema) takes ~0.5 s of CPU, more than the host's whole cold-start budget
(`benchmarks/chat_view.py`: `:BB7Chat` in < 300 ms), and adds pydantic; these Structs import in
about a millisecond beside msgspec, which bb7 has already.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

PROTOCOL_VERSION = 1

ToolKind = str  # read, edit, delete, move, search, execute, think, fetch, switch_mode, other
ToolStatus = Literal["pending", "in_progress", "completed", "failed"]
StopReason = str  # end_turn, max_tokens, max_turn_requests, refusal, cancelled


class _Camel(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    pass


# -- client -> agent -----------------------------------------------------------------------------


class FileSystemCapability(_Camel):
    read_text_file: bool = False
    write_text_file: bool = False


class ClientCapabilities(_Camel):
    fs: FileSystemCapability = msgspec.field(default_factory=FileSystemCapability)
    # Never advertised: bb7 runs no command on its own, so the agent gets no terminal of it.
    terminal: bool = False


class Implementation(_Camel):
    name: str
    version: str = ""
    title: str | None = None


class InitializeRequest(_Camel):
    protocol_version: int
    client_capabilities: ClientCapabilities
    client_info: Implementation | None = None


class NewSessionRequest(_Camel):
    cwd: str
    mcp_servers: list[Any]  # required by the schema, even empty (an agent refuses it missing)


class TextContent(_Camel, tag="text", tag_field="type"):
    text: str


class PromptRequest(_Camel):
    session_id: str
    prompt: list[TextContent]


class CancelNotification(_Camel):
    session_id: str


# -- agent -> client: replies ------------------------------------------------------------------


class InitializeResponse(_Camel):
    protocol_version: int
    agent_info: Implementation | None = None


class NewSessionResponse(_Camel):
    session_id: str


class PromptResponse(_Camel):
    stop_reason: StopReason


# -- agent -> client: session/update -----------------------------------------------------------


class ContentBlock(_Camel):
    """Any content block; only a text block's `text` is shown (an image is named by its type)."""

    type: str
    text: str = ""


class ContentChunk(_Camel):
    content: ContentBlock


class ToolContentBlock(_Camel):
    """One item of a tool call's `content`: `content` (a block), `diff` (path, old and new
    text) or `terminal` (not offered by bb7: shown by its type)."""

    type: str
    content: ContentBlock | None = None
    path: str = ""
    old_text: str | None = None
    new_text: str | None = None


class Location(_Camel):
    path: str
    line: int | None = None


class ToolCall(_Camel):
    """A `tool_call` (every field but the id given) or a `tool_call_update` (only what
    changed: the others None)."""

    tool_call_id: str
    title: str | None = None
    kind: ToolKind | None = None
    status: ToolStatus | None = None
    content: list[ToolContentBlock] | None = None
    locations: list[Location] | None = None


class PlanEntry(_Camel):
    content: str
    status: str = "pending"
    priority: str = ""


class Plan(_Camel):
    entries: list[PlanEntry] = []


class _Tagged(msgspec.Struct):
    session_update: str = msgspec.field(name="sessionUpdate")


class _Notification(msgspec.Struct):
    sessionId: str
    update: msgspec.Raw


Update = (
    tuple[Literal["agent_message_chunk", "agent_thought_chunk"], ContentChunk]
    | tuple[Literal["tool_call", "tool_call_update"], ToolCall]
    | tuple[Literal["plan"], Plan]
)

_VARIANTS: dict[str, type[msgspec.Struct]] = {
    "agent_message_chunk": ContentChunk,
    "agent_thought_chunk": ContentChunk,
    "tool_call": ToolCall,
    "tool_call_update": ToolCall,
    "plan": Plan,
}


def update_of(params: msgspec.Raw) -> tuple[str, str, msgspec.Struct | None]:
    """A `session/update`'s session id, kind, and its decoded variant (None for a kind bb7
    does not show). Raises msgspec.ValidationError for an update that is not one."""
    note = msgspec.json.decode(params, type=_Notification)
    kind = msgspec.json.decode(note.update, type=_Tagged).session_update
    variant = _VARIANTS.get(kind)
    if variant is None:
        return note.sessionId, kind, None
    return note.sessionId, kind, msgspec.json.decode(note.update, type=variant)


# -- agent -> client: requests -----------------------------------------------------------------


class PermissionOption(_Camel):
    option_id: str
    name: str
    kind: str  # allow_once, allow_always, reject_once, reject_always


class RequestPermissionRequest(_Camel):
    session_id: str
    tool_call: ToolCall
    options: list[PermissionOption]


class SelectedOutcome(_Camel, tag="selected", tag_field="outcome"):
    option_id: str


class CancelledOutcome(_Camel, tag="cancelled", tag_field="outcome"):
    pass


class RequestPermissionResponse(_Camel):
    outcome: SelectedOutcome | CancelledOutcome


class ReadTextFileRequest(_Camel):
    session_id: str
    path: str
    line: int | None = None
    limit: int | None = None


class ReadTextFileResponse(_Camel):
    content: str


class WriteTextFileRequest(_Camel):
    session_id: str
    path: str
    content: str
