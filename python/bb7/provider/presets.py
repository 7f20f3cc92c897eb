"""Provider presets: the one table of the services bb7 knows by name.

A preset fills in what a user would otherwise look up: the wire protocol (`api`: OpenAI's Chat
Completions, or Anthropic's Messages), the base URL, where the API key lives (and whether one is
needed at all), how reasoning effort is sent, whether the server takes `stream_options`, whether
its models take images, what its models cost when its models list does not say (`PRICES`), and
how patient to be (a model on this machine can take minutes to read a long
prompt before its first byte). `provider = 'ollama'` in `setup()` and `bb7 chat --provider
ollama` name one; without a name, the preset whose host matches the base URL applies (so a
plain `base_url` keeps its key handling), else OpenRouter's. Lua validates the names against
`M.presets` in lua/bb7/config.lua, which a test keeps equal to `PRESETS`.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

import msgspec

# How a request asks for reasoning effort: OpenRouter's `reasoning: {effort}`, OpenAI's
# `reasoning_effort`, Anthropic's `thinking` budget, or not at all (the server would refuse it
# or ignore it).
ReasoningStyle = Literal["openrouter", "openai", "anthropic", "none"]
# The wire protocol: OpenAI's Chat Completions (POST chat/completions), the one most servers
# speak, or Anthropic's Messages (POST messages), its own.
Api = Literal["openai", "anthropic"]
APIS: tuple[Api, ...] = ("openai", "anthropic")


class Preset(msgspec.Struct, frozen=True):
    """One provider. `key_env`: the variable the key is read from when no `api_key` spec is
    set; None: send no key. `key_required`: False for servers that take a key only when started
    with one (vLLM's --api-key): the variable is used when set. `local`: a server on this
    machine (longer time limits, no key). `check`: for a local server, what to look at when it
    fails (its log, its memory), ending a one-line error. `cache_key`: the server takes
    `prompt_cache_key` (bb7 sends the chat's id). `images`: whether its models take
    images when its models list does not say (None: unknown, so an image is sent and the
    provider judges)."""

    name: str
    title: str
    base_url: str
    key_env: str | None = None
    api: Api = "openai"
    key_required: bool = True
    reasoning: ReasoningStyle = "openai"
    include_usage: bool = True
    local: bool = False
    check: str = ""
    images: bool | None = None
    # Takes `prompt_cache_key` (OpenAI): a chat's requests then meet the same cache.
    cache_key: bool = False


DEFAULT_PRESET = "openrouter"

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "openrouter",
            "OpenRouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            reasoning="openrouter",
        ),
        Preset("openai", "OpenAI", "https://api.openai.com/v1", "OPENAI_API_KEY", cache_key=True),
        # Anthropic's own Messages API: native cache breakpoints, thinking blocks, its error
        # kinds. `api = 'openai'` reaches its OpenAI SDK compatibility layer instead, which
        # ignores `cache_control` and `reasoning_effort` and takes `thinking` as a budget.
        Preset(
            "anthropic",
            "Anthropic",
            "https://api.anthropic.com/v1",
            "ANTHROPIC_API_KEY",
            api="anthropic",
            reasoning="anthropic",
            images=True,
        ),
        Preset(
            "ollama",
            "Ollama",
            "http://localhost:11434/v1",
            local=True,
            check="check the log of `ollama serve` (or `journalctl -u ollama`) and that the "
            "model fits in memory",
        ),
        Preset(
            "llamacpp",
            "llama.cpp server",
            "http://localhost:8080/v1",
            reasoning="none",
            local=True,
            check="check llama-server's output and that the model fits in memory",
        ),
        Preset(
            "lmstudio",
            "LM Studio",
            "http://localhost:1234/v1",
            local=True,
            check="check LM Studio's server log (Developer tab) and that the model is loaded",
        ),
        Preset(
            "vllm",
            "vLLM",
            "http://localhost:8000/v1",
            "VLLM_API_KEY",
            key_required=False,
            local=True,
            check="check the vLLM server's log and its GPU memory",
        ),
        Preset("groq", "Groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
        # deepseek-reasoner always reasons and takes no effort setting.
        Preset(
            "deepseek",
            "DeepSeek",
            "https://api.deepseek.com/v1",
            "DEEPSEEK_API_KEY",
            reasoning="none",
        ),
        # Mistral refuses fields it does not know (`stream_options`) and sends usage anyway;
        # Magistral models reason without being asked.
        Preset(
            "mistral",
            "Mistral",
            "https://api.mistral.ai/v1",
            "MISTRAL_API_KEY",
            reasoning="none",
            include_usage=False,
        ),
        Preset("xai", "xAI", "https://api.x.ai/v1", "XAI_API_KEY"),
        Preset(
            "gemini",
            "Google Gemini (OpenAI-compatible endpoint)",
            "https://generativelanguage.googleapis.com/v1beta/openai",
            "GEMINI_API_KEY",
        ),
        Preset("together", "Together AI", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
        Preset(
            "fireworks",
            "Fireworks AI",
            "https://api.fireworks.ai/inference/v1",
            "FIREWORKS_API_KEY",
        ),
    )
}

# What models cost where the models list does not say, in USD per million tokens: (model id
# prefix, input, cache write, cache read, output), the first prefix that matches wins.
# Anthropic's list names no prices; these are its published ones (a cache write is the
# 5-minute kind bb7 asks for: 1.25 times an input token; a cache read a tenth of one).
PRICES: dict[str, tuple[tuple[str, float, float, float, float], ...]] = {
    "anthropic": (
        ("claude-opus-4-0", 15, 18.75, 1.5, 75),
        ("claude-opus-4-1", 15, 18.75, 1.5, 75),
        ("claude-opus-4-2025", 15, 18.75, 1.5, 75),  # Opus 4's dated id
        ("claude-opus-4", 5, 6.25, 0.5, 25),  # Opus 4.5 and later
        ("claude-sonnet-4", 3, 3.75, 0.3, 15),
        ("claude-3-7-sonnet", 3, 3.75, 0.3, 15),
        ("claude-3-5-sonnet", 3, 3.75, 0.3, 15),
        ("claude-haiku-4", 1, 1.25, 0.1, 5),
        ("claude-3-5-haiku", 0.8, 1, 0.08, 4),
        ("claude-3-haiku", 0.25, 0.3, 0.03, 1.25),
        ("claude-3-opus", 15, 18.75, 1.5, 75),
    ),
}


def listed_price(preset: Preset, model: str) -> tuple[float, float, float, float] | None:
    """(input, cache write, cache read, output) in USD per token for `model` from `PRICES`,
    or None when the table does not know it."""
    for prefix, *per_million in PRICES.get(preset.name, ()):
        if model.startswith(prefix):
            fresh, write, read, output = (price / 1_000_000 for price in per_million)
            return fresh, write, read, output
    return None


# A server no preset names: keys only from an explicit spec, OpenAI's dialect.
CUSTOM = Preset(
    "custom",
    "OpenAI-compatible server",
    "",
    key_required=False,
    check="check the server's log and that the model fits in memory",
)


def preset_named(name: str) -> Preset | None:
    return PRESETS.get(name.strip().lower())


def unknown_preset(name: str) -> str:
    """The one-line error for a name that is not in the table."""
    return f"unknown provider preset {name!r}; one of: {', '.join(PRESETS)}"


def preset_for(name: str | None, base_url: str | None) -> Preset:
    """The preset in force: the named one, else the one whose host the base URL is on (for a
    server on this machine, the local preset on that port: localhost:11434 is Ollama), else a
    local or custom server for an unknown URL, else OpenRouter. A bad name is the caller's to
    refuse first (`preset_named`); here it falls back like no name."""
    if name:
        named = preset_named(name)
        if named is not None:
            return named
    if not base_url:
        return PRESETS[DEFAULT_PRESET]
    host = _host(base_url)
    for preset in PRESETS.values():
        known = _host(preset.base_url)
        if not preset.local and (host == known or host.endswith("." + known)):
            return preset
    if is_local(base_url):
        port = _port(base_url)
        for preset in PRESETS.values():
            if preset.local and port is not None and port == _port(preset.base_url):
                return preset
        return msgspec.structs.replace(CUSTOM, local=True)
    return CUSTOM


def is_local(base_url: str) -> bool:
    """True for servers on this machine (Ollama, llama.cpp, LM Studio, vLLM on localhost)."""
    host = _host(base_url)
    return host in ("localhost", "::1") or host.startswith("127.") or host.endswith(".localhost")


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def _port(url: str) -> int | None:
    try:
        return urlsplit(url).port
    except ValueError:
        return None
