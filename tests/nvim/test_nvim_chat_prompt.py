"""The whole prompt in sight: `gP` (`:BB7Prompt`) lists every part of the next request with its
tokens, and `x` on a file's line drops that file, so the next request goes without it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from chat_view_helpers import answered, focus, send, view_on_server, wait_for_screen

from llm_server import LLMServer, finish, stream, text_chunk


def test_the_prompt_view_lists_the_parts_and_x_drops_a_file_from_the_next_request(
    launch: Callable[..., Any], project: Path
) -> None:
    with LLMServer() as server:
        nvim = view_on_server(launch(), project, server.base_url, "a.py", "b.py")
        focus(nvim, "input")
        nvim.input("iWhat does b print?<Esc>")
        focus(nvim, "conversation")
        nvim.input("gP")
        rows = wait_for_screen(nvim, "file b.py")
        listed = "\n".join(rows)
        for part in ("system prompt", "file a.py", "your message and the file list"):
            assert part in listed, listed
        parts = nvim.exec_lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
        nvim.exec_lua("vim.fn.search('file a.py')")
        nvim.input("x")
        wait_for_screen(nvim, "Context removed: a.py")
        after = nvim.exec_lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
        assert not any("file a.py" in line for line in after) and len(after) == len(parts) - 1
        nvim.input("q")
        server.push(stream(text_chunk("It prints b."), finish()))
        send(nvim, "What does b print?")
        answered(nvim, "It prints b.")
        body = server.chat_requests()[-1]["body"]
        assert "print('b')" in body and "two = 2" not in body
