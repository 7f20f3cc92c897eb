"""The editor's own state and an edit in place, in one sitting on every Neovim (what they read
and draw goes through each version's API: diagnostics, virtual lines, the review), against the
scripted server: diagnostics set on a buffer (`vim.diagnostic.set`) reach the next request
with their path, line and message, and a changed one the request after; `:'<,'>BB7Edit` sends
exactly the selected lines and the instruction, shows the answer under the selection while it
streams (the buffer untouched) and ends in a review of that buffer whose `ga` puts the change
in it. Every message fits one line of an 80-column screen."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chat_state import Seeded
from chat_view_helpers import answered, files_panel, open_view, send, wait_for_screen, with_ui
from editor import notifications, type_command, wait_for, wait_for_notification

from bb7.files.fileid import entry_file_id
from llm_server import LLMServer, edits, finish, stream, text_chunk, tool_call

A = ["one = 1", "two = 2", "three = 3"]
DIAGNOSE = """
local buf = vim.fn.bufnr(...)
local ns = vim.api.nvim_create_namespace('bb7-test-lsp')
vim.diagnostic.set(ns, buf, { { lnum = 1, col = 0, severity = vim.diagnostic.severity.ERROR,
  message = select(2, ...), source = 'testls' } })
"""
REVIEWING = "require('bb7.review').active(vim.fn.bufnr('a.py'))"


def prompt_of(server: LLMServer, n: int) -> str:
    request = server.chat_requests()[n]["json"]
    return "\n".join(str(m["content"]) for m in request["messages"])


def test_diagnostics_reach_each_send_and_an_edit_in_place_is_previewed_then_reviewed(
    launch: Callable[..., Any], project: Path, server: LLMServer
) -> None:
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
    wait_for(nvim, "#vim.api.nvim_buf_get_lines(require('bb7.chat').buf('files'), 0, -1, 0) == 2")
    assert [r.split()[:2] for r in files_panel(nvim)] == [["R", "@diagnostics"], ["a.py"]]

    server.push(stream(text_chunk("Seen."), finish()))
    send(nvim, "What is wrong?")
    answered(nvim, "Seen.")
    assert "a.py:2:1: error [testls] two is undefined\n    2 | two = 2" in prompt_of(server, 0)
    nvim.exec_lua(DIAGNOSE, str(project / "a.py"), "two is unused")
    server.push(stream(text_chunk("Better."), finish()))
    send(nvim, "And now?")
    answered(nvim, "Better.")
    assert "a.py:2:1: error [testls] two is unused" in prompt_of(server, 1)

    # :BB7Edit on lines 2-3, in the file's window: the preview streams under them.
    nvim.exec_lua("require('bb7.chat').close()")
    assert nvim.current.buffer.name == str(project / "a.py")
    fid = entry_file_id("a.py", "\n".join(A) + "\n")
    call = tool_call("edit_file", edits(("a.py", fid, "two = 2\nthree = 3", "deux = 2\ntrois = 3")))
    # The answer waits with its new text written up to `deux = 2\ntr`.
    cut = next(i for i, step in enumerate(call) if "deux" in json.dumps(step)) + 1
    server.push(
        stream(text_chunk("Renaming."), *call[:cut], {"gate": "edit"}, *call[cut:], finish())
    )
    nvim.input("2GVj:BB7Edit in French<CR>")
    rows = wait_for_screen(nvim, "deux =")
    at = next(i for i, row in enumerate(rows) if "three = 3" in row)
    assert rows[at + 1].strip() == "bb7 edit · in French · writing"
    assert rows[at + 2].strip() == "Renaming." and rows[at + 3].strip().startswith("deux =")
    assert nvim.current.buffer[:] == A and not nvim.exec_lua("return vim.bo.modified")
    asked = server.chat_requests()[2]["json"]["messages"][-1]["content"]
    assert "Edit lines 2-3 of a.py: in French\n\n```\ntwo = 2\nthree = 3\n```\n" in asked
    # Its end: the change pending, reviewed at once in that window; `ga` takes it.
    server.open_gate("edit")
    wait_for(nvim, REVIEWING)
    rows = wait_for_screen(nvim, "trois = 3")
    assert not any("bb7 edit" in row for row in rows)
    assert nvim.current.buffer[:] == A
    nvim.input("2Gga")
    wait_for(nvim, f"not {REVIEWING}")
    assert nvim.current.buffer[:] == ["one = 1", "deux = 2", "trois = 3"]
    said = notifications(nvim)
    assert "bb7: editing a.py lines 2-3 in Inline edits" in said
    assert "bb7: reviewing a.py: 1 hunk" in said
    assert all(len(message) <= 80 and "\n" not in message for message in said), said
