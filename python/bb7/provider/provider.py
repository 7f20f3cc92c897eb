"""From the user's provider settings to the client's `ProviderConfig`: preset, API, base URL,
limits.

`setup({ provider = ... })` (through the host) and the `bb7 chat` flags both build their
configuration here, so they cannot disagree on a default. Defaults: an answer may take 15
minutes in all (20 on a server on this machine), 3 minutes without progress (5 locally: a CPU
reading a long prompt sends nothing meanwhile), and is retried 3 times before its first output.
A server on this machine is retried once, and not after the idle limit: it would be as slow
again, so a dead one ends a send within one idle limit, not after four.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from bb7.provider.config import ProviderConfig, RetryPolicy, Timeouts
from bb7.provider.presets import APIS, preset_for, preset_named, unknown_preset

DEFAULT_TIMEOUT = 900.0
LOCAL_TIMEOUT = 1200.0
DEFAULT_IDLE = 180.0
LOCAL_IDLE = 300.0
DEFAULT_RETRIES = 3
LOCAL_RETRIES = 1


def _is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def provider_config(
    preset: str | None = None,
    base_url: str | None = None,
    *,
    timeout: float | None = None,
    idle_timeout: float | None = None,
    retries: int | None = None,
    api: str | None = None,
) -> ProviderConfig | str:
    """The client configuration, or a one-line reason why the settings are unusable.

    `preset`: a name of `PRESETS` (None: the one `base_url` is on, else OpenRouter);
    `base_url`: overrides the preset's; `timeout`: seconds for a whole answer, retries
    included; `idle_timeout`: seconds without text, reasoning or tool-call progress;
    `retries`: attempts after the first when the provider fails before answering; `api`: the
    wire protocol, 'openai' or 'anthropic' (None: the preset's).
    """
    if preset and preset_named(preset) is None:
        return unknown_preset(preset)
    if api is not None and api not in APIS:
        return f"provider api should be one of {', '.join(map(repr, APIS))}, got {api!r}"
    for name, value in (("timeout", timeout), ("idle_timeout", idle_timeout)):
        if value is not None and not value > 0:
            return f"provider {name} should be a number of seconds > 0, got {value:g}"
    if base_url is not None and not _is_http_url(base_url):
        return f"provider base_url should be an http:// or https:// URL, got {base_url!r}"
    if retries is not None and retries < 0:
        return f"provider retries should be a whole number >= 0, got {retries}"
    found = preset_for(preset, base_url)
    total = timeout or (LOCAL_TIMEOUT if found.local else DEFAULT_TIMEOUT)
    idle = idle_timeout or (LOCAL_IDLE if found.local else DEFAULT_IDLE)
    return ProviderConfig(
        base_url=base_url or found.base_url,
        preset=found.name if preset else None,
        api=api,
        # A silent socket is one more way of making no progress: one limit for both.
        timeouts=Timeouts(read=idle, idle=idle, total=total),
        retry=RetryPolicy(
            max_attempts=1 + (retries if retries is not None else _retries(found.local)),
            retry_idle=not found.local,
        ),
    )


def _retries(local: bool) -> int:
    return LOCAL_RETRIES if local else DEFAULT_RETRIES


def privacy_preferences(
    data_collection: str | None = None, zdr: bool | None = None
) -> dict[str, object] | None:
    """OpenRouter's `provider` routing object for the `provider.privacy` settings: `{"data_
    collection": "deny"}` keeps prompts from providers that store or train on them, `{"zdr":
    true}` sends them only to zero-data-retention endpoints; None when neither is asked."""
    preferences: dict[str, object] = {}
    if data_collection in ("allow", "deny"):
        preferences["data_collection"] = data_collection
    if zdr is not None:
        preferences["zdr"] = zdr
    return preferences or None
