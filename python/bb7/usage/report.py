"""The usage lines a person reads, the same in `bb7 usage` and in the chat view."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

from bb7.chatview.conversation import format_cost
from bb7.provider.client import OpenAICompatClient, ProviderConfig
from bb7.provider.failures import HttpProblem
from bb7.provider.keys import KeyProblem, resolve_api_key
from bb7.provider.presets import preset_for
from bb7.text.tokens import format_tokens
from bb7.text.words import plural
from bb7.usage.credit import Credit, credit
from bb7.usage.log import DaySpend

log = logging.getLogger(__name__)


def day_line(spend: DaySpend) -> str:
    """`today: $0.42 in 12 requests (3 chats, 2 projects), 310k tokens in, 260k cached; the
    cache saved $0.71`."""
    if not spend.requests:
        return "today: $0 (no requests yet)"
    where = plural(spend.chats, "chat")
    if spend.projects > 1:
        where += f", {plural(spend.projects, 'project')}"
    line = (
        f"today: {format_cost(spend.cost)} in {plural(spend.requests, 'request')} ({where}), "
        f"{format_tokens(spend.prompt_tokens)} tokens in"
    )
    if spend.cached_tokens:
        line += f", {format_tokens(spend.cached_tokens)} cached"
    if spend.saved > 0:
        line += f"; the cache saved {format_cost(spend.saved)}"
    return line


def log_note(spend: DaySpend) -> str:
    """What was wrong with the usage log, in one line ('' when nothing was)."""
    if spend.problem:
        return spend.problem
    if spend.skipped:
        return f"usage log: {plural(spend.skipped, 'damaged line')} skipped"
    return ""


def credit_line(found: Credit | HttpProblem | str) -> str:
    """The OpenRouter key's credit, or why it is unknown (`found` a reason as text)."""
    if isinstance(found, str):
        return f"OpenRouter credit: unknown ({found})"
    if isinstance(found, HttpProblem):
        return f"OpenRouter credit: unknown ({found.message})"
    if found.limit is None or found.limit_remaining is None:
        line = "OpenRouter credit: the key has no spending limit"
    else:
        reset = f", resets {found.limit_reset}" if found.limit_reset else ""
        line = (
            f"OpenRouter credit: {format_cost(found.limit_remaining)} left of the key's "
            f"{format_cost(found.limit)} limit{reset}"
        )
    if found.usage_daily is not None:
        line += f"; {format_cost(found.usage_daily)} used today (UTC)"
    return line


def read_credit(
    provider: ProviderConfig,
    key_spec: str | None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Credit | HttpProblem | str | None:
    """The key's credit from OpenRouter, a reason why it is unknown, or None for a provider
    that keeps no credit bb7 can read. Blocking (a key command, an HTTP request)."""
    if preset_for(provider.preset, provider.base_url).name != "openrouter":
        return None
    key = resolve_api_key(
        key_spec, provider.base_url, environ=environ, cwd=cwd, preset=provider.preset
    )
    if key is None:
        return "no API key"
    if isinstance(key, KeyProblem):
        return key.message
    client = OpenAICompatClient(provider, key)
    try:
        return credit(client)
    finally:
        client.close()


def summary_line(
    spend: DaySpend, credit: Credit | HttpProblem | str | None, chat_cost: float | None
) -> str:
    """One short line, for the command area of an 80-column editor (a longer one makes Neovim
    wait for Enter): `today $0.75 (12 req, saved $1.10) · chat $0.031 · $12.50 left`. Why the
    credit is unknown goes to the log."""
    day = f"{spend.requests} req"
    if spend.saved > 0:
        day += f", saved {format_cost(spend.saved)}"
    parts = [f"today {format_cost(spend.cost)} ({day})"]
    note = log_note(spend)
    if note:
        log.warning("%s", note)
    if chat_cost is not None:
        parts.append(f"chat {format_cost(chat_cost)}")
    if isinstance(credit, Credit):
        if credit.limit is None or credit.limit_remaining is None:
            parts.append("key without limit")
        else:
            parts.append(f"{format_cost(credit.limit_remaining)} left")
    elif credit is not None:
        log.warning("%s", credit_line(credit))
        parts.append("credit unknown (:BB7Log)")
    return " · ".join(parts)
