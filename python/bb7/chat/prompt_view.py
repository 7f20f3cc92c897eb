"""Every part of the chat's next request, in the order it is sent, with its tokens and input
price: what `:BB7Prompt` lists. Built exactly as a send builds the request (`bb7.chat.turn`),
so the parts add up to what is sent. Not for the cache estimate (`bb7.chat.estimate`).
"""

from __future__ import annotations

import msgspec

from bb7.chat import pricing
from bb7.chat.config import SendConfig
from bb7.chat.turn import build_turn
from bb7.chatview.conversation import format_cost
from bb7.llm import events as llm
from bb7.llm.instructions import Instructions
from bb7.llm.models import ModelInfo, Pricing
from bb7.llm.prompt import PromptPart
from bb7.state.store import Store
from bb7.text.tokens import format_tokens

_LABELS = {
    "system_prompt": "system prompt",
    "instructions": "instruction files",
    "tool_prompt": "how to edit",
    "tools": "tool schemas",
    "history": "history",
    "latest": "your message and the file list",
    "retry": "retry context (the failed edits)",
}


class Part(msgspec.Struct, frozen=True):
    """One part: `path` for a file's block or diff (the file it shows); `line` as listed."""

    kind: str
    tokens: int
    cost: float | None
    line: str
    path: str = ""


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
    """The parts of the request that sending `text` in `chat_id` now would make."""
    turn = build_turn(store, chat_id, text, config, model=model, instructions=instructions)
    known = pricing.prices(model)
    parts = [_part(part, known) for part in turn.prompt.parts]
    total = turn.prompt.total_tokens
    cost = _cost(total, known)
    title = f"next request · ~{format_tokens(total)} tok" + (
        f" · ~{format_cost(cost)}" if cost is not None else ""
    )
    return NextRequest(parts=parts, tokens=total, cost=cost, title=title)


def _part(part: PromptPart, known: Pricing | None) -> Part:
    label = f"{part.name} {part.path}" if part.path else _LABELS.get(part.name, part.name)
    cost = _cost(part.tokens, known)
    price = "" if cost is None else f"  ~{format_cost(cost)}"
    line = f"{label:<44} {format_tokens(part.tokens):>6} tok{price}"
    return Part(kind=part.name, tokens=part.tokens, cost=cost, line=line, path=part.path or "")


def _cost(tokens: int, known: Pricing | None) -> float | None:
    return None if known is None else pricing.cost(llm.Usage(prompt_tokens=tokens), known)
