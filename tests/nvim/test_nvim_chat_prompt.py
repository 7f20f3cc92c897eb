"""The whole prompt in sight: `gP` (`:BB7Prompt`) lists every part of the next request with its
tokens, the history one message at a time; `x` on a file's or section's line drops it, on a
message's line excludes it (as `gX` does in the conversation), so the next request goes without
it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chat_state import Seeded
from chat_view_helpers import (
    answered,
    conversation,
    focus,
    open_view,
    send,
    view_on_server,
    wait_for_conversation,
    wait_for_screen,
    with_ui,
)
from editor import wait_for, wait_for_notification

from bb7.refusal import Problem
from bb7.state import context
from bb7.text.tokens import estimate_tokens
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
        wait_for_conversation(nvim, "Context removed: a.py")  # under the float
        after = nvim.exec_lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
        assert not any("file a.py" in line for line in after) and len(after) == len(parts) - 1
        nvim.input("q")
        server.push(stream(text_chunk("It prints b."), finish()))
        send(nvim, "What does b print?")
        answered(nvim, "It prints b.")
        body = server.chat_requests()[-1]["body"]
        assert "print('b')" in body and "two = 2" not in body


# Each message of the history as the request carries it.
BLOCK = re.compile(r"@msg n=\d+ role=\w+\n.*?@end msg\n", re.S)


def prompt_parts(nvim: Any, text: str) -> dict[str, Any]:
    """What the prompt view draws for `text`, from the host (exact token counts)."""
    nvim.exec_lua(
        "_G.parts = nil require('bb7.backend').request('prompt_parts', { text = ... },"
        " function(err, found) _G.parts = err or found end)",
        text,
    )
    wait_for(nvim, "_G.parts ~= nil")
    found: dict[str, Any] = nvim.exec_lua("return _G.parts")
    return found


def test_a_message_excluded_in_the_prompt_view_or_with_gx_is_absent_from_the_next_request(
    launch: Callable[..., Any], project: Path
) -> None:
    with LLMServer() as server:
        seeded = Seeded(project)
        chat = seeded.chat("Work")
        seeded.add(chat, "b.py")
        added = context.add(seeded.store, chat, context.Target("a.py", 2, 3))
        assert not isinstance(added, Problem)
        for n in ("first", "second", "third"):
            seeded.ask(chat, f"Q {n}?")
            seeded.answer(chat, f"A {n}.")
        seeded.store.close()
        nvim = with_ui(launch(), "{ provider = { base_url = ..., model = 'test/tools-model' } }",
                       server.base_url)  # fmt: skip
        open_view(nvim, "A third.")
        nvim.input("gP")
        wait_for_screen(nvim, "you: Q first?")
        listed = nvim.exec_lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
        assert [line.split(":")[0].strip() for line in listed if ": " in line][-6:] == [
            "you", "answer", "you", "answer", "you", "answer"
        ]  # fmt: skip
        # x on a section drops it; x on your message excludes it with its answer.
        nvim.exec_lua("vim.fn.search('file a.py:2-3')")
        nvim.input("x")
        wait_for_notification(nvim, "removed a.py:2-3 from Work")
        nvim.exec_lua("vim.fn.search('you: Q first?')")
        nvim.input("x")
        wait_for_notification(nvim, "excluded from future requests, with its answer")
        wait_for_screen(nvim, "(excluded) you: Q first?")
        nvim.input("q")
        # gX on an answer in the conversation excludes it alone.
        focus(nvim, "conversation")
        nvim.exec_lua("vim.fn.search('A second.')")
        nvim.input("gX")
        wait_for_notification(nvim, "excluded from future requests: ")
        wait_for_conversation(nvim, "## Assistant · excluded\n\nA second.")
        shown = conversation(nvim)
        assert shown.count("## You · excluded") == 1 and shown.count("## Assistant · excluded") == 2
        dimmed = nvim.exec_lua(
            "local ns = require('bb7.chat.conversation').ns"
            " local marks = vim.api.nvim_buf_get_extmarks(require('bb7.chat').buf('conversation'),"
            "   ns, 0, -1, { details = true })"
            " return vim.tbl_map(function(m) return { m[2] + 1, m[4].end_row + 1 } end,"
            "   vim.tbl_filter(function(m) return m[4].hl_group == 'BB7Excluded' end, marks))"
        )
        assert [shown[first - 1] for first, _ in dimmed] == [
            "## You · excluded", "## Assistant · excluded", "## Assistant · excluded"
        ]  # fmt: skip
        # The next request: the parts the view lists are what the server gets.
        found = prompt_parts(nvim, "Q fourth?")
        server.push(stream(text_chunk("A fourth."), finish()))
        send(nvim, "Q fourth?")
        answered(nvim, "A fourth.")
        body = json.loads(server.chat_requests()[-1]["body"])
        user = body["messages"][1]["content"]
        for gone in ("Q first?", "A first.", "A second."):
            assert gone not in user
        latest = user.split("# latest")[1]  # the files now: the section is gone from them
        assert " b.py rw original" in latest and " a.py " not in latest
        blocks = BLOCK.findall(user)
        assert [b.split("\n")[1] for b in blocks] == ["Q second?", "Q third?", "A third."]
        messages = [p for p in found["parts"] if p["message"] and not p["excluded"]]
        assert [p["tokens"] for p in messages] == [estimate_tokens(b) for b in blocks]
        assert found["tokens"] == sum(p["tokens"] for p in found["parts"] if not p["excluded"])
        left_out = [p["line"].split("  ")[0] for p in found["parts"] if p["excluded"]]
        assert left_out == ["(excluded) you: Q first?", "(excluded) answer: A first.",
                            "(excluded) answer: A second."]  # fmt: skip
        # Again: your first message and its answer are back.
        focus(nvim, "conversation")
        nvim.exec_lua("vim.fn.search('Q first?')")
        nvim.input("gX")
        wait_for_notification(nvim, "included again in future requests, with its answer")
        wait_for_conversation(nvim, "## You\n\nQ first?")
        again = prompt_parts(nvim, "")
        assert [p["line"].split("  ")[0] for p in again["parts"] if p["excluded"]] == [
            "(excluded) answer: A second."
        ]
