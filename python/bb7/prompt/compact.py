"""Compacting a chat: which messages a summary stands in for, the request that asks the model
for it, and the text the next requests send in their place (`:BB7Compact`, `gK`).

Only builds the request and picks the messages; sending it is `bb7.chat.compact`'s job, and
storing the summary (with the messages it stands in for, excluded) `bb7.state.exclusions`'.
"""

from __future__ import annotations

from collections.abc import Sequence

from bb7.provider.wire import ChatRequest, Message
from bb7.state.records import EventPart
from bb7.state.records import Message as Stored

# The last turns (a user message and what answered it) a compaction keeps as they are.
DEFAULT_KEEP_TURNS = 4
# What the next requests send before the summary, in the history's place of the first message.
SUMMARY_HEADER = "Summary of the earlier conversation (its messages are left out):"

COMPACT_SYSTEM_PROMPT = """\
You compact the start of a coding conversation so that it can go on without it. Write a
summary the assistant will read instead of those messages. Keep, exactly as written:
- every file path named, and what was done or decided about each file;
- every decision taken and why;
- every approach that was tried or proposed and rejected, and why it was rejected;
- open questions and what the user asked for that is not done yet.
Leave out pleasantries and reasoning that led nowhere. Plain text or short lists; no code
unless a line of it was decided on. Reply with the summary only."""


def to_compact(messages: Sequence[Stored], keep_turns: int) -> list[Stored]:
    """The messages a summary would stand in for: those before the last `keep_turns` user
    messages, that are sent now (not excluded), and are messages of the conversation (not
    file events nor an earlier summary, which it folds in through its text)."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if len(users) <= keep_turns:
        return []
    end = users[len(users) - keep_turns] if keep_turns > 0 else len(messages)
    return [
        m
        for m in messages[:end]
        if not m.excluded and m.role in ("user", "assistant", "system", "summary")
    ]


def transcript(messages: Sequence[Stored]) -> str:
    """The messages as the summarizer reads them: each with its role, and the file events."""
    out: list[str] = []
    for message in messages:
        summary = message.summary()
        text = message.text() if summary is None else summary.text
        if text.strip():
            out.append(f"[{message.role}]\n{text.strip()}")
        events = [p.event for p in message.parts if isinstance(p, EventPart)]
        for event in events:
            out.append(f"[file event] {event.action}: {event.path}")
    return "\n\n".join(out) + "\n"


def compact_request(
    model: str, messages: Sequence[Stored], *, max_tokens: int = 2000
) -> ChatRequest:
    """The request that asks `model` to summarize `messages`."""
    return ChatRequest(
        model=model,
        messages=[
            Message("system", COMPACT_SYSTEM_PROMPT),
            Message("user", "The conversation to summarize:\n\n" + transcript(messages)),
        ],
        temperature=0.2,
        max_tokens=max_tokens,
    )
