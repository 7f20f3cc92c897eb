"""`python -m bb7.provider.probe '{"preset": ..., "api": ..., "base_url": ..., "api_key": ...}'`:
which provider the `provider` settings name and in which API it is spoken to, how its prompt
cache is asked for, whether its server answers `GET /models`, and for a local server what its
own API says about tools (`bb7.provider.capabilities`), as one JSON line.

For `:checkhealth bb7`, which runs it like its other Python checks (a host is not needed, and
a health check must not wait for one). A `cmd:` key source is not run here (the health check
never runs commands); the models list is public on most providers, so the request goes
without a key then. Exit status 0 with the JSON, 2 with a one-line error for bad settings.
"""

from __future__ import annotations

import sys

import msgspec

from bb7.provider.client import OpenAICompatClient
from bb7.provider.failures import HttpProblem
from bb7.provider.keys import ApiKey, resolve_api_key
from bb7.provider.models import fetch_models, with_capabilities
from bb7.provider.presets import preset_for
from bb7.provider.provider import provider_config


class ProbeArgs(msgspec.Struct, frozen=True):
    preset: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    api: str | None = None


class Probe(msgspec.Struct, frozen=True):
    """`preset`: the preset in force (`custom` for a server no preset names); `key_env`: the
    variable its key is read from without an api_key source (None: no key); `models`: how many
    the server listed, when `answers`; else `problem` says what went wrong.
    `capabilities_source`: the local server API that said which models take tools ("" when the
    list said it, or nobody did); `tools`/`no_tools`: how many models are known to take tools
    or not; `without_tools`: the first few ids of the latter (they get text edit blocks).
    `api`: the wire protocol spoken; `cache_key`: the server takes `prompt_cache_key`;
    `routing`: it takes OpenRouter's `provider` object (so `provider.privacy` applies)."""

    preset: str
    title: str
    base_url: str
    api: str
    key_env: str | None
    key_required: bool
    local: bool
    answers: bool
    models: int = 0
    problem: str = ""
    capabilities_source: str = ""
    tools: int = 0
    no_tools: int = 0
    without_tools: list[str] = []
    cache_key: bool = False
    routing: bool = False


def probe(args: ProbeArgs, *, timeout: float = 5.0) -> Probe | str:
    config = provider_config(args.preset, args.base_url, api=args.api)
    if isinstance(config, str):
        return config
    found = preset_for(args.preset, args.base_url)
    key = None
    if not (args.api_key or "").startswith("cmd:"):
        resolved = resolve_api_key(args.api_key, config.base_url, preset=config.preset)
        key = resolved if isinstance(resolved, ApiKey) else None
    client = OpenAICompatClient(config, key)
    try:
        listed = fetch_models(client, timeout=timeout)
        if not isinstance(listed, HttpProblem):
            listed = with_capabilities(client, listed)
    finally:
        client.close()
    facts = Probe(
        preset=found.name,
        title=found.title,
        base_url=config.base_url,
        api=client.api,
        cache_key=found.cache_key,
        routing=found.reasoning == "openrouter",
        key_env=found.key_env,
        key_required=found.key_required,
        local=found.local,
        answers=False,
    )
    if isinstance(listed, HttpProblem):
        return msgspec.structs.replace(facts, problem=listed.message)
    without = [m.id for m in listed if m.supports_tools is False]
    return msgspec.structs.replace(
        facts,
        answers=True,
        models=len(listed),
        capabilities_source=next(
            (m.capabilities_source for m in listed if m.capabilities_source), ""
        ),
        tools=sum(1 for m in listed if m.supports_tools),
        no_tools=len(without),
        without_tools=without[:5],
    )


def main(argv: list[str]) -> int:
    try:
        args = msgspec.json.decode(argv[0] if argv else "{}", type=ProbeArgs)
    except msgspec.DecodeError as exc:
        print(f"bb7: bad probe arguments: {exc}", file=sys.stderr)
        return 2
    result = probe(args)
    if isinstance(result, str):
        print(f"bb7: {result}", file=sys.stderr)
        return 2
    print(msgspec.json.encode(result).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
