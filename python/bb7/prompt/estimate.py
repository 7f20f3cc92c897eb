"""What the chat's next request will cost, before it is sent: the prompt's size, how much of it
the provider's cache should serve, and the input's price (the input bar shows it).

The next request is built exactly as a send builds it (`bb7.prompt.turn`), from the chat as it is
now. The part expected from the cache is the prefix it shares with the chat's previous request
(rebuilt the same way), while that request is younger than the providers' cache lifetime (five
minutes): Anthropic, OpenAI, DeepSeek and Gemini all serve a repeated prefix from their cache
(those that cache only what is marked, not with `provider.cache` off).
Sizes are estimates (`bb7.text.tokens`), the answer's tokens are not counted: this is "about".
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

import msgspec

from bb7.chatview.conversation import format_cost
from bb7.files.images import data_url_tokens
from bb7.prompt import pricing
from bb7.prompt.assemble import Prompt
from bb7.prompt.config import SendConfig
from bb7.prompt.instructions import Instructions
from bb7.prompt.turn import Turn, build_turn
from bb7.provider import events as llm
from bb7.provider.models import ModelInfo
from bb7.provider.wire import ChatRequest, ContentPart, ImagePart, Part, explicit_cache
from bb7.state.store import Store
from bb7.text.tokens import estimate_tokens, format_tokens

# Seconds a provider keeps a prompt prefix cached after its last use (Anthropic's default; the
# others keep it at least as long).
CACHE_LIFETIME = 5 * 60


class Estimate(msgspec.Struct, frozen=True):
    """The next request's prompt: `tokens` in all, `cached` of them expected from the provider's
    cache, `cost` of the input in USD (None: the model's prices are unknown); `text` as the input
    bar shows it (`~12k tok (9.8k cached) · ~$0.0061`)."""

    tokens: int
    cached: int
    cost: float | None
    text: str


def estimate_next(
    store: Store,
    chat_id: str,
    config: SendConfig,
    model: ModelInfo | None,
    instructions: Instructions,
    *,
    text: str = "",
    now: Callable[[], float] = time.time,
) -> Estimate:
    """The estimate for sending `text` (the draft, or nothing yet) in `chat_id` now."""
    turn = build_turn(store, chat_id, text, config, model=model, instructions=instructions)
    return estimate_turn(store, chat_id, config, model, instructions, turn, now=now)


def estimate_turn(
    store: Store,
    chat_id: str,
    config: SendConfig,
    model: ModelInfo | None,
    instructions: Instructions,
    turn: Turn,
    *,
    now: Callable[[], float] = time.time,
) -> Estimate:
    """The estimate of `turn`, the next request of `chat_id` (built by the caller)."""
    tokens = turn.prompt.total_tokens
    cached = 0
    users = [m for m in store.messages(chat_id) if m.role == "user"]
    # A provider that caches only what is marked caches nothing when the marks are off.
    caching = config.cache or not explicit_cache(config.provider, config.model)
    if caching and users and now() - users[-1].created < CACHE_LIFETIME:
        last = users[-1]
        before = build_turn(
            store,
            chat_id,
            last.text(),
            config,
            before_seq=last.seq,
            model=model,
            instructions=instructions,
        )
        cached = min(tokens, _shared_tokens(before.request, turn.request, turn.prompt))
    known = pricing.prices(model)
    cost = None
    if known is not None:
        cost = pricing.cost(llm.Usage(prompt_tokens=tokens, cached_tokens=cached), known)
    shown = f"~{format_tokens(tokens)} tok"
    if cached:
        shown += f" ({format_tokens(cached)} cached)"
    if cost is not None:
        shown += f" · ~{format_cost(cost)}"
    if turn.too_large is not None and model is not None and model.context_length:
        shown += f" · over the model's {format_tokens(model.context_length)} context"
    return Estimate(tokens=tokens, cached=cached, cost=cost, text=shown)


def _shared_tokens(before: ChatRequest, after: ChatRequest, prompt: Prompt) -> int:
    """Tokens of the prefix two requests share: the tools (sent first, and the same while the
    mode is), then the messages in order, an image by its own count (not its few characters
    here)."""
    old, _ = _flat(before)
    new, images = _flat(after)
    shared = shared_prefix(old, new)
    if not shared:
        return 0
    tools = sum(p.tokens for p in prompt.parts if p.name == "tools")
    text = estimate_tokens(new[:shared])
    for start, end, image in images:
        if end <= shared:
            tokens = data_url_tokens(f"data:{image.media_type};base64,{image.data}")
            text += tokens - estimate_tokens(new[start:end])
    return tools + text


def shared_prefix(a: str, b: str) -> int:
    """How many leading characters `a` and `b` have in common (compared a block at a time)."""
    n = min(len(a), len(b))
    start = 0
    while start < n and a[start : start + 4096] == b[start : start + 4096]:
        start += 4096
    end = min(start + 4096, n)
    while start < end and a[start] == b[start]:
        start += 1
    return min(start, n)


def _part_text(part: Part) -> str:
    """A part as the shared-prefix comparison sees it: an image by its bytes' digest."""
    if isinstance(part, ContentPart):
        return part.text
    if isinstance(part, ImagePart):
        return f"\x01{hashlib.sha256(part.data.encode()).hexdigest()}\x01"
    return msgspec.json.encode(part).decode()


def _flat(request: ChatRequest) -> tuple[str, list[tuple[int, int, ImagePart]]]:
    """The messages as one text, each opened by its role (a role that changes ends the match),
    and where each image stands in it (start, end)."""
    out: list[str] = []
    images: list[tuple[int, int, ImagePart]] = []
    size = 0
    for message in request.messages:
        head = f"\x00{message.role}\x00"
        out.append(head)
        size += len(head)
        parts = (
            [ContentPart(message.content)] if isinstance(message.content, str) else message.content
        )
        for part in parts:
            text = _part_text(part)
            if isinstance(part, ImagePart):
                images.append((size, size + len(text), part))
            out.append(text)
            size += len(text)
    return "".join(out), images
