"""Provider settings (base URL, timeouts, retries, headers): plain Structs, cheap to import.

Kept apart from `client` (which imports httpx) so that building a `SendConfig` from the
command line or the editor's options costs no HTTP stack until a request is made.
"""

from __future__ import annotations

import msgspec

from bb7.provider.presets import Api

DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"


class Timeouts(msgspec.Struct, frozen=True):
    """Seconds. `read`: the longest silence tolerated on the socket (not a byte). `idle`: the
    longest time without progress (answer text, reasoning, tool-call arguments); keep-alive
    comments, which OpenRouter sends while a model thinks, do not count, so a provider that
    sends only those ends here. `total`: the overall deadline of one answer, retries and their
    waits included."""

    connect: float = 10.0
    read: float = 120.0
    write: float = 30.0
    idle: float = 180.0
    total: float = 900.0


class RetryPolicy(msgspec.Struct, frozen=True):
    """Retries before the first delta: attempt n waits about base * 2**(n-1), at most max_delay,
    half of it random; a Retry-After header replaces that wait unless it exceeds
    max_retry_after, in which case the request fails at once and says when to try again.
    No retry starts once `max_elapsed` seconds have passed since the first attempt began (a
    provider that timed out once is not waited for again and again), nor when its wait would
    pass the overall deadline. `retry_idle` False: an attempt the idle limit ended is not
    retried (a server on this machine that took that long would take as long again)."""

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    max_elapsed: float = 60.0
    retry_idle: bool = True


class ProviderConfig(msgspec.Struct, frozen=True):
    base_url: str = DEFAULT_BASE_URL
    # A name of `bb7.provider.presets.PRESETS` (its dialect and key handling); None: the preset the
    # base URL is on, else a plain OpenAI-compatible server.
    preset: str | None = None
    # The wire protocol ('openai' or 'anthropic'); None: the preset's.
    api: Api | None = None
    timeouts: Timeouts = Timeouts()
    retry: RetryPolicy = RetryPolicy()
    # Extra request headers, e.g. OpenRouter's optional HTTP-Referer / X-Title attribution.
    headers: dict[str, str] = {}
    # Ask for usage in the final chunk (`stream_options.include_usage`); turn off for servers
    # that reject unknown fields.
    include_usage: bool = True
