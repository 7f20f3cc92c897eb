"""`setup()`: every option validated with a readable message, idempotent, starts nothing."""

from __future__ import annotations

from typing import Any

import pytest
from editor import messages

SETUP = "return { pcall(require('bb7').setup, ...) }"


@pytest.mark.parametrize(
    ("opts", "message"),
    [
        (
            {"diff_mode": "bogus"},
            "bb7: `diff_mode` should be one of 'search_replace_multi', 'search_replace', "
            "'anchored', 'off', 'edit_blocks', 'search_replace_blocks', got \"bogus\"",
        ),
        ({"provider": 42}, "bb7: `provider` should be a table, got 42"),
        (
            {"provider": "olama"},
            "bb7: `provider.preset` should be one of 'openrouter', 'openai', 'anthropic', "
            "'ollama', ",
        ),
        ({"provider": {"timeout": 0}}, "bb7: `provider.timeout` should be a number of seconds > 0"),
        (
            {"provider": {"base_url": "localhost:11434/v1"}},
            "bb7: `provider.base_url` should be an http:// or https:// URL or nil",
        ),
        ({"provider": {"retries": 1.5}}, "bb7: `provider.retries` should be a whole number >= 0"),
        ({"python": 42}, "bb7: `python` should be a string or nil, got 42"),
        ({"layout": "float"}, "bb7: `layout` should be one of 'tab', 'split', got \"float\""),
        ({"signs": {"priority": -1}}, "bb7: `signs.priority` should be a whole number >= 0"),
        (
            {"signs": {"modified": {"text": "MMM"}}},
            "bb7: `signs.modified` should be a table { text = <1 or 2 cells>, hl = <highlight",
        ),
        ({"keys": {"apply": 1}}, "bb7: `keys.apply` should be a key (string) or false"),
        ({"status": {"debounce_ms": 0.5}}, "bb7: `status.debounce_ms` should be a whole number"),
    ],
)
def test_a_bad_option_is_refused_with_a_message_naming_it(
    launch: Any, opts: dict[str, Any], message: str
) -> None:
    nvim = launch()
    ok, error = nvim.exec_lua(SETUP, opts)
    assert ok is False
    assert error.startswith(message), error


def test_an_api_key_in_place_of_its_source_is_refused_without_echoing_it(launch: Any) -> None:
    nvim = launch()
    ok, error = nvim.exec_lua(SETUP, {"provider": {"api_key": "sk-or-v1-0123456789abcdef"}})
    assert ok is False
    assert error == (
        "bb7: `provider.api_key` should be nil, an environment variable name, "
        "'cmd:<command>' or 'file:<path>', got a string"
    )
    assert "0123456789" not in messages(nvim)


def test_valid_options_are_merged_over_the_defaults(launch: Any) -> None:
    nvim = launch()
    opts = {"provider": {"api_key": "cmd:pass show openrouter"}, "keys": {"apply": False}}
    assert nvim.exec_lua(SETUP, opts) == [True]
    config = nvim.exec_lua("return require('bb7.config').get()")
    assert config["provider"] == {"api_key": "cmd:pass show openrouter", "cache": True}
    assert config["keys"]["apply"] is False
    assert config["keys"]["discard"] == "x"
    assert config["signs"]["modified"] == {"text": "M", "hl": "BB7SignModified"}


def test_a_provider_preset_by_name_is_short_for_the_preset_table(launch: Any) -> None:
    nvim = launch()
    assert nvim.exec_lua(SETUP, {"provider": "ollama"}) == [True]
    # No retries: the host picks the preset's (once for a server on this machine).
    provider = nvim.exec_lua("return require('bb7.config').get().provider")
    assert provider == {"preset": "ollama", "cache": True}
    opts = {"provider": {"preset": "groq", "model": "openai/gpt-oss-120b", "idle_timeout": 30}}
    assert nvim.exec_lua(SETUP, opts) == [True]
    provider = nvim.exec_lua("return require('bb7.config').get().provider")
    assert (provider["preset"], provider["model"], provider["idle_timeout"]) == (
        "groq",
        "openai/gpt-oss-120b",
        30,
    )


def test_setup_twice_replaces_the_config_and_keeps_one_set_of_autocmds(launch: Any) -> None:
    nvim = launch()
    count = "return #vim.api.nvim_get_autocmds({ group = 'bb7' })"
    nvim.exec_lua(SETUP, {"layout": "split"})
    first = nvim.exec_lua(count)
    nvim.exec_lua(SETUP, {"diff_mode": "off"})
    assert nvim.exec_lua(count) == first > 0
    config = nvim.exec_lua("return require('bb7.config').get()")
    assert (config["layout"], config["diff_mode"]) == ("tab", "off")


def test_setup_starts_no_process_and_loads_no_pane(launch: Any) -> None:
    nvim = launch()
    nvim.exec_lua(SETUP, {})
    assert nvim.exec_lua("return require('bb7.backend').state()") == "stopped"
    channels = nvim.api.list_chans()
    assert [c for c in channels if c.get("stream") == "job"] == []
    # The options of the chat view's keys come from their declarations, not the view.
    assert nvim.exec_lua("return package.loaded['bb7.chat.keys'] == nil") is True


def test_unknown_options_are_named_in_a_warning(launch: Any) -> None:
    nvim = launch()
    assert nvim.exec_lua(SETUP, {"provider": {"modle": "x"}, "colour": 1}) == [True]
    assert "bb7: unknown options ignored: colour, provider.modle" in messages(nvim)


def test_highlight_groups_are_defaults_that_come_back_after_a_colorscheme(launch: Any) -> None:
    nvim = launch()
    nvim.command("highlight BB7SignAdded guifg=#ff0000")
    nvim.exec_lua(SETUP, {})
    get = "return vim.api.nvim_get_hl(0, { name = ... })"
    assert nvim.exec_lua(get, "BB7SignAdded") == {"fg": 0xFF0000}  # the user's wins
    assert nvim.exec_lua(get, "BB7SignModified") == {"link": "Changed", "default": True}
    nvim.command("highlight clear")
    nvim.command("doautocmd ColorScheme")
    assert nvim.exec_lua(get, "BB7SignAdded") == {"link": "Added", "default": True}
