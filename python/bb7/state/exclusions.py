"""Leaving messages out of future requests, and taking them back: how a long chat gets cheaper
without a fork. An excluded message stays in the chat (drawn dimmed, marked `excluded`); the
request builder (`bb7.prompt.history`) leaves it out, with its file events.

Excluding your message excludes its answer too (the messages after it up to your next one): a
question without its answer, or an answer without its question, misleads the model more than
it saves. An answer alone can be excluded; your question then stays. Toggling your message
again includes it and its answer. A file event (`event` message) is not excluded by hand: the
model follows its files through them. A fork or an edit keeps the exclusions of the messages
it keeps (they are copied with the flag).

A summary (`:BB7Compact`, `compacted`) stands in for the messages it covers, which are excluded
with it; toggling the summary sends those messages again instead, and toggling it back the
summary.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from bb7.refusal import Problem
from bb7.state.records import Message, SummaryPart
from bb7.state.store import Store

# Roles that answer a user message (and go with it when it is excluded): the answer, bb7's
# notes on it, and the project's checks run on it.
_ANSWER = ("assistant", "system", "check")


class Toggled(msgspec.Struct, frozen=True):
    """The messages toggled (the one named first) and whether they are now `excluded`."""

    excluded: bool
    message_ids: list[int]
    summary: bool = False  # the message toggled is a summary (its covered ones went the other way)


def summary_places(messages: Sequence[Message], *, excluded: bool = True) -> dict[int, Message]:
    """Each summary by the id of the first message it stands in for: it is shown and sent
    there, where those messages were, not after the turns kept when it was made (`excluded`
    False: only the summaries sent now). One whose messages are gone is in none: it stays where
    it is."""
    present = {m.id for m in messages}
    places: dict[int, Message] = {}
    for message in messages:
        summary = message.summary()
        if summary is None or not summary.covers or (message.excluded and not excluded):
            continue
        first = min(summary.covers)
        if first in present:
            places[first] = message
    return places


def compacted(store: Store, chat_id: str, covers: list[int], text: str, model: str) -> Message:
    """Store `text` as the summary of messages `covers`, which are left out from now on."""
    with store.transaction():
        store.set_excluded(chat_id, covers, True)
        part = SummaryPart(text=text, covers=covers)
        return store.append_message(chat_id, Message(role="summary", parts=[part], model=model))


def toggle_excluded(store: Store, chat_id: str, message_id: int) -> Toggled | Problem:
    """Exclude message `message_id` (a user message with its answer) from future requests,
    or include it again when it is excluded."""
    with store.transaction():
        messages = store.messages(chat_id)
        at = next((i for i, m in enumerate(messages) if m.id == message_id), None)
        if at is None:
            return Problem("no_message", f"chat {chat_id} has no message {message_id}")
        target = messages[at]
        summary = target.summary()
        if summary is not None:
            excluded = not target.excluded
            store.set_excluded(chat_id, [target.id], excluded)
            store.set_excluded(chat_id, summary.covers, not excluded)
            return Toggled(excluded, [target.id, *summary.covers], summary=True)
        if target.role not in ("user", *_ANSWER):
            return Problem(
                "no_message",
                "a file event stays in the requests: the model follows its files through it",
            )
        ids = [target.id]
        if target.role == "user":
            for message in messages[at + 1 :]:
                if message.role == "user":
                    break
                if message.role in _ANSWER:
                    ids.append(message.id)
        excluded = not target.excluded
        store.set_excluded(chat_id, ids, excluded)
        return Toggled(excluded=excluded, message_ids=ids)
