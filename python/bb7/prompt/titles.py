"""Chat titles: the small request that names a chat after its first exchange, and its cleanup.

Only builds the request and cleans the answer; sending it (with a configurable small model)
is the caller's job, e.g. `client.complete(title_request(...))` in a worker thread.
"""

from __future__ import annotations

from collections.abc import Sequence

from bb7.provider.wire import ChatRequest, Message

MAX_TITLE_CHARS = 60
_EXCERPT_CHARS = 2000

TITLE_SYSTEM_PROMPT = """\
Name the conversation that starts with the user's message below. Reply with the title only:
3 to 6 words, no quotes, no trailing punctuation, in the language of the message."""


def title_request(
    model: str, first_message: str, file_paths: Sequence[str] = (), *, max_tokens: int = 30
) -> ChatRequest:
    """A short non-reasoning request asking `model` for a chat title."""
    text = first_message.strip()[:_EXCERPT_CHARS]
    if file_paths:
        text += "\n\nFiles in the conversation: " + ", ".join(file_paths[:20])
    return ChatRequest(
        model=model,
        messages=[Message("system", TITLE_SYSTEM_PROMPT), Message("user", text)],
        temperature=0.3,
        max_tokens=max_tokens,
    )


def clean_title(answer: str) -> str | None:
    """The title from a model's answer: first line, unquoted, shortened; None if empty."""
    lines = [line.strip() for line in answer.strip().splitlines() if line.strip()]
    if not lines:
        return None
    title = lines[0].removeprefix("Title:").strip().strip("\"'`*").strip().rstrip(".")
    if len(title) > MAX_TITLE_CHARS:
        title = title[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    return title or None
