"""Commands with the real host: cancel with nothing streaming, the log. Every command and
mapping defined with its description, and the usage mistakes said without a host, are in
tests/lua/commands_spec.lua; completion and jumps from the status cache in status_spec.lua;
what each command does is in test_nvim_apply.py and test_nvim_send.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from editor import (
    NEWEST_ONLY,
    start_host,
    type_command,
    wait_for,
    wait_for_message,
)


@NEWEST_ONLY
def test_cancel_with_nothing_streaming_says_so(nvim: Any) -> None:
    type_command(nvim, "BB7Cancel")
    wait_for_message(nvim, "bb7: nothing to cancel")
    assert nvim.exec_lua("return require('bb7.backend').state()") == "stopped"
    start_host(nvim)
    type_command(nvim, "BB7Cancel")  # the host answers: nothing is streaming
    wait_for(nvim, "#_G.notifications == 2")
    assert nvim.exec_lua("return _G.notifications[2].msg") == "bb7: nothing to cancel"


def test_log_opens_the_log_file_in_a_tab(nvim: Any) -> None:
    start_host(nvim)
    type_command(nvim, "BB7Log")
    wait_for(nvim, "vim.fn.tabpagenr('$') == 2")
    assert nvim.current.buffer.name.endswith("nvim/bb7.log")
    assert any("host ready" in line for line in nvim.current.buffer[:])


@NEWEST_ONLY
def test_a_cut_message_is_logged_whole_at_its_own_level(nvim: Any) -> None:
    nvim.ui_attach(80, 24, rgb=True)  # a screen: long messages are cut to one line
    nvim.exec_lua("vim.env.BB7_LOG_LEVEL = 'warn'")
    log = nvim.exec_lua(
        "local log = require('bb7.log')"
        " log.notify('applied 1 of 2 pending changes\\nskipped a.py: local changes', 'info')"
        " log.notify('a short note, below the level', 'info')"
        " return log.path()"
    )
    lines = Path(log).read_text().splitlines()
    assert any(line.endswith("[lua] INFO applied 1 of 2 pending changes") for line in lines), lines
    assert "skipped a.py: local changes" in lines
    assert not any("ERROR" in line or "a short note" in line for line in lines), lines
