"""Core records -> wire Structs, at the handler edge.

The send loop (`bb7.chat.events`), the formats layer (`ApplyError`) and the models list
(`bb7.provider.models`) keep their own records; what Lua sees is the wire Struct of the same name in
`bb7.host.protocol.events`, filled field by field from the record's attributes. A field added
to a core record stays in Python until its wire Struct names it too.

Importing this module imports the send loop's records (and the formats): handlers that send
import it, the host's start does not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from bb7.chat import events as ev
from bb7.formats.apply import ApplyError, describe_error
from bb7.host.protocol import events as wire
from bb7.provider.models import ModelInfo
from bb7.text.tokens import format_tokens

# Said after a send refused for its API key: the editor's way on without one.
NO_KEY_HINT = " Meanwhile :BB7Paste applies an answer pasted from any web chat, without a key."

STREAMED: dict[type[ev.SendEvent], type[wire.SendEvent]] = {
    ev.Chunk: wire.Chunk,
    ev.Reasoning: wire.Reasoning,
    ev.ToolProgress: wire.ToolProgress,
    ev.BlockStatus: wire.BlockStatus,
    ev.Notice: wire.Notice,
    ev.Retrying: wire.Retrying,
    ev.Repairing: wire.Repairing,
    ev.TitleChanged: wire.TitleChanged,
}


def streamed(request_id: str, event: ev.SendEvent) -> tuple[str, wire.Streamed]:
    """A send event other than its start and end, as Lua gets it: its name and payload."""
    kind = STREAMED[type(event)]
    payload = msgspec.convert(event, kind, from_attributes=True)
    return str(kind.__struct_config__.tag), wire.Streamed(request_id, payload)


def request_started(request_id: str, event: ev.Started) -> wire.RequestStarted:
    return wire.RequestStarted(
        request_id, event.chat_id, event.model, event.edit_format, event.repair
    )


def apply_errors(errors: Sequence[ApplyError]) -> list[wire.ApplyError]:
    return msgspec.convert(errors, list[wire.ApplyError], from_attributes=True)


def send_done(
    request_id: str, event: ev.Outcome, editor_path: Callable[[str], str]
) -> wire.SendDone:
    """The end of a send (`User BB7ResponseDone`); `editor_path` names a project file as the
    editor does."""
    usage = (
        None
        if event.usage is None
        else msgspec.convert(event.usage, wire.Usage, from_attributes=True)
    )
    if isinstance(event, ev.Failed):
        message = event.message + (NO_KEY_HINT if event.kind == "auth" else "")
        return wire.SendDone(request_id, ok=False, kind=event.kind, message=message, usage=usage)
    files = [editor_path(f.path) for f in event.files]
    errors = [describe_error(e) for e in event.errors]
    message = (
        ""
        if event.ok
        else "the answer's file changes could not be applied; "
        + "the next message sends the errors so the model can fix them"
    )
    requested = [
        msgspec.structs.replace(
            msgspec.convert(asked, wire.AskedFile, from_attributes=True),
            file=editor_path(asked.path) if asked.available else "",
        )
        for asked in event.requested
    ]
    return wire.SendDone(
        request_id,
        ok=event.ok,
        files=files,
        errors=errors,
        message=message,
        usage=usage,
        requested=requested,
        why=event.why,
    )


def models(listed: Sequence[ModelInfo]) -> list[wire.ModelInfo]:
    return [
        msgspec.structs.replace(
            model,
            context=format_tokens(model.context_length) if model.context_length else "",
        )
        for model in msgspec.convert(listed, list[wire.ModelInfo], from_attributes=True)
    ]
