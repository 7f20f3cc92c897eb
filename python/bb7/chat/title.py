"""Naming a chat after its first exchange, while it has its default name (`title_model`).

Runs after the send's outcome, on the send's handle (a cancel stops it too); any failure only
goes to the log: a chat without a title keeps its default name. The request and the cleaning
of its answer are `bb7.prompt.titles`'.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bb7.chat import events as ev
from bb7.prompt.titles import clean_title, title_request
from bb7.provider import events as llm
from bb7.provider.client import OpenAICompatClient
from bb7.provider.handle import Handle
from bb7.refusal import Problem
from bb7.state.chats import has_default_name, rename_chat
from bb7.state.store import Store

log = logging.getLogger(__name__)

TIMEOUT = 30.0


def title_chat(
    store: Store,
    chat_id: str,
    model: str | None,
    client: OpenAICompatClient,
    handle: Handle[ev.Outcome],
) -> ev.TitleChanged | None:
    """Ask `model` for a title when the chat has had exactly one exchange and its default
    name; the new name, else None."""
    if not model or handle.cancelled:
        return None
    chat = store.chat(chat_id)
    if chat is None or not has_default_name(chat):
        return None
    users = [m for m in store.messages(chat_id) if m.role == "user"]
    if len(users) != 1:
        return None
    named = _ask(store, chat_id, model, users[0].text(), client, handle._stopping)
    if isinstance(named, Problem):
        log.info("no title for chat %s: %s", chat_id, named.message)
        return None
    return ev.TitleChanged(chat_id, named)


def retitle_chat(
    store: Store, chat_id: str, model: str, client: OpenAICompatClient
) -> str | Problem:
    """Name the chat again after its first message, whatever its name: the new name."""
    users = [m for m in store.messages(chat_id) if m.role == "user"]
    if not users:
        return Problem("no_message", "the chat has no message to name it after yet")
    return _ask(store, chat_id, model, users[0].text(), client, lambda _: None)


def _ask(
    store: Store,
    chat_id: str,
    model: str,
    text: str,
    client: OpenAICompatClient,
    stopping: Callable[[Callable[[], None] | None], None],
) -> str | Problem:
    """Ask `model` for a title for `text` (and the chat's files) and rename the chat."""
    paths = [entry.path for entry in store.entries(chat_id)]
    stream = client.stream(title_request(model, text, paths), lambda _: None)
    stopping(stream.cancel)
    end = stream.wait(TIMEOUT)
    if end is None:
        stream.cancel()
        end = stream.wait()
    stopping(None)
    if not isinstance(end, llm.Done):
        return Problem("no_title", f"no title: {getattr(end, 'message', end)}")
    title = clean_title(end.text)
    if title is None:
        return Problem("no_title", "no title: the answer was empty")
    renamed = rename_chat(store, chat_id, title)
    return renamed if isinstance(renamed, Problem) else renamed.name
