"""`:checkhealth bb7` and `doc/bb7.txt`: generated from the same sources (its tags and links are
checked in tests/lua/help_spec.lua)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from editor import NEWEST_ONLY, NVIM, ROOT, python_without_pynvim

from llm_server import DEFAULT_MODELS, LLMServer

# Two checkhealth tests run on every Neovim, the host round trip and the Python lacking packages:
# they take the whole report (every section, each subprocess, the host) and vim.health's
# rendering of its lines through each version. The others check what one section says for one
# configuration (the probe's answer, the database file, the key's source and the Lua that words
# them, the same on every version), so they run on the newest only.


def checkhealth(nvim: Any) -> str:
    nvim.command("checkhealth bb7")
    return "\n".join(nvim.current.buffer[:])


def test_checkhealth_reports_python_packages_and_a_host_round_trip(nvim: Any) -> None:
    report = checkhealth(nvim)
    assert "OK Neovim 0." in report
    assert f"OK {ROOT / '.venv' / 'bin' / 'python'} (from the plugin venv)" in report
    for package in ("pynvim", "msgspec", "rapidfuzz", "httpx"):
        assert re.search(rf"OK {package} \d+\.\d+", report), package
    assert "OK bb7 0.1.0, protocol 2, pid" in report
    assert re.search(r"OK round trip: \d+\.\d+ ms", report)
    assert "no .bb7/ in" in report and "run :BB7Init" in report
    assert "bb7.log (level debug)" in report


@NEWEST_ONLY
def test_checkhealth_names_the_key_source_and_never_the_key(
    launch: Any, monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-very-secret-value")
    nvim = launch()
    nvim.exec_lua("require('bb7').setup({ provider = { api_key = 'MY_LLM_KEY' } })")
    (project / ".bb7").mkdir()
    (project / ".bb7" / "bb7.db").write_bytes(b"SQLite format 3\0".ljust(3000, b"\0"))
    report = checkhealth(nvim)
    assert "OK from $MY_LLM_KEY (set)" in report
    assert "sk-very-secret-value" not in report
    assert f"OK {project / '.bb7' / 'bb7.db'} (3 KiB)" in report
    nvim.exec_lua("require('bb7').setup({ provider = { api_key = 'cmd:echo sk-inline-key' } })")
    report = checkhealth(nvim)
    assert "from the output of a command (echo ...); not run here" in report
    assert "sk-inline-key" not in report


@NEWEST_ONLY
def test_checkhealth_says_what_to_do_without_a_key_or_with_unknown_options(launch: Any) -> None:
    nvim = launch()
    nvim.exec_lua("require('bb7').setup({ provider = { api_key = 'NO_SUCH_KEY_VAR' }, x = 1 })")
    report = checkhealth(nvim)
    assert "WARNING $NO_SUCH_KEY_VAR is not set" in report
    assert ":BB7Paste works without a key" in report
    assert "WARNING unknown option `x` (ignored)" in report


@NEWEST_ONLY
def test_checkhealth_knows_a_local_server_needs_no_key_and_what_it_says_about_tools(
    launch: Any,
) -> None:
    fixture = json.loads((ROOT / "tests/provider/local_servers/ollama.json").read_text())
    with LLMServer(models=fixture["models"], native=fixture["native"]) as server:
        nvim = launch()
        nvim.exec_lua(
            "require('bb7').setup({ provider = { preset = 'ollama', base_url = ... } })",
            server.base_url,
        )
        report = checkhealth(nvim)
    assert "OK none needed: the provider is a server on this machine" in report
    assert (
        "OK tool support from Ollama /api/show: 1 with tools, 1 without (text edit blocks: "
        "llama3:8b)" in report
    )


def test_the_help_file_is_generated_from_the_current_sources() -> None:
    result = subprocess.run(
        [str(NVIM), "-l", str(ROOT / "scripts" / "gen_doc.lua"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


@NEWEST_ONLY
def test_checkhealth_names_the_preset_and_whether_its_server_lists_models(launch: Any) -> None:
    with LLMServer(models=DEFAULT_MODELS[:1]) as server:  # a local server with one model
        nvim = launch()
        nvim.exec_lua(
            "require('bb7').setup({ provider = { preset = 'vllm', base_url = ... } })",
            server.base_url,
        )
        report = checkhealth(nvim)
        assert f"OK preset vllm: vLLM, {server.base_url}" in report
        assert "OK the server answers /models: 1 model" in report and "1 models" not in report
        assert "OK none needed ($VLLM_API_KEY is sent when set)" in report
        assert [r["path"] for r in server.requests] == ["/v1/models"]


@NEWEST_ONLY
def test_checkhealth_says_when_the_preset_s_server_does_not_answer(launch: Any) -> None:
    nvim = launch()
    # Nothing listens on port 9 of this machine: the local preset's server is not running.
    nvim.exec_lua(
        "require('bb7').setup({ provider = { preset = 'llamacpp', base_url = ... } })",
        "http://127.0.0.1:9/v1",
    )
    report = checkhealth(nvim)
    assert "OK preset llamacpp: llama.cpp server, http://127.0.0.1:9/v1" in report
    assert "WARNING the server does not answer /models: Could not reach 127.0.0.1:9" in report
    assert "Start the server, or set provider.base_url to where it runs" in report
    assert "OK none needed: the provider is a server on this machine" in report


@NEWEST_ONLY
def test_checkhealth_with_the_default_provider_checks_openrouter(
    launch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # setup() with no provider options: the check must still name the preset (an empty Lua
    # table is a JSON array to vim.json.encode, which the probe refused). The proxy on a port
    # nothing listens on keeps the test off the internet.
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    nvim = launch()
    nvim.exec_lua("require('bb7').setup()")
    report = checkhealth(nvim)
    assert "ERROR" not in report
    assert "OK preset (from the base URL) openrouter: OpenRouter, https://openrouter.ai/api/v1" in (
        report
    )
    assert "WARNING the server does not answer /models" in report
    assert "WARNING $OPENROUTER_API_KEY is not set" in report


def test_checkhealth_with_a_python_lacking_packages_says_why_in_one_line(
    launch: Any, tmp_path: Path
) -> None:
    nvim = launch()
    nvim.exec_lua("require('bb7').setup({ python = ... })", str(python_without_pynvim(tmp_path)))
    report = checkhealth(nvim)
    assert "ERROR msgspec is not installed" in report
    provider = report[report.index("bb7: provider") : report.index("bb7: API key")]
    assert provider.strip().splitlines() == [
        "bb7: provider ~",
        "- ❌ ERROR cannot check the provider: ModuleNotFoundError: No module named 'msgspec'",
    ]


@NEWEST_ONLY
def test_checkhealth_reports_an_empty_or_damaged_database(launch: Any, project: Path) -> None:
    nvim = launch()
    nvim.exec_lua("require('bb7').setup({ provider = 'ollama' })")
    db = project / ".bb7" / "bb7.db"
    db.parent.mkdir()
    db.write_bytes(b"")
    report = checkhealth(nvim)
    assert f"ERROR {db} is empty (0 bytes): the chats it held are gone" in report
    assert "Put a backup of it back, or delete it and run :BB7Init to start afresh" in report
    db.write_bytes(b"not a database at all" * 100)
    report = checkhealth(nvim)
    assert f"ERROR {db} is damaged: it is not an SQLite database" in report
    assert f"OK {db}" not in report
