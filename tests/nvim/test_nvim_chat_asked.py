"""The model asks for files, the user consents: the request shows under the answer, and only
`gA` (read-only) or `gW` (writable) adds the files and says so in a new message; the answer
that asked stays."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from chat_view_helpers import (
    answered,
    conversation,
    files_panel,
    focus,
    send,
    view_on_server,
    wait_for_screen,
)

from llm_server import LLMServer, finish, stream, text_chunk, tool_call

FILES_BLOCK = "I need the helper.\n««« FILES\nwhy: c() is defined there\nc.py\n»»» FILES END\n"


def test_asked_files_are_added_only_by_the_key_which_sends_them_in_a_new_message(
    launch: Callable[..., Any], project: Path
) -> None:
    (project / "c.py").write_text("def c():\n    return 'from c'\n")
    with LLMServer() as server:
        nvim = view_on_server(launch(), project, server.base_url, "a.py")
        asked = {"files": [{"path": "b.py"}, {"path": "../outside.py"}], "why": "b is imported"}
        server.push(stream(*tool_call("request_files", asked), finish("tool_calls")))
        send(nvim, "Fix the import")
        rows = wait_for_screen(nvim, "The model asks for files: b is imported")
        assert any("../outside.py  not available: outside the project" in r for r in rows), rows
        assert any("gA adds them read-only, gW writable" in r for r in rows), "\n".join(rows)
        # Nothing is added and nothing is sent again without the key.
        assert len(server.chat_requests()) == 1
        assert not any("b.py" in line for line in files_panel(nvim))

        server.push(stream(text_chunk(FILES_BLOCK), finish()))
        focus(nvim, "conversation")
        nvim.input("gA")
        wait_for_screen(nvim, "The model asks for files: c() is defined there")
        second = server.chat_requests()[-1]["body"]
        assert "print('b')" in second and second.count("Fix the import") == 1
        assert "Here are the files you asked for: b.py." in second
        assert any("b.py" in line for line in files_panel(nvim))
        # The answer that asked stays: two messages of the user, each answered.
        assert conversation(nvim).count("## You") == 2

        server.push(stream(text_chunk("Fixed now."), finish()))
        nvim.input("gW")
        answered(nvim, "Fixed now.")
        requests = server.chat_requests()
        assert len(requests) == 3
        assert "return 'from c'" in requests[-1]["body"]
        assert " b.py ro " in requests[-1]["body"] and " c.py rw " in requests[-1]["body"]
        assert "c.py" not in second
