"""Every part of the chat's next request, in the order it is sent, with its tokens and input
price: what `:BB7Prompt` lists. Built exactly as a send builds the request (`bb7.prompt.turn`),
so the parts add up to what is sent: the history as one part per message (its events and what
it wrote counted with it), each priced as if uncached; the title totals them as the input's bar
does (`bb7.prompt.estimate`: with what the provider's cache should hold). The messages the user
excluded are listed too, in their place, with what they would cost, outside the sum;
`toggle_exclusion` excludes or includes one and says what that saves.
"""

from __future__ import annotations

import msgspec

from bb7.chatview.conversation import event_line, format_cost
from bb7.checks.verdict import run_of, verdict_of
from bb7.prompt import pricing
from bb7.prompt.assemble import PromptPart
from bb7.prompt.config import SendConfig
from bb7.prompt.estimate import estimate_turn
from bb7.prompt.instructions import Instructions
from bb7.prompt.turn import build_turn
from bb7.provider import events as llm
from bb7.provider.models import ModelInfo, Pricing
from bb7.refusal import Problem
from bb7.state.exclusions import toggle_excluded
from bb7.state.records import EventPart, Message
from bb7.state.store import Store
from bb7.text.tokens import format_tokens

_LABELS = {
    "system_prompt": "system prompt",
    "instructions": "instruction files",
    "tool_prompt": "how to edit",
    "tools": "tool schemas",
    "history": "file events",
    "latest": "your message and the file list",
    "retry": "retry context (the failed edits)",
}


# How a history part names its message, by role.
_WHO = {"user": "you", "assistant": "answer", "system": "note", "check": "checks"}
LABEL_WIDTH = 44
EXCLUDED = "(excluded) "


class Part(msgspec.Struct, frozen=True):
    """One part: `path` for a file's block or diff (the file it shows; `start_line` and
    `end_line` for a section); `message` for the history part of a stored message;
    `excluded`: a message left out (listed to take it back, not in the sum); `line` as listed."""

    kind: str
    tokens: int
    cost: float | None
    line: str
    path: str = ""
    start_line: int = 0
    end_line: int = 0
    message: int = 0
    excluded: bool = False


class NextRequest(msgspec.Struct, frozen=True):
    parts: list[Part]
    tokens: int
    cost: float | None
    title: str


def next_request(
    store: Store,
    chat_id: str,
    config: SendConfig,
    model: ModelInfo | None,
    instructions: Instructions,
    text: str = "",
) -> NextRequest:
    """The parts of the request that sending `text` in `chat_id` now would make, with the
    excluded messages in their place."""
    turn = build_turn(store, chat_id, text, config, model=model, instructions=instructions)
    known = pricing.prices(model)
    messages = {m.id: m for m in store.messages(chat_id)}
    parts = [_part(part, known, messages) for part in turn.prompt.parts]
    if any(m.excluded for m in messages.values()):
        every = build_turn(
            store,
            chat_id,
            text,
            config,
            model=model,
            instructions=instructions,
            keep_excluded=True,
        )
        left_out = [
            _part(part, known, messages, excluded=True)
            for part in every.prompt.parts
            if part.message in messages and messages[part.message].excluded
        ]
        parts = _in_place(parts, left_out, messages)
    total = turn.prompt.total_tokens
    # Counted as the input's bar counts it: what the provider's cache is expected to hold.
    estimate = estimate_turn(store, chat_id, config, model, instructions, turn)
    cost = estimate.cost
    title = f"next request · {estimate.text}"
    saved = sum(part.tokens for part in parts if part.excluded)
    if saved:
        title += f" · {format_tokens(saved)} tok excluded"
    return NextRequest(parts=parts, tokens=total, cost=cost, title=title)


def toggle_exclusion(
    store: Store,
    chat_id: str,
    message_id: int,
    config: SendConfig,
    model: ModelInfo | None,
    instructions: Instructions,
) -> str | Problem:
    """Exclude a message from future requests (a user message with its answer), or include
    it again; returns the line that says so and what it changes in the next request."""

    def tokens() -> int:
        turn = build_turn(store, chat_id, "", config, model=model, instructions=instructions)
        return turn.prompt.total_tokens

    before = tokens()
    toggled = toggle_excluded(store, chat_id, message_id)
    if isinstance(toggled, Problem):
        return toggled
    # The change of the whole next request, not the message's own size: an answer that wrote
    # files, excluded, leaves their text to be sent as context files instead.
    change = tokens() - before
    if toggled.summary:
        count = len(toggled.message_ids) - 1
        what = (
            f"{count} messages sent again instead of their summary"
            if toggled.excluded
            else (f"the summary sent again instead of its {count} messages")
        )
        return f"{what}: {abs(change):,} tokens {'more' if change > 0 else 'less'}"
    what = "excluded from" if toggled.excluded else "included again in"
    which = ", with its answer" if len(toggled.message_ids) > 1 else ""
    return (
        f"{what} future requests{which}: {abs(change):,} tokens {'more' if change > 0 else 'less'}"
    )


def _in_place(parts: list[Part], left_out: list[Part], messages: dict[int, Message]) -> list[Part]:
    """`parts` with each excluded message's part where it would be: after the part of the
    message before it, else before the part of the message after it, else before the latest
    message."""
    out = list(parts)
    for part in left_out:
        seq = messages[part.message].seq

        def at(p: Part) -> int:
            return messages[p.message].seq if p.message in messages else 0

        before = [i for i, p in enumerate(out) if p.message and at(p) < seq]
        after = [i for i, p in enumerate(out) if p.message and at(p) > seq]
        if before:
            index = before[-1] + 1
        elif after:
            index = after[0]
        else:
            index = next((i for i, p in enumerate(out) if p.kind == "latest"), len(out))
        out.insert(index, part)
    return out


def _part(
    part: PromptPart,
    known: Pricing | None,
    messages: dict[int, Message],
    *,
    excluded: bool = False,
) -> Part:
    if part.message in messages:
        label = _message_label(messages[part.message])
    elif part.path:
        lines = f":{part.start_line}-{part.end_line}" if part.start_line else ""
        label = f"{part.name} {part.path}{lines}"
    else:
        label = _LABELS.get(part.name, part.name)
    if excluded:
        label = EXCLUDED + label
    if len(label) > LABEL_WIDTH:
        label = label[: LABEL_WIDTH - 1] + "…"
    cost = _cost(part.tokens, known)
    price = "" if cost is None else f"  ~{format_cost(cost)}"
    line = f"{label:<{LABEL_WIDTH}} {format_tokens(part.tokens):>6} tok{price}"
    return Part(
        kind=part.name,
        tokens=part.tokens,
        cost=cost,
        line=line,
        path=part.path or "",
        start_line=part.start_line or 0,
        end_line=part.end_line or 0,
        message=part.message,
        excluded=excluded,
    )


def _message_label(message: Message) -> str:
    """`you: <first line>`, `answer: …` (an answer without text: its first file event)."""
    first = next((line.strip() for line in message.text().splitlines() if line.strip()), "")
    run = run_of(message)
    if run is not None:
        first = verdict_of(run.outcomes).label()
    if not first:
        events = [event_line(p.event) for p in message.parts if isinstance(p, EventPart)]
        first = events[0] if events else ""
    return f"{_WHO.get(message.role, message.role)}: {first}"


def _cost(tokens: int, known: Pricing | None) -> float | None:
    return None if known is None else pricing.cost(llm.Usage(prompt_tokens=tokens), known)
