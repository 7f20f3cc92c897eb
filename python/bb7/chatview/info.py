"""What `K` in the chat view shows, in a small float: on a message (`message_info`), when it
was sent, the model that answered and the reasoning effort it was asked for, tokens in and
out, cost, duration (on a user message, its answer's); on the chat's first line
(`chat_info`), the chat itself: its name, project, files, model and totals."""

from __future__ import annotations

import time

from bb7.chatview.conversation import usage_line
from bb7.refusal import Problem
from bb7.state.records import Message
from bb7.text.words import plural


def message_info(messages: list[Message], message_id: int) -> list[str] | Problem:
    """The lines `K` shows for message `message_id` of `messages` (a chat's, in order)."""
    index = next((i for i, m in enumerate(messages) if m.id == message_id), None)
    if index is None:
        return Problem("no_message", "that message is no longer in the chat")
    message = messages[index]
    sent = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(message.created))
    if message.role != "user":
        return [f"answer of {sent}", *_answer(message)]
    answer = None
    for later in messages[index + 1 :]:
        if later.role == "user":
            break
        if later.role == "assistant":
            answer = later
    lines = [f"your message of {sent}"]
    return lines + (_answer(answer) if answer is not None else ["no answer"])


def _answer(message: Message) -> list[str]:
    usage = message.usage
    effort = usage.reasoning_effort if usage is not None else ""
    model = message.model or "model unknown"
    counted = usage_line(usage).removeprefix("↳ ") if usage is not None else ""
    return [f"{model} · effort {effort or 'the model default'}", counted or "no token counts"]


def chat_info(
    name: str,
    chat_id: str,
    project: str,
    created: float,
    files: int,
    model: str,
    effort: str,
    totals: str,
) -> list[str]:
    """The lines `K` shows on the conversation's first line."""
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(created))
    return [
        f"{name} (chat {chat_id[:10]}), started {started}",
        f"project: {project}",
        f"{plural(files, 'file')} in its context",
        f"{model} · effort {effort or 'the model default'}",
        f"so far: {totals or 'nothing spent'}",
    ]
