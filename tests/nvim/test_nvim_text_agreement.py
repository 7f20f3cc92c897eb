"""Python and Lua agree where both see the same thing: API-key specs (`setup()` and
`bb7.provider.keys` accept exactly the same ones) and token totals (Lua draws the host's text)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import open_view, with_ui

from bb7.provider.keys import KeyProblem, parse_key_spec
from bb7.text.tokens import format_tokens

# Every form of the grammar, and the near misses on each side of it.
KEY_SPECS = [
    "",
    "   ",
    "MY_KEY",
    " MY_KEY ",
    "_KEY2",
    "env:MY_KEY",
    "env:my_key",
    "env:  mixed_Case1 ",
    "cmd:pass show openrouter",
    " cmd: pass ",
    "file:~/.config/key",
    "my_key",
    "2KEY",
    "MY-KEY",
    "env:",
    "env:1abc",
    "env:a b",
    "cmd:",
    "cmd:   ",
    "file:",
    "CMD:pass",
    "key:value",
    "sk-or-v1-0123456789abcdef",
    # A key typed where a command, path or name belongs (issue 38): refused, never echoed.
    "cmd:sk-or-v1-0123456789abcdef",
    " file: sk-proj-abcdefghijkl0123 ",
    "env:AKIAIOSFODNN7EXAMPLE",
    "AKIAIOSFODNN7EXAMPLE",
    "env:a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6",
    "cmd:my-key-helper-script2",
]


def test_lua_setup_and_python_accept_the_same_key_specs(launch: Any) -> None:
    nvim = launch()
    in_lua = nvim.exec_lua(
        """
        local out = {}
        for _, spec in ipairs(...) do
          out[#out + 1] = pcall(require('bb7').setup, { provider = { api_key = spec } })
        end
        return out
        """,
        KEY_SPECS,
    )
    in_python = [not isinstance(parse_key_spec(spec), KeyProblem) for spec in KEY_SPECS]
    assert dict(zip(KEY_SPECS, in_lua, strict=True)) == dict(zip(KEY_SPECS, in_python, strict=True))
    assert in_python[KEY_SPECS.index("env:my_key")] and not in_python[KEY_SPECS.index("my_key")]


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
