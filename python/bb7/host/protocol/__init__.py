"""The contract between the Lua frontend and the Python host: everything Lua sends and sees.

- `calls`: every method's `*Args`, the `setup()` options, the replies;
- `events`: every event payload, the send's events as wire Structs of their own;
- `convert`: core records -> those wire Structs, at the handler edge (imports the core);
- `vocab`: the closed sets Lua needs before a host runs (statuses, presets, diff modes, ...);
- `lua`: writes `lua/bb7/types.lua` and `lua/bb7/vocab.lua` from them
  (`python -m bb7.host.protocol.lua [--check]`).

Every message is a msgspec Struct; the host converts them to plain msgpack values at the edge.
Lua sends one table per call, gets a `Reply` back for requests, and receives events as batches
of `[name, payload]` pairs. Importing this package stays cheap (no formats, no LLM client).
"""

from __future__ import annotations

from bb7.host.protocol.calls import (
    AddArgs,
    ApplyArgs,
    BuffersArgs,
    BufferText,
    CancelArgs,
    ChatIdArgs,
    ChatRestored,
    ChatSearchHit,
    ChatSummary,
    ChatView,
    ChatViewArgs,
    DiffView,
    EchoEventsArgs,
    FileArgs,
    FileListArgs,
    InitArgs,
    MergeReply,
    MessageArgs,
    MoveChatArgs,
    NewChatArgs,
    NoArgs,
    OpenArgs,
    Opened,
    PasteArgs,
    PathArgs,
    PinChatArgs,
    PingArgs,
    Pong,
    Problem,
    ProjectFiles,
    ProviderSettings,
    RenameChatArgs,
    Reply,
    ReviewActArgs,
    ReviewReply,
    Said,
    SaveDraftArgs,
    SearchChatsArgs,
    SendArgs,
    SetModelArgs,
    SetReadonlyArgs,
    SetReasoningEffortArgs,
    Settings,
    StatusesArgs,
    TitleSettings,
    Updated,
)
from bb7.host.protocol.events import (
    DiffError,
    Models,
    Notify,
    Ready,
    RequestStarted,
    SendDone,
    StatusChanged,
    StatusItem,
    Streamed,
)

# Bumped whenever a message changes incompatibly; Lua (`lua/bb7/vocab.lua`, generated) holds
# the same number and refuses a host that speaks another one (a stale venv or checkout).
PROTOCOL = 2

__all__ = [
    "PROTOCOL",
    "AddArgs",
    "ApplyArgs",
    "BufferText",
    "BuffersArgs",
    "CancelArgs",
    "ChatIdArgs",
    "ChatRestored",
    "ChatSearchHit",
    "ChatSummary",
    "ChatView",
    "ChatViewArgs",
    "DiffError",
    "DiffView",
    "EchoEventsArgs",
    "FileArgs",
    "FileListArgs",
    "InitArgs",
    "MergeReply",
    "MessageArgs",
    "Models",
    "MoveChatArgs",
    "NewChatArgs",
    "NoArgs",
    "Notify",
    "OpenArgs",
    "Opened",
    "PasteArgs",
    "PathArgs",
    "PinChatArgs",
    "PingArgs",
    "Pong",
    "Problem",
    "ProjectFiles",
    "ProviderSettings",
    "Ready",
    "RenameChatArgs",
    "Reply",
    "RequestStarted",
    "ReviewActArgs",
    "ReviewReply",
    "Said",
    "SaveDraftArgs",
    "SearchChatsArgs",
    "SendArgs",
    "SendDone",
    "SetModelArgs",
    "SetReadonlyArgs",
    "SetReasoningEffortArgs",
    "Settings",
    "StatusChanged",
    "StatusItem",
    "StatusesArgs",
    "Streamed",
    "TitleSettings",
    "Updated",
]
