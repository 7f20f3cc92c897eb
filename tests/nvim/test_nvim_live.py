"""Live context parts in one sitting, against the scripted server: diagnostics set on a buffer
reach the next request (and a changed one the request after), a git diff part carries the
unstaged hunk of a file the chat does not hold, both show in the files panel with their tokens,
and one is removed like a file."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chat_state import Seeded
from chat_view_helpers import answered, files_panel, open_view, send, with_ui
from editor import type_command, wait_for, wait_for_notification

from llm_server import LLMServer, finish, stream, text_chunk

DIAGNOSE = """
local buf = vim.fn.bufnr(...)
local ns = vim.api.nvim_create_namespace('bb7-test-lsp')
vim.diagnostic.set(ns, buf, { { lnum = 1, col = 0, severity = vim.diagnostic.severity.ERROR,
  message = select(2, ...), source = 'testls' } })
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def prompt_of(server: LLMServer, n: int) -> str:
    request = server.chat_requests()[n]["json"]
    return "\n".join(str(m["content"]) for m in request["messages"])


def test_diagnostics_and_a_diff_are_read_again_at_each_send(
    launch: Callable[..., Any], project: Path, server: LLMServer
) -> None:
    git(project, "init", "-q")
    git(project, "-c", "user.name=t", "-c", "user.email=t@e.x", "add", ".")
    git(project, "-c", "user.name=t", "-c", "user.email=t@e.x", "commit", "-qm", "one")
    (project / "b.py").write_text("print('bee')\n")  # unstaged, and not in the chat
    seeded = Seeded(project)
    seeded.add(seeded.chat("Work"), "a.py")
    seeded.store.close()
    nvim = with_ui(
        launch(), "{ provider = { base_url = ..., model = 'test/tools-model' } }", server.base_url
    )
    nvim.command("edit a.py")
    nvim.exec_lua(DIAGNOSE, str(project / "a.py"), "two is undefined")
    open_view(nvim, "Context added: a.py")
    type_command(nvim, "BB7Add diagnostics")
    wait_for_notification(nvim, "added @diagnostics (")
    type_command(nvim, "BB7Add diff")
    wait_for_notification(nvim, "added @diff (")
    wait_for(nvim, "#vim.api.nvim_buf_get_lines(require('bb7.chat').buf('files'), 0, -1, 0) == 3")
    rows = files_panel(nvim)
    assert [r.split()[:2] for r in rows] == [["R", "@diagnostics"], ["R", "@diff"], ["a.py"]]

    server.push(stream(text_chunk("Seen."), finish()))
    send(nvim, "What is wrong?")
    answered(nvim, "Seen.")
    first = prompt_of(server, 0)
    assert "a.py:2:1: error [testls] two is undefined\n    2 | two = 2" in first
    assert "-print('b')\n+print('bee')" in first

    nvim.exec_lua(DIAGNOSE, str(project / "a.py"), "two is unused")
    server.push(stream(text_chunk("Better."), finish()))
    send(nvim, "And now?")
    answered(nvim, "Better.")
    second = prompt_of(server, 1)
    assert "a.py:2:1: error [testls] two is unused" in second

    type_command(nvim, "BB7Remove @diff")
    wait_for_notification(nvim, "removed @diff")
    wait_for(nvim, "#vim.api.nvim_buf_get_lines(require('bb7.chat').buf('files'), 0, -1, 0) == 2")
