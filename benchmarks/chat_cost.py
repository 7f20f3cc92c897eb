"""Benchmark: what a 10-turn chat over a 2,000-line file costs with the provider's prompt cache
against without it, at the scripted model's prices: through OpenRouter's Chat Completions and
through Anthropic's own Messages API (`provider.api = 'anthropic'`).

Run: .venv/bin/python benchmarks/chat_cost.py

Each turn goes through the real send (`bb7.chat.send.start_send`: the prompt is built from the
store as the editor's send builds it, with the cache marks bb7 puts for an Anthropic model on
OpenRouter) to the scripted server tests/llm_server.py, which records every request and serves
the models list (Anthropic's prices: $3/M input, $15/M output, a cache read at a tenth, a cache
write at 1.25 times). The chat is benchmarks/chat_turns.py's: the user edits a few lines
between turns; the model changes the file once.

The requests are then billed as Anthropic's cache bills them: a request's `cache_control` marks
write the prefix up to each mark to the cache; a later request reads the longest cached prefix
that ends at one of its block boundaries up to 20 blocks before one of its marks. Token counts
are bb7's estimate (`bb7.text.tokens`) of each block; the cost is `bb7.prompt.pricing`'s. Printed
per turn: input tokens, of them read from the cache, written to it, billed at full price; then
the totals, the cost with the cache and without, and their ratio. Target: with the cache at
most 30% of the cost without.

Anthropic's API: the same chat with the `anthropic` preset, the scripted server billing each
request as above and reporting it in the stream's usage (`cache_read_input_tokens`,
`cache_creation_input_tokens`), as Anthropic does; bb7 prices what the server reported with the
preset's table (`bb7.provider.presets.PRICES`), and the ratio is that cost against the same
tokens at full price. Same target.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from bb7.prompt import pricing  # noqa: E402
from bb7.prompt.config import SendConfig  # noqa: E402
from bb7.provider import events as llm  # noqa: E402
from bb7.provider.config import ProviderConfig  # noqa: E402
from bb7.provider.models import Pricing, parse_models  # noqa: E402
from bb7.text.tokens import estimate_tokens  # noqa: E402
from chat_turns import SOURCE, TURNS, scripted_chat  # noqa: E402
from messages_api import messages, model, text_block, tool_use_block  # noqa: E402

TARGET = 0.30
MODEL = "anthropic/claude-sonnet-4.5"
PRICES = {
    "prompt": "0.000003",
    "completion": "0.000015",
    "input_cache_read": "0.0000003",
    "input_cache_write": "0.00000375",
}
# Anthropic looks for a cached prefix at the block boundaries this far before each mark.
LOOKBACK = 20


@dataclass
class Billed:
    """One request as the cache bills it (tokens)."""

    tokens: int
    cached: int
    written: int
    completion: int

    def usage(self) -> llm.Usage:
        return llm.Usage(
            prompt_tokens=self.tokens,
            completion_tokens=self.completion,
            cached_tokens=self.cached,
            cache_write_tokens=self.written,
        )


def _blocks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The request as the cache sees it: (text, marked) blocks, tools first (each one in
    Anthropic's own API, which marks the last; one unmarked block through OpenRouter), then
    the system blocks (Anthropic's API) and the messages' content parts in order."""
    blocks: list[tuple[str, bool]] = []
    tools = body.get("tools") or []
    if "system" in body:
        blocks += [(_text(tool), "cache_control" in tool) for tool in tools]
        blocks += [(f"system:{_text(b)}", "cache_control" in b) for b in body["system"]]
    elif tools:
        blocks.append((json.dumps(tools, sort_keys=True), False))
    for message in body["messages"]:
        content = message["content"]
        parts = [{"text": content}] if isinstance(content, str) else content
        for part in parts:
            blocks.append((f"{message['role']}:{_text(part)}", "cache_control" in part))
    return blocks


def _text(block: dict[str, Any]) -> str:
    """A block as the cache keys it: its text, or its JSON without the breakpoint."""
    if set(block) - {"type", "cache_control"} == {"text"}:
        return str(block["text"])
    return json.dumps({k: v for k, v in block.items() if k != "cache_control"}, sort_keys=True)


class AnthropicCache:
    """The prefixes a run of requests has written, and what each request reads and writes."""

    def __init__(self) -> None:
        self.written: set[str] = set()

    def bill(self, body: dict[str, Any], completion: int) -> Billed:
        blocks = _blocks(body)
        keys, sizes = [], []
        digest, total = hashlib.sha256(), 0
        for text, _ in blocks:
            digest.update(text.encode())
            keys.append(digest.hexdigest())
            total += estimate_tokens(text)
            sizes.append(total)
        marks = [i for i, (_, marked) in enumerate(blocks) if marked]
        cached = 0
        for mark in marks:
            for i in range(mark, max(-1, mark - LOOKBACK - 1), -1):
                if keys[i] in self.written:
                    cached = max(cached, sizes[i])
                    break
        written = max(0, sizes[marks[-1]] - cached) if marks else 0
        self.written.update(keys[i] for i in marks)
        return Billed(total, cached, written, completion)


def run_chat() -> tuple[list[Billed], Pricing]:
    """Every request of the chat, billed; and the model's prices as bb7 reads the models list."""
    model = {
        "id": MODEL,
        "context_length": 200_000,
        "pricing": PRICES,
        "supported_parameters": ["tools", "tool_choice", "max_tokens"],
    }

    def config(base_url: str, tmp: Path) -> SendConfig:
        # OpenRouter's dialect (Anthropic models get cache marks) on the scripted server.
        os.environ["BB7_BENCH_KEY"] = "sk-or-bench"  # OpenRouter wants a key; the server none
        provider = ProviderConfig(base_url=base_url, preset="openrouter")
        cache = str(tmp / "cache")
        return SendConfig(
            model=MODEL, provider=provider, api_key="BB7_BENCH_KEY", models_cache=cache
        )

    bodies, answers, _ = scripted_chat(config, models=[model])
    listed = parse_models(json.dumps({"data": [model]}).encode())
    assert isinstance(listed, list), listed
    prices = pricing.prices(listed[0])
    assert prices is not None
    cache = AnthropicCache()
    billed = [
        cache.bill(json.loads(body), estimate_tokens(answer))
        for body, answer in zip(bodies, answers, strict=True)
    ]
    return billed, prices


NATIVE_MODEL = "claude-sonnet-4-5-20250929"


def native_reply(text: str, call: dict[str, Any] | None) -> dict[str, Any]:
    """An answer as Anthropic's API streams it (usage filled in by the billing server)."""
    blocks = [text_block(text)]
    if call is not None:
        blocks.append(tool_use_block("edit_file", call, index=1))
    return messages(*blocks, stop="tool_use" if call else "end_turn")


def run_native() -> tuple[list[Billed], list[llm.Usage], Pricing]:
    """The chat over Anthropic's own API: each request as the server billed it, what bb7
    read from the stream's usage (with the cost bb7 put on it), and the table's prices."""
    cache = AnthropicCache()
    billed: list[Billed] = []

    def bill(body: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
        text = "".join(
            step["data"]["delta"].get("text", "")
            for step in response["events"]
            if step.get("event") == "content_block_delta"
        )
        b = cache.bill(body, estimate_tokens(text) or 1)
        billed.append(b)
        usage = response["events"][0]["data"]["message"]["usage"]
        usage["input_tokens"] = b.tokens - b.cached - b.written
        usage["cache_read_input_tokens"] = b.cached
        usage["cache_creation_input_tokens"] = b.written
        response["events"][-2]["data"]["usage"]["output_tokens"] = b.completion
        return response

    def config(base_url: str, tmp: Path) -> SendConfig:
        os.environ["BB7_BENCH_KEY"] = "sk-ant-bench"
        provider = ProviderConfig(base_url=base_url, preset="anthropic")
        cache_dir = str(tmp / "cache")
        return SendConfig(
            model=NATIVE_MODEL, provider=provider, api_key="BB7_BENCH_KEY", models_cache=cache_dir
        )

    _, _, used = scripted_chat(
        config, models=[model(NATIVE_MODEL)], reply=native_reply, respond=bill
    )
    prices = pricing.prices(_listed(NATIVE_MODEL))
    assert prices is not None
    reported = [
        llm.Usage(
            prompt_tokens=u.prompt_tokens,
            completion_tokens=u.completion_tokens,
            cached_tokens=u.cached_tokens,
            cache_write_tokens=u.cache_write_tokens,
            cost=u.cost,
        )
        for u in used
        if u is not None
    ]
    return billed, reported, prices


def _listed(model_id: str) -> Any:
    """The model as bb7 reads Anthropic's list: with the preset's prices."""
    from bb7.provider.models import ModelInfo
    from bb7.provider.presets import PRESETS, listed_price

    price = listed_price(PRESETS["anthropic"], model_id)
    assert price is not None
    fresh, write, read, output = price
    return ModelInfo(
        id=model_id,
        pricing=Pricing(prompt=fresh, completion=output, cache_read=read, cache_write=write),
    )


def _table(billed: list[Billed]) -> None:
    print(f"{'turn':>4}  {'input':>7}  {'cached':>7}  {'written':>7}  {'full price':>10}")
    for turn, b in enumerate(billed, start=1):
        full = b.tokens - b.cached - b.written
        print(f"{turn:>4}  {b.tokens:>7,}  {b.cached:>7,}  {b.written:>7,}  {full:>10,}")
    tokens = sum(b.tokens for b in billed)
    cached = sum(b.cached for b in billed)
    written = sum(b.written for b in billed)
    full = tokens - cached - written
    print(
        f"input tokens: {tokens:,}; read from the cache {cached:,}, written {written:,}, "
        f"billed at full price {full:,} ({full / tokens:.0%})"
    )


def _ratio(with_cache: float, without: float) -> float:
    ratio = with_cache / without
    print(f"cost with the cache ${with_cache:.4f}, without ${without:.4f}: ratio {ratio:.2f}")
    met = "met" if ratio <= TARGET else "NOT met"
    print(f"target: with the cache at most {TARGET:.0%} of the cost without: {met}")
    return ratio


def main() -> int:
    billed, prices = run_chat()
    lines = SOURCE.count("\n")
    print(f"{TURNS}-turn chat over a {lines:,}-line file ({MODEL} prices, Anthropic's cache)")
    _table(billed)
    ratio = _ratio(
        sum(pricing.cost(b.usage(), prices) for b in billed),
        sum(pricing.uncached_cost(b.usage(), prices) for b in billed),
    )

    native, reported, table = run_native()
    print()
    print(f"The same chat over Anthropic's API ({NATIVE_MODEL}, the preset's prices)")
    _table(native)
    costs = [u.cost for u in reported]
    assert all(cost is not None for cost in costs), "bb7 priced every answer"
    native_ratio = _ratio(
        sum(cost or 0.0 for cost in costs),
        sum(pricing.uncached_cost(u, table) for u in reported),
    )
    return 0 if max(ratio, native_ratio) <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
