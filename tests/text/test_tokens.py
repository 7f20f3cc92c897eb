"""The one token estimate and the one token format (Lua draws the host's text as is)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bb7.chatview.files import panel
from bb7.prompt.config import SendConfig
from bb7.prompt.turn import build_turn
from bb7.provider.models import ModelInfo
from bb7.refusal import Problem
from bb7.state.chats import new_chat
from bb7.state.context import add, parse_target
from bb7.state.status import file_statuses
from bb7.state.store import init_project
from bb7.text.tokens import estimate_tokens, format_tokens


def test_token_counts_read_at_a_glance() -> None:
    assert [format_tokens(n) for n in (950, 1234, 12_345, 1_300_000)] == [
        "950",
        "1.2k",
        "12k",
        "1.3M",
    ]


def test_halves_round_up_at_every_scale() -> None:
    # Python's round() would give 12k and 2.0M here (half to even); Lua used to give 13k.
    assert [format_tokens(n) for n in (1250, 12_500, 13_500, 2_250_000)] == [
        "1.3k",
        "13k",
        "14k",
        "2.3M",
    ]


def test_a_rounded_count_moves_to_the_next_unit() -> None:
    assert [format_tokens(n) for n in (999, 9_949, 9_950, 999_499, 999_500)] == [
        "999",
        "9.9k",
        "10k",
        "999k",
        "1.0M",
    ]


def test_cjk_counts_about_one_token_a_character() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("x" * 400) == 100
    assert estimate_tokens("漢" * 1000) == 1000


def test_the_files_panel_counts_cjk_as_the_context_warning_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "proj"
    root.mkdir()
    cjk = "漢字仮名交じり文の行です。\n" * 80  # 1,120 characters, ~3 bytes each
    (root / "notes.md").write_text(cjk, encoding="utf-8")
    store = init_project(root)
    chat = new_chat(store)
    assert not isinstance(add(store, chat.id, parse_target("notes.md"), base=root), Problem)

    (row,) = file_statuses(store, chat.id)
    shown = panel([row], lambda path: str(root / path))
    turn = build_turn(
        store, chat.id, "hi", SendConfig(), model=ModelInfo(id="m", context_length=1200)
    )
    (part,) = [p for p in turn.prompt.parts if p.name == "file"]
    store.close()

    assert row.tokens == estimate_tokens(cjk) > len(cjk) * 0.9  # not a quarter of that
    assert 0 <= part.tokens - row.tokens <= 20  # the prompt adds only the file's header
    assert shown.total_tokens_text == format_tokens(row.tokens) == "1.1k"
    # The refusal before sending counted the same tokens: the file alone is over 1,200.
    assert turn.too_large is not None and "notes.md 1.1k" in turn.too_large
