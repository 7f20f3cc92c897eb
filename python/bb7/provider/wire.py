"""The Chat Completions wire format: the request we send and the stream chunks we read.

Request types (`ChatRequest`, `Message`, `ToolSpec`) are what callers build; `request_body`
turns one into JSON for a given provider. Chunk types mirror the streamed JSON loosely (every
field optional, unknown fields ignored) because providers differ in what they fill in.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from bb7.provider.config import ProviderConfig
from bb7.provider.events import ThinkingBlock
from bb7.provider.presets import Api, Preset, preset_for

# "none" asks a model that can reason not to; None (no setting) leaves the model's default.
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high"]

# Anthropic takes a thinking budget in tokens, not an effort; the answer gets room on top.
THINKING_BUDGET: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
ANSWER_ROOM = 8192


class CacheControl(msgspec.Struct, frozen=True):
    """Anthropic-style prompt-cache breakpoint (OpenRouter passes it through)."""

    type: str = "ephemeral"


def api_of(provider: ProviderConfig) -> Api:
    """The wire protocol the client speaks: the setting's, else the preset's."""
    return provider.api or preset_for(provider.preset, provider.base_url).api


def explicit_cache(provider: ProviderConfig, model: str) -> bool:
    """Whether the provider caches only the prompt prefixes a request marks with
    `cache_control`: Anthropic's own API, Anthropic models through OpenRouter or Anthropic's
    OpenAI-compatible endpoint, and Gemini models through OpenRouter, which passes the marks
    on. OpenAI, DeepSeek, xAI and Gemini's own endpoint cache a repeated prefix by
    themselves."""
    preset = preset_for(provider.preset, provider.base_url)
    if api_of(provider) == "anthropic" or preset.name == "anthropic":
        return True
    if preset.name != "openrouter":
        return False
    vendor, _, name = model.strip().lower().partition("/")
    return vendor == "anthropic" or (vendor == "google" and name.startswith("gemini"))


class ContentPart(msgspec.Struct, frozen=True, omit_defaults=True, tag="text", tag_field="type"):
    """A text part of a message; parts let a cache breakpoint sit inside one message."""

    text: str
    cache_control: CacheControl | None = None


class ImagePart(msgspec.Struct, frozen=True, tag="image", tag_field="type"):
    """An image, base64: Chat Completions' `image_url` part with a data URL, Anthropic's
    `image` block."""

    media_type: str
    data: str


class ToolUsePart(msgspec.Struct, frozen=True, tag="tool_use", tag_field="type"):
    """A tool call the model made, in an assistant message that is sent back (a tool turn);
    `arguments` is its JSON text as the model sent it."""

    id: str
    name: str
    arguments: str


class ToolResultPart(msgspec.Struct, frozen=True, tag="tool_result", tag_field="type"):
    """What came of one tool call (`call_id`), in the user message after it."""

    call_id: str
    content: str
    is_error: bool = False


Part = ContentPart | ImagePart | ToolUsePart | ToolResultPart


class Message(msgspec.Struct, frozen=True):
    """One message. An assistant message sent back in a tool turn carries its reasoning as the
    provider signed it (`thinking`, Anthropic's), which goes before its tool calls."""

    role: Literal["system", "user", "assistant"]
    content: str | list[Part]
    thinking: tuple[ThinkingBlock, ...] = ()


class ToolSpec(msgspec.Struct, frozen=True):
    """One tool offered to the model: name, description and JSON Schema of its arguments (the
    formats layer writes the schemas, `bb7.formats.schemas.tools_for_mode`, and decodes the
    calls)."""

    name: str
    description: str
    parameters: dict[str, Any]

    def openai(self) -> dict[str, Any]:
        """The tool in OpenAI Chat Completions shape (`{"type": "function", "function": ...}`)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


class ChatRequest(msgspec.Struct, frozen=True):
    """Everything needed for one completion, independent of the provider's dialect."""

    model: str
    messages: list[Message]
    tools: list[ToolSpec] = []
    reasoning_effort: ReasoningEffort | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    # OpenRouter provider routing preferences, e.g. {"data_collection": "deny", "zdr": True}.
    provider: dict[str, Any] | None = None
    prompt_cache_key: str | None = None
    # Anthropic's API: the model thinks adaptively, at an effort (`ModelInfo.adaptive_thinking`),
    # instead of within a token budget.
    adaptive_thinking: bool = False
    # Merged last into the JSON body, for provider options this module does not model.
    extra: dict[str, Any] = {}


def request_body(
    request: ChatRequest, *, stream: bool, preset: Preset, include_usage: bool = True
) -> bytes:
    """JSON body for POST /chat/completions, in the dialect of `preset`.

    Reasoning effort goes as OpenRouter's `reasoning: {effort}`, OpenAI's `reasoning_effort`,
    Anthropic's `thinking` budget, or not at all (`Preset.reasoning`); only OpenRouter takes
    `provider` preferences. `stream_options.include_usage` asks OpenAI-style servers for usage
    in the last chunk, unless the preset's server refuses the field.
    """
    # The stable fields first, then the messages, then the rest: each turn's body then starts
    # with the body of the turn before, byte for byte, up to its latest message.
    body: dict[str, Any] = {"model": request.model, "stream": stream}
    if request.tools:
        body["tools"] = [tool.openai() for tool in request.tools]
    body["messages"] = [m for message in request.messages for m in _openai(message)]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    effort = request.reasoning_effort
    if effort is not None:
        _reasoning(body, effort, preset)
    if request.provider and preset.reasoning == "openrouter":
        body["provider"] = request.provider
    if request.prompt_cache_key is not None:
        body["prompt_cache_key"] = request.prompt_cache_key
    if stream and include_usage and preset.include_usage:
        body["stream_options"] = {"include_usage": True}
    body.update(request.extra)
    return msgspec.json.encode(body)


def _openai(message: Message) -> list[dict[str, Any]]:
    """A message in Chat Completions' shape: text (and image) parts as they are; tool calls as
    the assistant's `tool_calls`, tool results as `tool` messages before the rest."""
    content = message.content
    if isinstance(content, str):
        return [{"role": message.role, "content": content}]
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, ContentPart):
            parts.append(msgspec.to_builtins(part))
        elif isinstance(part, ImagePart):
            url = f"data:{part.media_type};base64,{part.data}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif isinstance(part, ToolUsePart):
            function = {"name": part.name, "arguments": part.arguments}
            calls.append({"id": part.id, "type": "function", "function": function})
        else:
            results.append({"role": "tool", "tool_call_id": part.call_id, "content": part.content})
    out = list(results)
    if parts or calls:
        text_only = all(p["type"] == "text" and "cache_control" not in p for p in parts)
        said: Any = "".join(p["text"] for p in parts) if text_only and calls else parts
        rendered: dict[str, Any] = {"role": message.role, "content": said or None}
        if calls:
            rendered["tool_calls"] = calls
        out.append(rendered)
    return out


def _reasoning(body: dict[str, Any], effort: ReasoningEffort, preset: Preset) -> None:
    style = preset.reasoning
    if style == "openrouter":
        body["reasoning"] = {"enabled": False} if effort == "none" else {"effort": effort}
    elif style == "openai":
        body["reasoning_effort"] = effort
    elif style == "anthropic" and effort != "none":
        budget = THINKING_BUDGET[effort]
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        body["max_tokens"] = max(body.get("max_tokens", 0), budget + ANSWER_ROOM)


# ---- stream chunks -------------------------------------------------------------------------


class FunctionFragment(msgspec.Struct):
    name: str | None = None
    # A string everywhere we know of; a few local servers send an object, kept as JSON text.
    arguments: str | dict[str, Any] | None = None


class ToolCallFragment(msgspec.Struct):
    index: int | None = None
    id: str | None = None
    function: FunctionFragment | None = None


class ReasoningDetail(msgspec.Struct):
    type: str | None = None
    text: str | None = None
    summary: str | None = None


class ContentPiece(msgspec.Struct):
    """One part of a `content` list (Mistral): `{"type": "text", "text": ...}` is answer text,
    `{"type": "thinking", "thinking": [parts]}` is reasoning."""

    type: str | None = None
    text: str | None = None
    thinking: str | list[ContentPiece] | None = None


class Delta(msgspec.Struct):
    content: str | list[ContentPiece] | None = None
    reasoning: str | None = None
    reasoning_content: str | None = None
    reasoning_details: list[ReasoningDetail] | None = None
    tool_calls: list[ToolCallFragment] | None = None


class Choice(msgspec.Struct):
    index: int = 0
    delta: Delta | None = None
    # Non-streaming replies (and a few servers' last chunk) carry `message` instead of `delta`.
    message: Delta | None = None
    finish_reason: str | None = None


class TokenDetails(msgspec.Struct):
    cached_tokens: int | None = None
    # OpenRouter: prompt tokens written to the provider's cache (Anthropic bills them higher).
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None


class WireUsage(msgspec.Struct):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    cost: float | None = None
    cached_tokens: int | None = None
    # DeepSeek's names for the cached part of the prompt.
    prompt_cache_hit_tokens: int | None = None
    prompt_tokens_details: TokenDetails | None = None
    completion_tokens_details: TokenDetails | None = None


class GroqExtra(msgspec.Struct):
    """Groq's `x_groq` object: it carries the usage when the request did not ask for it."""

    usage: WireUsage | None = None


class Chunk(msgspec.Struct):
    id: str | None = None
    model: str | None = None
    choices: list[Choice] | None = None
    usage: WireUsage | None = None
    x_groq: GroqExtra | None = None
    # Kept raw so a provider's error object can be shown verbatim; empty when absent.
    error: msgspec.Raw = msgspec.Raw()


class ErrorObject(msgspec.Struct):
    """The usual shape of `error` in bodies and chunks: {"message", "code", "type", ...};
    Anthropic's has no code and a `type` that names the kind (`overloaded_error`)."""

    message: str | None = None
    code: int | str | None = None
    type: str | None = None


class ErrorBody(msgspec.Struct):
    """An error body; Anthropic's is `{"type": "error", "error": {"type", "message"}}`."""

    error: ErrorObject | str | None = None
    message: str | None = None
    type: str | None = None


# The fast path: a chunk that matches the types above; `bb7.provider.lenient` handles the rest.
CHUNK_DECODER = msgspec.json.Decoder(Chunk)
ERROR_OBJECT_DECODER = msgspec.json.Decoder(ErrorObject | str)
ERROR_BODY_DECODER = msgspec.json.Decoder(ErrorBody)
