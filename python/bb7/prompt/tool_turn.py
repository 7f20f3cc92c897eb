"""A tool turn: the request that answers a model's tool calls right after the answer that made
them, as a continuation of that answer's request.

bb7 sends each message as a fresh prompt built from the chat (`turn.build_turn`); the one time it
answers a model's tool calls at once is the repair of an answer whose edits failed
(`auto_repair`). Over Anthropic's Messages API that repair continues the request it repairs: the
answer goes back as the assistant's turn, its thinking blocks first, unchanged and signed as
they came (with thinking on, Anthropic refuses a tool call's turn without them), then its text
and its calls; a user turn follows with one result per call (applied, or failed) and the retry
context, with the versions the successful edits made as diffs. The prompt before them is the one
just sent, so the provider reads it from its cache.

Not for: the repair prompt of the other APIs, built anew (`turn.build_turn`), or the retry
context's wording (`bb7.formats.retry`).
"""

from __future__ import annotations

import msgspec

from bb7.formats.apply import Result
from bb7.prompt.markers import DIFF_CLOSE, DIFF_OPEN, RETRY_CLOSE, RETRY_OPEN
from bb7.provider.events import Done
from bb7.provider.wire import ChatRequest, ContentPart, Message, Part, ToolResultPart, ToolUsePart
from bb7.text.diff import hunks

APPLIED = "Applied; kept in the versions listed below."
FAILED = "Failed: see the errors below, and send this call again, fixed."


def tool_turn(
    request: ChatRequest, answer: Done, result: Result, follow_up: str, retry: str
) -> ChatRequest | None:
    """`request` continued with `answer`'s tool calls and what `result` made of them, then
    `follow_up` (what to do) and the `retry` context. None when a call's arguments are not a
    JSON object: a call cannot go back as anything else, so the caller builds the repair
    prompt anew instead."""
    calls: list[Part] = []
    results: list[Part] = []
    outcome = {call.block: call.ok for call in result.calls}
    for position, call in enumerate(answer.tool_calls, start=1):
        try:
            arguments = msgspec.json.decode(call.arguments or "{}")
        except msgspec.DecodeError:
            return None
        if not isinstance(arguments, dict):
            return None
        calls.append(ToolUsePart(call.id, call.name, call.arguments or "{}"))
        ok = outcome.get(position, False)
        results.append(ToolResultPart(call.id, APPLIED if ok else FAILED, is_error=not ok))
    if not calls:
        return None
    said: list[Part] = [ContentPart(answer.text)] if answer.text.strip() else []
    reply = Message("assistant", [*said, *calls], thinking=answer.thinking)
    text = f"{follow_up}\n\n{RETRY_OPEN}\n{retry.rstrip()}\n{RETRY_CLOSE}\n{_partial(result)}"
    turn = Message("user", [*results, ContentPart(text)])
    return msgspec.structs.replace(request, messages=[*request.messages, reply, turn])


def _partial(result: Result) -> str:
    """The versions the successful edits made, as diffs against what the model was shown."""
    out = []
    for change in result.partial:
        if change.before is None or change.before == change.content:
            continue
        before = result.base_ids.get(change.path, "")
        head = f"{DIFF_OPEN} path={change.path} file_id={change.file_id} prev_file_id={before}"
        out.append(f"{head} by=assistant\n{hunks(change.before, change.content)}{DIFF_CLOSE}\n")
    if not out:
        return ""
    return "\nYour successful changes, applied:\n\n" + "\n".join(out)
