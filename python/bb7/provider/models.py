"""The provider's models list (`GET /models`) with capabilities, cached on disk for a day.

OpenRouter describes each model fully (context length, pricing, `supported_parameters`, the
input modalities); Anthropic's own API gives sizes and capabilities (images, thinking) but no
prices, which come from the preset's table (`presets.PRICES`); plain OpenAI-compatible servers
(OpenAI, Ollama, LM Studio) list only ids. For a local server
the gaps are asked of its own API (`bb7.provider.capabilities`) before the list is cached. What
stays unknown is None, and callers treat None as "probably yes" for tools (see
`prompt.choose_edit_format`). Fetching blocks: call `load_models` from a worker thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import msgspec

from bb7.files.fsio import atomic_write
from bb7.provider import capabilities
from bb7.provider.client import OpenAICompatClient
from bb7.provider.config import ProviderConfig
from bb7.provider.failures import HttpProblem
from bb7.provider.presets import Preset, listed_price, preset_for

MAX_AGE = 24 * 60 * 60


class Pricing(msgspec.Struct, frozen=True):
    """USD per token; None where the provider did not say (or prices vary, as for routers)."""

    prompt: float | None = None
    completion: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None


class ModelInfo(msgspec.Struct, frozen=True):
    """`capabilities_source`: the local server API that told tool support or the context size
    when the models list did not ("" when it came from the list, or nobody said)."""

    id: str
    name: str = ""
    context_length: int | None = None
    max_completion_tokens: int | None = None
    supports_tools: bool | None = None
    supports_reasoning: bool | None = None
    pricing: Pricing = Pricing()
    capabilities_source: str = ""
    # Whether the model reads images (None: the list does not say; see `takes_images`).
    supports_images: bool | None = None
    # Whether the model thinks as Anthropic's adaptive thinking asks (an effort, no token
    # budget): the only way on the newest Claude models, which refuse a budget, and the one
    # advised where both are taken. None: the list does not say (a budget is sent).
    adaptive_thinking: bool | None = None


class ModelList(msgspec.Struct, frozen=True):
    """Models and where they came from; `warning` is set when a stale cache stood in."""

    models: list[ModelInfo]
    fetched_at: float
    from_cache: bool
    warning: str | None = None

    def find(self, model_id: str) -> ModelInfo | None:
        for model in self.models:
            if model.id == model_id:
                return model
        return None


class _CacheFile(msgspec.Struct):
    base_url: str
    fetched_at: float
    models: list[ModelInfo]


# -- the wire shape of /models: every field optional, prices as strings or numbers --


class _WirePricing(msgspec.Struct):
    prompt: str | float | None = None
    completion: str | float | None = None
    input_cache_read: str | float | None = None
    input_cache_write: str | float | None = None


class _WireTopProvider(msgspec.Struct):
    max_completion_tokens: int | None = None
    context_length: int | None = None


class _WireArchitecture(msgspec.Struct):
    input_modalities: list[str] | None = None


class _WireModel(msgspec.Struct):
    id: str
    name: str | None = None
    context_length: int | None = None
    pricing: _WirePricing | None = None
    top_provider: _WireTopProvider | None = None
    supported_parameters: list[str] | None = None
    architecture: _WireArchitecture | None = None
    # Some local servers (llama.cpp, vLLM) name the window differently.
    max_model_len: int | None = None
    context_window: int | None = None


class _WireModels(msgspec.Struct):
    data: list[_WireModel]


class _Supported(msgspec.Struct):
    supported: bool | None = None


class _ThinkingTypes(msgspec.Struct):
    adaptive: _Supported | None = None
    enabled: _Supported | None = None


class _Thinking(msgspec.Struct):
    supported: bool | None = None
    types: _ThinkingTypes | None = None


class _AnthropicCapabilities(msgspec.Struct):
    image_input: _Supported | None = None
    thinking: _Thinking | None = None


class _AnthropicModel(msgspec.Struct):
    """A model as Anthropic's GET /v1/models lists it."""

    id: str
    display_name: str | None = None
    max_input_tokens: int | None = None
    max_tokens: int | None = None
    capabilities: _AnthropicCapabilities | None = None


class _AnthropicModels(msgspec.Struct):
    data: list[_AnthropicModel]
    has_more: bool = False
    last_id: str | None = None


_MODELS_DECODER = msgspec.json.Decoder(_WireModels)
_ANTHROPIC_DECODER = msgspec.json.Decoder(_AnthropicModels)
# Anthropic lists at most this many models a page (its default is 20).
ANTHROPIC_PAGE = 1000


def parse_models(body: bytes) -> list[ModelInfo] | HttpProblem:
    """Models from a /models response body, sorted by id."""
    try:
        wire = _MODELS_DECODER.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        return _unexpected(exc)
    models = [_model(m) for m in wire.data]
    models.sort(key=lambda m: m.id)
    return models


def _unexpected(exc: Exception) -> HttpProblem:
    return HttpProblem("protocol", f"The models list is not in the expected format: {exc}")


def fetch_models(
    client: OpenAICompatClient, *, timeout: float = 30.0
) -> list[ModelInfo] | HttpProblem:
    """The provider's models list, in its API's shape (Anthropic's page by page, all pages
    within `timeout`). Blocking."""
    if client.api != "anthropic":
        body = client.get_json("models", timeout=timeout)
        return parse_models(body) if isinstance(body, bytes) else body
    models: list[ModelInfo] = []
    after = ""
    deadline = time.monotonic() + timeout
    for _ in range(10):  # pages; a list of ten thousand models is not a models list
        left = deadline - time.monotonic()
        if left <= 0:
            return HttpProblem("timeout", f"The models list did not come within {timeout:g} s.")
        body = client.get_json(f"models?limit={ANTHROPIC_PAGE}{after}", timeout=left)
        if isinstance(body, HttpProblem):
            return body
        try:
            page = _ANTHROPIC_DECODER.decode(body)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return _unexpected(exc)
        models += [_anthropic_model(m, client.preset) for m in page.data]
        if not page.has_more or not page.last_id:
            break
        after = f"&after_id={page.last_id}"
    models.sort(key=lambda m: m.id)
    return models


def _anthropic_model(wire: _AnthropicModel, preset: Preset) -> ModelInfo:
    """Every Claude model takes tools; images and thinking (adaptive where it takes that kind)
    as its capabilities say (unknown when an older API version leaves them out); prices from
    the preset's table."""
    able = wire.capabilities or _AnthropicCapabilities()
    types = able.thinking.types if able.thinking else None
    adaptive = types.adaptive.supported if types and types.adaptive else None
    price = listed_price(preset, wire.id)
    pricing = Pricing()
    if price is not None:
        fresh, write, read, output = price
        pricing = Pricing(prompt=fresh, completion=output, cache_read=read, cache_write=write)
    return ModelInfo(
        id=wire.id,
        name=wire.display_name or wire.id,
        context_length=wire.max_input_tokens,
        max_completion_tokens=wire.max_tokens,
        supports_tools=True,
        supports_reasoning=able.thinking.supported if able.thinking else None,
        supports_images=able.image_input.supported if able.image_input else None,
        pricing=pricing,
        adaptive_thinking=adaptive,
    )


def _model(wire: _WireModel) -> ModelInfo:
    top = wire.top_provider or _WireTopProvider()
    params = wire.supported_parameters
    pricing = wire.pricing or _WirePricing()
    modalities = wire.architecture.input_modalities if wire.architecture else None
    return ModelInfo(
        id=wire.id,
        name=wire.name or wire.id,
        context_length=wire.context_length
        or top.context_length
        or wire.max_model_len
        or wire.context_window,
        max_completion_tokens=top.max_completion_tokens,
        supports_tools=None if params is None else "tools" in params,
        supports_reasoning=None if params is None else "reasoning" in params,
        supports_images=None if modalities is None else "image" in modalities,
        pricing=Pricing(
            prompt=_price(pricing.prompt),
            completion=_price(pricing.completion),
            cache_read=_price(pricing.input_cache_read),
            cache_write=_price(pricing.input_cache_write),
        ),
    )


def _price(value: str | float | None) -> float | None:
    if value is None:
        return None
    try:
        price = float(value)
    except ValueError:
        return None
    return price if price >= 0 else None  # OpenRouter marks variable prices with -1


def with_capabilities(client: OpenAICompatClient, models: list[ModelInfo]) -> list[ModelInfo]:
    """`models` with the tool support and context size the list left unknown, from the local
    server's own API (`bb7.provider.capabilities`); as they were when it does not answer."""
    unknown = [m.id for m in models if m.supports_tools is None or m.context_length is None]
    if not unknown:
        return models
    found = capabilities.probe(client, unknown)
    if found is None:
        return models
    source, answers = found
    return [_with(model, answers.get(model.id), source) for model in models]


def _with(model: ModelInfo, answer: capabilities.Capabilities | None, source: str) -> ModelInfo:
    if answer is None:
        return model
    tools = model.supports_tools if model.supports_tools is not None else answer.supports_tools
    context = model.context_length or answer.context_length
    if (tools, context) == (model.supports_tools, model.context_length):
        return model
    return msgspec.structs.replace(
        model, supports_tools=tools, context_length=context, capabilities_source=source
    )


def tools_first(models: list[ModelInfo]) -> list[ModelInfo]:
    """Models for a picker: tool-capable first, then unknown, then without tools (bb7 edits
    files through tools, and falls back to text blocks without them); by id within each."""
    rank = {True: 0, None: 1, False: 2}
    return sorted(models, key=lambda m: (rank[m.supports_tools], m.id))


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """$XDG_CACHE_HOME/bb7, else ~/.cache/bb7."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bb7"


def cache_file(cache_dir: Path, base_url: str) -> Path:
    """One cache file per provider (`base_url`: `list_key`'s), so switching base URLs never
    mixes lists."""
    digest = hashlib.sha256(base_url.rstrip("/").encode()).hexdigest()[:12]
    return cache_dir / f"models-{digest}.json"


def list_key(config: ProviderConfig) -> str:
    """What a provider's models list is cached under: its base URL, with the API when that is
    not OpenAI's (Anthropic's server speaks both, and lists its models apart in each)."""
    api = config.api or preset_for(config.preset, config.base_url).api
    return config.base_url if api == "openai" else f"{config.base_url} ({api})"


def takes_images(model: ModelInfo | None, preset: Preset) -> bool | None:
    """Whether a model reads images: as its models list says, else as its provider's models
    usually do (`Preset.images`); None: nobody says."""
    if model is not None and model.supports_images is not None:
        return model.supports_images
    return preset.images


def load_models(
    client: OpenAICompatClient,
    cache_dir: Path,
    *,
    max_age: float = MAX_AGE,
    refresh: bool = False,
    now: Callable[[], float] = time.time,
) -> ModelList | HttpProblem:
    """The models list from the cache if younger than `max_age`, else from the provider.

    A failed fetch falls back to an older cache (with a warning) before reporting the problem.
    """
    base_url = list_key(client.config)
    path = cache_file(cache_dir, base_url)
    cached = _read_cache(path, base_url)
    current = now()
    if cached is not None and not refresh and current - cached.fetched_at < max_age:
        return ModelList(cached.models, cached.fetched_at, from_cache=True)
    models = fetch_models(client)
    if not isinstance(models, HttpProblem):
        models = with_capabilities(client, models)
    if isinstance(models, HttpProblem):
        if cached is None:
            return models
        age_h = (current - cached.fetched_at) / 3600
        warning = f"models list {age_h:.0f} h old: refreshing it failed\n{models.message}"
        return ModelList(cached.models, cached.fetched_at, from_cache=True, warning=warning)
    # A read-only cache dir costs a refetch next time, nothing else.
    with contextlib.suppress(OSError):
        atomic_write(path, msgspec.json.encode(_CacheFile(base_url, current, models)).decode())
    return ModelList(models, current, from_cache=False)


def cached_models(cache_dir: Path, base_url: str) -> ModelList | None:
    """The models list as last cached, however old; None when there is none. Never asks the
    provider (for estimates drawn while the user types)."""
    cached = _read_cache(cache_file(cache_dir, base_url), base_url)
    return None if cached is None else ModelList(cached.models, cached.fetched_at, True)


def _read_cache(path: Path, base_url: str) -> _CacheFile | None:
    try:
        cached = msgspec.json.decode(path.read_bytes(), type=_CacheFile)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return cached if cached.base_url == base_url else None
