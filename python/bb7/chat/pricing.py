"""What a send costs: the model's prices, the cost of a request's usage, the usage stored.

A provider that reports the cost (OpenRouter) is believed; otherwise the cost comes from the
models list's prices (`bb7.llm.models.Pricing`, USD per token). Not for: reading the models
list (`bb7.llm.models`) or showing usage (the chat view, `bb7.chatview.conversation`).
"""

from __future__ import annotations

import msgspec

from bb7.llm import events as llm
from bb7.llm.models import ModelInfo, Pricing
from bb7.state.records import Usage


def prices(model: ModelInfo | None) -> Pricing | None:
    """The model's prices, complete: None when its prompt or completion price is unknown; a
    cached prompt token without a price of its own costs a prompt token."""
    if model is None:
        return None
    known = model.pricing
    if known.prompt is None or known.completion is None:
        return None
    if known.cache_read is None:
        return msgspec.structs.replace(known, cache_read=known.prompt)
    return known


def cost(usage: llm.Usage, prices: Pricing) -> float:
    """USD for one request's tokens at complete `prices` (see `prices`)."""
    assert prices.prompt is not None and prices.completion is not None
    assert prices.cache_read is not None
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    return (
        (usage.prompt_tokens - cached) * prices.prompt
        + cached * prices.cache_read
        + usage.completion_tokens * prices.completion
    )


def stored_usage(usage: llm.Usage | None, duration: float, model: ModelInfo | None) -> Usage:
    """A request's usage as stored; the cost from the model's prices when the provider did
    not say."""
    if usage is None:
        return Usage(duration=duration)
    spent = usage.cost
    known = prices(model)
    if spent is None and known is not None:
        spent = cost(usage, known)
    return Usage(
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cached_tokens=usage.cached_tokens,
        cost=spent or 0.0,
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
        cost=total.cost + usage.cost,
        duration=total.duration + usage.duration,
    )
