"""OpenRouter's word on the API key's money (`GET /key`): the limit left and today's use.

Asked only on demand (`bb7 usage`, the chat view's usage key), never while an answer streams.
Other providers have no such endpoint: `credit` is not asked for them. Blocking: call it from
a worker thread.
"""

from __future__ import annotations

import msgspec

from bb7.provider.client import OpenAICompatClient
from bb7.provider.failures import HttpProblem


class Credit(msgspec.Struct, frozen=True, kw_only=True):
    """`limit`/`limit_remaining`: USD, None for a key without a limit; `usage_daily`: what the
    key spent today (UTC), as OpenRouter counts it."""

    limit: float | None = None
    limit_remaining: float | None = None
    limit_reset: str | None = None
    usage: float | None = None
    usage_daily: float | None = None
    is_free_tier: bool = False


class _KeyBody(msgspec.Struct):
    data: Credit


def parse_key(body: bytes) -> Credit | HttpProblem:
    try:
        return msgspec.json.decode(body, type=_KeyBody).data
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        return HttpProblem("protocol", f"the key's details are not in the expected format: {exc}")


def credit(client: OpenAICompatClient, *, timeout: float = 10.0) -> Credit | HttpProblem:
    """The key's credit as OpenRouter reports it."""
    body = client.get_json("key", timeout=timeout)
    return parse_key(body) if isinstance(body, bytes) else body
