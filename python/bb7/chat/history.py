"""A chat's stored messages as the prompt's history: the one mapping from state records to the
LLM prompt's entries (`bb7.llm.prompt.HistoryMessage` / `HistoryEvent`).

What the model reads: user, assistant and system texts in order, and file events with the
prompt's action names. Left out: reasoning (models re-derive it, and resending it only costs
tokens) and fork warnings (they concern the user's copy of a file, and the restored snapshot the
model sees is already consistent).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from bb7.llm.prompt import HistoryEntry, HistoryEvent, HistoryMessage
from bb7.llm.prompt_format import EventAction
from bb7.state.records import Event, EventPart, Message

# State event actions with the same meaning in the prompt's vocabulary.
_SAME: dict[str, EventAction] = {
    "user_added": "user_added",
    "user_removed": "user_removed",
    "user_updated": "user_updated",
    "user_applied": "user_applied",
    "user_partially_applied": "user_partially_applied",
    "user_discarded": "user_discarded",
    "user_rejected_hunk": "user_rejected_hunk",
    "user_undid_apply": "user_undid_apply",
    "assistant_wrote": "assistant_wrote",
}
# Message roles the model reads as messages (`event` messages carry only events).
_ROLES: dict[str, Literal["user", "assistant", "system"]] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
}


def history_event(event: Event) -> HistoryEvent | None:
    """The prompt's form of a stored file event; None for events the model does not see."""
    action: EventAction | None
    if event.action == "user_set_readonly":
        # One state action with a flag; two actions in the prompt.
        action = "user_set_readonly" if event.readonly else "user_set_writable"
    else:
        action = _SAME.get(event.action)
    if action is None:
        return None
    return HistoryEvent(
        action=action,
        path=event.path,
        file_id=event.file_id or None,
        prev_file_id=event.prev_file_id or None,
        start_line=event.start_line or None,
        end_line=event.end_line or None,
    )


def history(messages: Iterable[Message]) -> list[HistoryEntry]:
    """Every message's text and events, in order (an `event` message is only its events)."""
    entries: list[HistoryEntry] = []
    for message in messages:
        role = _ROLES.get(message.role)
        text = message.text()
        if role is not None and text.strip():
            entries.append(HistoryMessage(role=role, text=text))
        for part in message.parts:
            if isinstance(part, EventPart):
                event = history_event(part.event)
                if event is not None:
                    entries.append(event)
    return entries
