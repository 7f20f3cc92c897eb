"""Compacting a chat (`:BB7Compact`, `gK`): the model summarizes all but the last turns into one
summary, which the next requests send in their place; the messages stay in the chat, excluded
(`gX` on the summary brings them back).

Picking the messages and the request are `bb7.prompt.compact`'s, storing the summary
`bb7.state.exclusions`'. Runs in the caller's worker thread (it waits for the model).
"""

from __future__ import annotations

from collections.abc import Callable

from bb7.prompt.compact import compact_request, to_compact
from bb7.provider import events as llm
from bb7.provider.client import OpenAICompatClient
from bb7.refusal import Problem
from bb7.state.exclusions import compacted
from bb7.state.store import Store
from bb7.text.words import plural

# A summary of a long chat takes a while; past this it is given up (nothing changes).
TIMEOUT = 180.0


def compact_chat(
    store: Store,
    chat_id: str,
    keep_turns: int,
    model: str,
    client: OpenAICompatClient,
    tokens: Callable[[], int],
) -> str | Problem:
    """Summarize the chat's messages before its last `keep_turns` turns with `model` and store
    the summary in their place; the line that says so, with what the next request saves
    (`tokens` prices it)."""
    chosen = to_compact(store.messages(chat_id), keep_turns)
    if not chosen:
        return Problem(
            "no_message",
            f"nothing to compact: the last {plural(keep_turns, 'turn')} stay as they are",
        )
    stream = client.stream(compact_request(model, chosen), lambda _: None)
    end = stream.wait(TIMEOUT)
    if end is None:
        stream.cancel()
        end = stream.wait()
    if not isinstance(end, llm.Done) or not end.text.strip():
        said = getattr(end, "message", "") or "the model wrote nothing"
        return Problem("no_summary", f"no summary, the chat is unchanged: {said}")
    before = tokens()
    compacted(store, chat_id, [m.id for m in chosen], end.text.strip(), model)
    saved = before - tokens()
    return f"compacted {plural(len(chosen), 'message')} into a summary: {saved:,} tokens less"
