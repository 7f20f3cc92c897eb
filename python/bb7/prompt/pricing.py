"""What a send costs: the model's prices, the cost of a request's usage, what the provider's
prompt cache saved, the usage stored.

A provider that reports the cost (OpenRouter) is believed; otherwise the cost comes from the
models list's prices (`bb7.provider.models.Pricing`, USD per token: prompt, completion, cache read,
cache write). What the cache saved is the same tokens at full price minus that cost: negative
on a turn that only wrote the cache (Anthropic bills a written token at 1.25 times a prompt
token), positive once it is read. Not for: reading the models list (`bb7.provider.models`) or
showing usage (the chat view, `bb7.chatview.conversation`).
"""

from __future__ import annotations

import msgspec

from bb7.provider import events as llm
from bb7.provider.models import ModelInfo, Pricing
from bb7.state.records import Usage


def prices(model: ModelInfo | None) -> Pricing | None:
    """The model's prices, complete: None when its prompt or completion price is unknown; a
    token read from or written to the cache without a price of its own costs a prompt token."""
    if model is None:
        return None
    known = model.pricing
    if known.prompt is None or known.completion is None:
        return None
    return msgspec.structs.replace(
        known,
        cache_read=known.prompt if known.cache_read is None else known.cache_read,
        cache_write=known.prompt if known.cache_write is None else known.cache_write,
    )


def cost(usage: llm.Usage, prices: Pricing) -> float:
    """USD for one request's tokens at complete `prices` (see `prices`): prompt tokens read
    from the cache at its read price, those written to it at its write price."""
    assert prices.prompt is not None and prices.completion is not None
    assert prices.cache_read is not None and prices.cache_write is not None
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    written = min(usage.cache_write_tokens, usage.prompt_tokens - cached)
    return (
        (usage.prompt_tokens - cached - written) * prices.prompt
        + cached * prices.cache_read
        + written * prices.cache_write
        + usage.completion_tokens * prices.completion
    )


def uncached_cost(usage: llm.Usage, prices: Pricing) -> float:
    """USD for the same tokens without a prompt cache: every prompt token at full price."""
    assert prices.prompt is not None and prices.completion is not None
    return usage.prompt_tokens * prices.prompt + usage.completion_tokens * prices.completion


def stored_usage(
    usage: llm.Usage | None,
    duration: float,
    model: ModelInfo | None,
    *,
    first_token: float | None = None,
) -> Usage:
    """A request's usage as stored: the cost from the model's prices when the provider did
    not say, and what the cache saved when the cache was used and the prices are known."""
    waited = first_token or 0.0
    if usage is None:
        return Usage(duration=duration, first_token=waited)
    spent = usage.cost
    known = prices(model)
    if spent is None and known is not None:
        spent = cost(usage, known)
    saved = 0.0
    if (
        known is not None
        and spent is not None
        and (usage.cached_tokens or usage.cache_write_tokens)
    ):
        saved = uncached_cost(usage, known) - spent
    return Usage(
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cached_tokens=usage.cached_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cost=spent or 0.0,
        saved=saved,
        first_token=waited,
        duration=duration,
    )


def added(total: Usage | None, usage: Usage) -> Usage:
    """The usage of a send's requests so far (`total`) with one more request's."""
    if total is None:
        return usage
    return Usage(
        prompt_tokens=total.prompt_tokens + usage.prompt_tokens,
        completion_tokens=total.completion_tokens + usage.completion_tokens,
        cached_tokens=total.cached_tokens + usage.cached_tokens,
        cache_write_tokens=total.cache_write_tokens + usage.cache_write_tokens,
        cost=total.cost + usage.cost,
        saved=total.saved + usage.saved,
        # The wait the user had: until the first request's first token.
        first_token=total.first_token or usage.first_token,
        duration=total.duration + usage.duration,
    )
