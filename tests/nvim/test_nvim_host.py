"""The host the plugin starts: lazily, queued until `ready`, events coalesced, crash -> restart."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

from editor import (
    NEWEST_ONLY,
    emit,
    python_without_pynvim,
    start_host,
    type_command,
    wait_for,
    wait_for_message,
)

from waits import until

REQUEST = """
  _G.replies = _G.replies or {}
  require('bb7.backend').request('ping', { payload = ... }, function(err, value)
    table.insert(_G.replies, { err = err, value = value })
  end)
  return require('bb7.backend').state()
"""


def test_calls_before_ready_are_queued_then_answered_in_order(nvim: Any, project: Path) -> None:
    assert nvim.exec_lua("return require('bb7.backend').state()") == "stopped"
    assert nvim.exec_lua(REQUEST, "first") == "starting"
    assert nvim.exec_lua(REQUEST, "second") == "starting"
    wait_for(nvim, "#_G.replies == 2")
    replies = nvim.exec_lua("return _G.replies")
    assert [r["value"]["payload"] for r in replies] == ["first", "second"]
    info = nvim.exec_lua("return require('bb7.backend').status().info")
    assert info["protocol"] == 2
    assert info["version"] == "0.1.0"
    assert info["python"] == str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "python")
    assert replies[0]["value"]["pid"] == info["pid"]


def test_a_ping_round_trip_carries_structured_payloads(nvim: Any) -> None:
    start_host(nvim)
    payload = {"text": "héllo", "lines": ["a", "b"], "n": 3, "ok": True}
    err, value = nvim.exec_lua(
        "return { require('bb7.backend').request_sync('ping', { payload = ... }) }", payload
    )
    assert err is None
    assert value["payload"] == payload


def test_events_from_a_worker_thread_arrive_in_order_in_few_batches(nvim: Any) -> None:
    nvim.exec_lua(
        "_G.got = {}; require('bb7.events').on('tick', function(p) table.insert(_G.got, p) end)"
    )
    start_host(nvim)
    before = nvim.exec_lua("return require('bb7.events').stats.flushes")
    started = time.monotonic()
    emit(nvim, *[("tick", i) for i in range(300)], interval_ms=1)
    wait_for(nvim, "#_G.got == 300")
    elapsed = time.monotonic() - started
    assert nvim.exec_lua("return _G.got") == list(range(300))
    flushes = nvim.exec_lua("return require('bb7.events').stats.flushes") - before
    # At most ~30 flushes per second (plus the first, which goes out at once).
    assert flushes <= elapsed * 30 + 2, (flushes, elapsed)
    assert flushes < 100


def test_a_crashed_host_is_reported_and_the_next_command_restarts_it(nvim: Any) -> None:
    first = start_host(nvim)
    os.kill(first["pid"], signal.SIGKILL)
    text = wait_for_message(nvim, "bb7: the Python host exited")
    assert "The next bb7 command restarts it." in text
    assert nvim.exec_lua("return require('bb7.backend').state()") == "stopped"
    type_command(nvim, "BB7ApplyAll")
    wait_for(nvim, "require('bb7.backend').is_ready()")
    second = nvim.exec_lua("return require('bb7.backend').status().info")
    assert second["pid"] != first["pid"]
    wait_for_message(nvim, "run :BB7Init there to start one")


def test_a_host_that_cannot_start_shows_its_last_error_lines(launch: Any, tmp_path: Path) -> None:
    nvim = launch()
    nvim.exec_lua("require('bb7').setup({ python = ... })", str(python_without_pynvim(tmp_path)))
    type_command(nvim, "BB7Init")
    text = wait_for_message(nvim, "bb7: the Python host exited (code 1)")
    assert "ModuleNotFoundError: No module named" in text


def test_with_a_screen_the_one_line_names_why_the_host_could_not_start(
    launch: Any, tmp_path: Path
) -> None:
    # With a UI a message is cut to its first line: that line must say why, not end at a colon.
    nvim = launch()
    nvim.ui_attach(100, 20, rgb=True)
    nvim.exec_lua("require('bb7').setup({ python = ... })", str(python_without_pynvim(tmp_path)))
    type_command(nvim, "BB7Init")
    wait_for(nvim, "#_G.notifications > 0", 10000)
    shown = nvim.exec_lua("return _G.notifications[1].msg")
    assert shown.startswith("bb7: the Python host exited (code 1): ModuleNotFoundError: No module")
    assert shown.endswith(" (:BB7Log)") and "\n" not in shown


@NEWEST_ONLY
def test_a_missing_interpreter_is_named_with_what_to_do(launch: Any) -> None:
    nvim = launch()
    nvim.exec_lua("require('bb7').setup({ python = '/nowhere/python' })")
    type_command(nvim, "BB7Init")
    text = wait_for_message(nvim, "bb7: `python` =")
    assert '"/nowhere/python" is not an executable; fix the option or remove it' in text
    assert nvim.exec_lua("return require('bb7.backend').state()") == "stopped"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_quitting_neovim_stops_the_host(launch: Any) -> None:
    nvim = launch()
    nvim.exec_lua("require('bb7').setup()")
    pid = start_host(nvim)["pid"]
    nvim.exec_lua("vim.api.nvim_exec_autocmds('VimLeavePre', {})")
    until(lambda: not alive(pid), "the host to exit")
    assert "exited" not in nvim.api.exec2("messages", {"output": True})["output"]


def test_a_host_that_never_says_ready_is_stopped_and_reported(launch: Any, tmp_path: Path) -> None:
    hanging = tmp_path / "hanging-python"
    hanging.write_text("#!/bin/sh\nexec sleep 30\n")  # an interpreter stuck at start-up
    hanging.chmod(0o755)
    nvim = launch()
    nvim.exec_lua("require('bb7').setup({ python = ... })", str(hanging))
    nvim.exec_lua("require('bb7.backend').READY_TIMEOUT_MS = 200")
    type_command(nvim, "BB7ApplyAll")
    wait_for_message(
        nvim, f"bb7: the host did not start in 200 ms; :BB7Log says why (Python: {hanging})"
    )
    assert nvim.exec_lua("return require('bb7.backend').state()") == "stopped"


@NEWEST_ONLY
def test_a_command_without_setup_applies_the_defaults(launch: Any) -> None:
    nvim = launch()
    type_command(nvim, "BB7ApplyAll")
    wait_for_message(nvim, "run :BB7Init there to start one")
    assert nvim.exec_lua("return require('bb7.config').current.diff_mode") == "search_replace_multi"
    assert nvim.api.get_hl(0, {"name": "BB7SignModified"}) == {"link": "Changed", "default": True}
