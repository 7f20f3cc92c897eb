"""The `:UpdateRemotePlugins` shim serves the same handlers and events as bb7's own host."""

from __future__ import annotations

from typing import Any

from editor import ROOT, emit, wait_for

HOST_PROG = f"let g:python3_host_prog = '{ROOT / '.venv' / 'bin' / 'python'}'"


def test_the_rplugin_shim_answers_requests_and_pushes_events(launch: Any) -> None:
    first = launch(cmd=(HOST_PROG,))
    first.command("UpdateRemotePlugins")
    nvim = launch(cmd=(HOST_PROG,))  # the manifest is read at start-up
    nvim.exec_lua("require('bb7').setup({ transport = 'rplugin' })")
    err, pong = nvim.exec_lua(
        "return { require('bb7.backend').request_sync('ping', { payload = 'via rplugin' }) }"
    )
    assert err is None
    assert pong["payload"] == "via rplugin"
    assert nvim.exec_lua("return #vim.api.nvim_list_chans()") > 1  # the shared python3 host
    nvim.exec_lua(
        "_G.got = {}; require('bb7.events').on('x', function(p) _G.got[#_G.got+1] = p end)"
    )
    emit(nvim, ("x", 1), ("x", 2))
    wait_for(nvim, "#_G.got == 2")
    err = nvim.exec_lua("return require('bb7.backend').request_sync('apply', { path = 'a.py' })")
    assert err["kind"] == "not_available"
