"""Python and Lua agree where both see the same thing, in an editor: checkhealth reads a key
spec as setup() does, and token totals (Lua draws the host's text). The key specs each side
accepts are compared without an editor in tests/lua/test_lua_agreement.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import open_view, with_ui

from bb7.text.tokens import format_tokens


def test_checkhealth_reads_an_env_spec_as_setup_does(
    launch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("my_llm_key", "sk-very-secret-value")
    nvim = launch()
    nvim.exec_lua("require('bb7').setup({ provider = { api_key = ' env: my_llm_key ' } })")
    nvim.command("checkhealth bb7")
    report = "\n".join(nvim.current.buffer[:])
    assert "OK from $my_llm_key (set)" in report
    assert "sk-very-secret-value" not in report


def test_the_files_panel_draws_the_hosts_token_text_rounded_once(
    launch: Callable[..., Any], project: Path
) -> None:
    (project / "big.txt").write_text("x" * 50_000)  # 12,500 tokens: a half to round
    seeded = Seeded(project)
    chat = seeded.chat("Tokens")
    seeded.add(chat, "big.txt")
    seeded.ask(chat, "hello")
    rows = open_view(with_ui(launch()), "hello")
    assert format_tokens(12_500) == "13k"
    assert any(" Files · ~13k tokens" in row for row in rows), "\n".join(rows)
    assert any(re.search(r"big\.txt +13k$", row) for row in rows), "\n".join(rows)
