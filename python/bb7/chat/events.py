"""What a send reports to its caller while it runs: tagged msgspec Structs, ready to forward.

`msgspec.to_builtins(event)` gives a dict with a `type` field (the tag), so the Neovim host can
hand events to Lua unchanged. Order for one send: `Started` (missing only when the send fails
before a request exists, e.g. without an API key), any number of `Notice` /
`Chunk` / `Reasoning` / `ToolProgress` / `BlockStatus` / `Retrying`; after failed edits with
automatic repair on, `Repairing` and a second `Started` (repair=True) with its own deltas; then
exactly one `Done` or `Failed`; then at most one `TitleChanged`.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from bb7.formats.apply import ApplyError
from bb7.formats.file_requests import AskedFile

# What a request's building found for the user to know (`bb7.prompt.turn`), and the send's own.
from bb7.prompt.turn import Notice as Notice

# The client's own notice, forwarded as it is: the provider failed before answering and the
# request goes out again after `delay` seconds (`reason` says why; `attempt` of
# `max_attempts`). A chat view can count the seconds down from `delay`.
from bb7.provider.events import Retrying as Retrying
from bb7.state.records import Usage


class Started(msgspec.Struct, frozen=True, tag="started", tag_field="type"):
    """A request is on its way. `edit_format`: how the model may change files (tools, text
    blocks, or none in a global chat); `diff_mode`: the mode its changes are read in;
    `prompt_tokens`: the prompt's estimated size (within about 15%)."""

    chat_id: str
    user_message_id: int
    model: str
    edit_format: Literal["none", "tools", "text_blocks"]
    diff_mode: str
    prompt_tokens: int
    repair: bool = False


class Chunk(msgspec.Struct, frozen=True, tag="chunk", tag_field="type"):
    """A piece of the answer text."""

    text: str


class Reasoning(msgspec.Struct, frozen=True, tag="reasoning", tag_field="type"):
    """A piece of the model's reasoning."""

    text: str


class ToolProgress(msgspec.Struct, frozen=True, tag="tool_progress", tag_field="type"):
    """A tool call growing: its name, the first path its arguments name (once seen), the
    length of its arguments so far, and the piece that just came (for a caller that reads
    them as they stream: `bb7.formats.preview`; the editor's chat view gets no pieces)."""

    index: int
    name: str
    path: str
    arguments_length: int
    arguments_delta: str = ""


class BlockStatus(msgspec.Struct, frozen=True, tag="block", tag_field="type"):
    """A text edit block closed while streaming (text-block mode). `ok` False: it is
    malformed and `message` says why. Whether it applies is known at `Done`."""

    index: int | None
    path: str
    line: int
    ok: bool
    message: str = ""


class Repairing(msgspec.Struct, frozen=True, tag="repairing", tag_field="type"):
    """The answer's file changes failed; bb7 asks the model once more to fix them."""

    errors: list[ApplyError]


class WrittenFile(msgspec.Struct, frozen=True):
    """A file the answer changed (its status is the front end's to compute, once, with the
    editor's buffers as they are at the end); `choose`: its edits waiting for the user's
    choice of place."""

    path: str
    choose: int = 0


class Done(msgspec.Struct, frozen=True, tag="done", tag_field="type"):
    """The answer arrived. `ok`: its file changes (if any) are stored as pending outputs
    (`files`). Not `ok`: they failed, nothing was stored but the answer's text, `errors` says
    why, and the retry state is saved in the chat (`retry_saved`) for the next send.
    `message_id` is the stored assistant message; `usage` sums every request of the send;
    `repaired`: the automatic repair request produced the changes; `requested`: files the
    answer asks the user for (`why`), shown to the user and never added by bb7."""

    chat_id: str
    ok: bool
    message_id: int
    text: str
    files: list[WrittenFile] = []
    errors: list[ApplyError] = []
    usage: Usage | None = None
    retry_saved: bool = False
    repaired: bool = False
    requested: list[AskedFile] = []
    why: str = ""


FailureKind = Literal[
    "cancelled",  # the user cancelled: partial answer kept (marked aborted), no file changes
    "auth",  # no usable API key, or the provider refused it
    "payment",
    "bad_request",
    "rate_limited",
    "server",
    "connection",
    "timeout",
    "provider",
    "protocol",
    "too_large",  # the answer outgrew what bb7 reads: the stream was stopped
    "stale_base",  # the user applied or discarded a file while the answer was written
    "readonly",
    "context_over",  # the prompt is larger than the model's context window: nothing was sent
    "no_images",  # the prompt has an image the model cannot read: nothing was sent
    "store",  # the database failed: nothing more stored
    "lost",  # another bb7 took the chat over (its editor shows it): nothing more stored
    "internal",  # a bug in bb7; the log has the traceback
]


class Failed(msgspec.Struct, frozen=True, tag="error", tag_field="type"):
    """The send ended without a complete answer. `message` is for the user and never holds
    the API key. The user's message is always kept; a partial answer is kept as an assistant
    message (`message_id`, 0 when nothing had arrived), followed by a system message saying
    what happened. `usage`: what the requests of the send cost and took, when any was made
    (a provider that fails mid-answer may still report its tokens)."""

    chat_id: str
    kind: FailureKind
    message: str
    message_id: int = 0
    status: int | None = None
    usage: Usage | None = None


class TitleChanged(msgspec.Struct, frozen=True, tag="title", tag_field="type"):
    """The chat was named after its first exchange."""

    chat_id: str
    title: str


SendEvent = (
    Started
    | Notice
    | Chunk
    | Reasoning
    | ToolProgress
    | BlockStatus
    | Retrying
    | Repairing
    | Done
    | Failed
    | TitleChanged
)
Outcome = Done | Failed
