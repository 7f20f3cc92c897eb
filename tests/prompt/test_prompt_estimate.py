"""The input bar's estimate of the next request: its size, the part the provider's cache should
serve (the prefix shared with the previous request while it is young), and the input's price."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from bb7.prompt.config import SendConfig
from bb7.prompt.estimate import Estimate, estimate_next
from bb7.prompt.instructions import Instructions
from bb7.prompt.parts import next_request
from bb7.provider.models import ModelInfo, Pricing
from bb7.state import context
from bb7.state.chats import append_user_message, new_chat
from bb7.state.context import Target
from bb7.state.records import Message, TextPart
from bb7.state.store import Store, init_project
from image_files import png

MODEL = ModelInfo(
    id="anthropic/claude-test",
    context_length=200_000,
    pricing=Pricing(prompt=3e-6, completion=15e-6, cache_read=3e-7, cache_write=3.75e-6),
)
CODE = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(1000))  # 2,000 lines


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[tuple[Store, str]]:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "big.py").write_text(CODE)
    store = init_project(root)
    chat_id = new_chat(store).id
    context.add(store, chat_id, Target("big.py"))
    yield store, chat_id
    store.close()


def estimate(
    store: Store, chat_id: str, now: Callable[[], float] = time.time, *, cache: bool = True
) -> Estimate:
    config = SendConfig(model=MODEL.id, cache=cache)
    return estimate_next(store, chat_id, config, MODEL, Instructions(), now=now)


def exchange(store: Store, chat_id: str) -> None:
    append_user_message(store, chat_id, "Explain f3.")
    store.append_message(
        chat_id, Message(role="assistant", parts=[TextPart("It adds 3.")], model=MODEL.id)
    )


def test_a_first_message_is_priced_in_full(chat: tuple[Store, str]) -> None:
    first = estimate(*chat)
    assert first.tokens > 7_000 and first.cached == 0
    assert first.cost == pytest.approx(first.tokens * 3e-6)
    assert first.text.startswith(f"~{first.tokens // 1000}") and " · ~$0.0" in first.text


def test_a_prompt_over_the_context_says_so_before_it_is_sent(chat: tuple[Store, str]) -> None:
    small = msgspec.structs.replace(MODEL, context_length=4_000)
    config = SendConfig(model=MODEL.id)
    found = estimate_next(*chat, config, small, Instructions())
    assert found.text.endswith(" · over the model's 4.0k context")


def test_after_an_answer_the_previous_request_is_expected_from_the_cache(
    chat: tuple[Store, str],
) -> None:
    exchange(*chat)
    after = estimate(*chat)
    assert after.cached > 0.9 * after.tokens
    full, read = after.tokens * 3e-6, after.cached * 3e-7 + (after.tokens - after.cached) * 3e-6
    assert after.cost is not None and after.cost < full / 3
    assert after.cost == pytest.approx(read)
    assert "k cached) · ~$" in after.text


def test_a_cache_older_than_five_minutes_or_turned_off_is_not_counted(
    chat: tuple[Store, str],
) -> None:
    exchange(*chat)
    assert estimate(*chat, now=lambda: time.time() + 301).cached == 0
    # Anthropic through OpenRouter caches only what is marked: no marks, no cache.
    assert estimate(*chat, cache=False).cached == 0


def test_the_prompt_view_lists_every_part_in_order_adding_up_to_the_estimate(
    chat: tuple[Store, str],
) -> None:
    store, chat_id = chat
    exchange(store, chat_id)
    config = SendConfig(model=MODEL.id)
    found = next_request(store, chat_id, config, MODEL, Instructions(), text="And f4?")
    kinds = [part.kind for part in found.parts]
    assert kinds[0] == "system_prompt" and kinds[-1] == "latest"
    assert ("file", "big.py") in [(part.kind, part.path) for part in found.parts]
    assert sum(part.tokens for part in found.parts) == found.tokens
    assert found.tokens == estimate_next(store, chat_id, config, MODEL, Instructions()).tokens + (
        found.parts[-1].tokens
        - next_request(store, chat_id, config, MODEL, Instructions()).parts[-1].tokens
    )
    costs = [part.cost for part in found.parts]
    assert all(c is not None and c > 0 for c in costs)
    # The parts are priced uncached; the total as the input's bar counts it, with the cache.
    same = estimate_next(store, chat_id, config, MODEL, Instructions(), text="And f4?")
    assert found.cost == pytest.approx(same.cost) and found.title == f"next request · {same.text}"
    assert "cached" in found.title and found.cost < sum(c for c in costs if c is not None)
    assert "big.py" in found.parts[kinds.index("file")].line


def test_an_image_in_the_cached_prefix_counts_as_the_provider_counts_it(tmp_path: Path) -> None:
    # An image is sent as an image part: the cache serves its tokens (about a thousand here),
    # not the few characters bb7 compares it by.
    root = tmp_path / "proj"
    root.mkdir()
    (root / "shot.png").write_bytes(png(1000, 800))
    store = init_project(root)
    chat_id = new_chat(store).id
    context.add(store, chat_id, Target("shot.png"))
    exchange(store, chat_id)
    after = estimate(store, chat_id)
    store.close()
    assert after.tokens > 1_000
    assert after.cached > 0.9 * after.tokens, after
