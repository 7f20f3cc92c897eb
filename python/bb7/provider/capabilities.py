"""What a local server's models can do, asked the way each server answers.

`/models` of Ollama, llama.cpp and LM Studio lists ids only, so tool support and the context
size stay unknown there. Each server tells them through its own API, next to `/v1`:
- Ollama: `POST /api/show {"model": id}` -> `capabilities` (a list holding "tools" when the
  model's template takes tools), `model_info["<arch>.context_length"]`, and `parameters` (text,
  "num_ctx N" when the Modelfile sets the window the server really uses);
- llama.cpp: `GET /props` -> `default_generation_settings.n_ctx` and `chat_template_caps`
  (`supports_tool_calls` / `supports_tools`, the chat template's own verdict);
- LM Studio: `GET /api/v0/models` -> per model `max_context_length`, `loaded_context_length`
  when loaded, and `capabilities` (a list holding "tool_use"; absent on older versions).
`bb7.provider.models.load_models` fills in what the models list left unknown (None) from `probe`
before caching, and names where the answer came from (`ModelInfo.capabilities_source`).
A server that does not answer these leaves the models as they were: nothing here fails a send.
Not for the models list itself (`models.py`) nor for choosing an edit format
(`bb7.prompt.assemble`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from bb7.provider.client import OpenAICompatClient
from bb7.provider.failures import HttpProblem
from bb7.provider.presets import preset_for

ServerKind = Literal["ollama", "llamacpp", "lmstudio"]
SERVER_KINDS: tuple[ServerKind, ...] = ("ollama", "llamacpp", "lmstudio")
SOURCES: dict[ServerKind, str] = {
    "ollama": "Ollama /api/show",
    "llamacpp": "llama.cpp /props",
    "lmstudio": "LM Studio /api/v0/models",
}
PROBE_TIMEOUT = 3.0
# The whole probe's deadline, over every request it makes (a server that answers each just in
# time holds up a first send no longer than this).
PROBE_TOTAL = 10.0
# Ollama answers per model; a long local list is asked about this many at most per refresh.
MAX_SHOWN = 40


class Capabilities(msgspec.Struct, frozen=True):
    """One model's answer: None where the server did not say."""

    supports_tools: bool | None = None
    context_length: int | None = None


# -- the servers' documented shapes, every field optional -------------------------------------


class _OllamaShow(msgspec.Struct):
    capabilities: list[str] | None = None
    model_info: dict[str, Any] | None = None
    parameters: str | None = None


class _TemplateCaps(msgspec.Struct):
    supports_tools: bool | None = None
    supports_tool_calls: bool | None = None


class _GenerationSettings(msgspec.Struct):
    n_ctx: int | None = None


class _LlamaProps(msgspec.Struct):
    default_generation_settings: _GenerationSettings | None = None
    chat_template_caps: _TemplateCaps | None = None
    n_ctx: int | None = None  # older servers put it at the top


class _LMStudioModel(msgspec.Struct):
    id: str
    max_context_length: int | None = None
    loaded_context_length: int | None = None
    capabilities: list[str] | None = None


class _LMStudioModels(msgspec.Struct):
    data: list[_LMStudioModel]


_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def from_ollama_show(body: bytes) -> Capabilities | None:
    """Ollama's `/api/show` answer; `num_ctx` (the window in use) before the trained one."""
    show = _decode(body, _OllamaShow)
    if show is None:
        return None
    tools = None if show.capabilities is None else "tools" in show.capabilities
    context = None
    found = _NUM_CTX.search(show.parameters or "")
    if found:
        context = int(found.group(1))
    else:
        for key, value in (show.model_info or {}).items():
            if key.endswith(".context_length") and isinstance(value, int) and value > 0:
                context = value
                break
    return Capabilities(supports_tools=tools, context_length=context)


def from_llamacpp_props(body: bytes) -> Capabilities | None:
    """llama.cpp's `/props` answer (the one model it serves)."""
    props = _decode(body, _LlamaProps)
    if props is None:
        return None
    caps = props.chat_template_caps
    tools = None
    if caps is not None:
        calls = caps.supports_tool_calls
        tools = caps.supports_tools if calls is None else calls
    settings = props.default_generation_settings
    context = (settings.n_ctx if settings else None) or props.n_ctx
    return Capabilities(supports_tools=tools, context_length=context or None)


def from_lmstudio_models(body: bytes) -> dict[str, Capabilities] | None:
    """LM Studio's `/api/v0/models` answer, by model id; the loaded window before the most."""
    listed = _decode(body, _LMStudioModels)
    if listed is None:
        return None
    return {
        model.id: Capabilities(
            supports_tools=None if model.capabilities is None else "tool_use" in model.capabilities,
            context_length=model.loaded_context_length or model.max_context_length,
        )
        for model in listed.data
    }


def _decode(body: bytes, kind: type[Any]) -> Any:
    try:
        return msgspec.json.decode(body, type=kind)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


# -- asking a server ---------------------------------------------------------------------------


def server_kinds(client: OpenAICompatClient) -> tuple[ServerKind, ...]:
    """Which APIs to ask: the preset's own, all three for an unnamed server on this machine,
    none for a remote provider (its models list says what it knows)."""
    preset = preset_for(client.config.preset, client.config.base_url)
    for kind in SERVER_KINDS:
        if preset.name == kind:
            return (kind,)
    return SERVER_KINDS if preset.local and preset.name == "custom" else ()


def server_root(base_url: str) -> str:
    """The server's root: the base URL without its OpenAI-compatible `/v1`."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def probe(
    client: OpenAICompatClient,
    model_ids: list[str],
    *,
    timeout: float = PROBE_TIMEOUT,
    total: float = PROBE_TOTAL,
) -> tuple[str, dict[str, Capabilities]] | None:
    """(source, answers by model id) from the first server API that answers, or None. Each
    request waits `timeout` at most, all of them `total`."""
    root = server_root(client.config.base_url)
    deadline = time.monotonic() + total
    for kind in server_kinds(client):
        if time.monotonic() >= deadline:
            break
        said = _ASK[kind](client, root, model_ids, _Deadline(deadline, timeout)).items()
        answers = {model_id: found for model_id, found in said if found != Capabilities()}
        if answers:
            return SOURCES[kind], answers
    return None


class _Deadline(msgspec.Struct, frozen=True):
    """The probe's deadline (monotonic) and each request's own limit."""

    at: float
    each: float

    def left(self) -> float:
        """What the next request may wait: its own limit, at most what is left (0: none)."""
        return max(0.0, min(self.each, self.at - time.monotonic()))


def _ask_ollama(
    client: OpenAICompatClient, root: str, ids: list[str], deadline: _Deadline
) -> dict[str, Capabilities]:
    answers: dict[str, Capabilities] = {}
    for model_id in ids[:MAX_SHOWN]:
        timeout = deadline.left()
        if not timeout:
            break
        body = client.request_json("POST", f"{root}/api/show", {"model": model_id}, timeout=timeout)
        if isinstance(body, HttpProblem):
            if not answers or body.kind in ("connection", "timeout"):
                break  # not Ollama, or not running: the next model would say the same
            continue
        found = from_ollama_show(body)
        if found is not None:
            answers[model_id] = found
    return answers


def _ask_llamacpp(
    client: OpenAICompatClient, root: str, ids: list[str], deadline: _Deadline
) -> dict[str, Capabilities]:
    body = client.request_json("GET", f"{root}/props", timeout=deadline.left())
    found = None if isinstance(body, HttpProblem) else from_llamacpp_props(body)
    return {} if found is None else dict.fromkeys(ids, found)


def _ask_lmstudio(
    client: OpenAICompatClient, root: str, ids: list[str], deadline: _Deadline
) -> dict[str, Capabilities]:
    body = client.request_json("GET", f"{root}/api/v0/models", timeout=deadline.left())
    found = None if isinstance(body, HttpProblem) else from_lmstudio_models(body)
    return {} if found is None else {i: found[i] for i in ids if i in found}


_ASK: dict[
    ServerKind,
    Callable[[OpenAICompatClient, str, list[str], _Deadline], dict[str, Capabilities]],
] = {"ollama": _ask_ollama, "llamacpp": _ask_llamacpp, "lmstudio": _ask_lmstudio}
