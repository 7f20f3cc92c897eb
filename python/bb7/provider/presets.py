"""Provider presets: the one table of the OpenAI-compatible services bb7 knows by name.

A preset fills in what a user would otherwise look up: the base URL, where the API key lives
(and whether one is needed at all), how reasoning effort is sent, whether the server takes
`stream_options`, and how patient to be (a model on this machine can take minutes to read a long
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


class Preset(msgspec.Struct, frozen=True):
    """One provider. `key_env`: the variable the key is read from when no `api_key` spec is
    set; None: send no key. `key_required`: False for servers that take a key only when started
    with one (vLLM's --api-key): the variable is used when set. `local`: a server on this
    machine (longer time limits, no key). `check`: for a local server, what to look at when it
    fails (its log, its memory), ending a one-line error."""

    name: str
    title: str
    base_url: str
    key_env: str | None = None
    key_required: bool = True
    reasoning: ReasoningStyle = "openai"
    include_usage: bool = True
    local: bool = False
    check: str = ""


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
        Preset("openai", "OpenAI", "https://api.openai.com/v1", "OPENAI_API_KEY"),
        # Anthropic's OpenAI SDK compatibility layer: it ignores `reasoning_effort` and takes
        # extended thinking as `thinking: {type, budget_tokens}`.
        Preset(
            "anthropic",
            "Anthropic (OpenAI-compatible endpoint)",
            "https://api.anthropic.com/v1",
            "ANTHROPIC_API_KEY",
            reasoning="anthropic",
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
