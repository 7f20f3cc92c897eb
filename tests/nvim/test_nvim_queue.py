"""A message queued while an answer streams, in one sitting against the scripted server: the
input's bar says `queued`, nothing is sent before the answer ends, then the queued message is
sent once (also with the view closed), and its request holds the first answer; `<C-c>` in the
input takes a queued message back for editing."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import (
    answered,
    focus,
    open_view,
    send,
    wait_for_conversation,
    with_ui,
)
from editor import wait_for

from llm_server import LLMServer, finish, stream, text_chunk

BAR = "vim.wo[require('bb7.chat.view').win('input')].winbar"
STREAMING = "require('bb7.chat.view').streaming()"


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer() as running:
        yield running


def requests_made(server: LLMServer, count: int) -> int:
    """Waits (10 s at most) until the server has `count` chat requests; how many it has."""
    deadline = time.monotonic() + 10
    while len(server.chat_requests()) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return len(server.chat_requests())


def prompt_of(server: LLMServer, n: int) -> str:
    request = server.chat_requests()[n]["json"]
    return "\n".join(str(m["content"]) for m in request["messages"])


def test_a_queued_message_is_sent_once_after_the_answer_and_sees_it(
    launch: Callable[..., Any], project: Path, server: LLMServer
) -> None:
    seeded = Seeded(project)
    seeded.add(seeded.chat("Work"), "a.py")
    seeded.store.close()
    nvim = with_ui(
        launch(), "{ provider = { base_url = ..., model = 'test/tools-model' } }", server.base_url
    )
    open_view(nvim, "Context added: a.py")
    server.push(
        stream(text_chunk("The first "), {"gate": "one"}, text_chunk("answer."), finish()),
        stream(text_chunk("Second answer."), finish()),
    )
    send(nvim, "first")
    wait_for_conversation(nvim, "The first")
    send(nvim, "second")
    wait_for(nvim, f"{BAR}:find('queued', 1, true) ~= nil")
    assert nvim.current.buffer[:] == [""]
    assert len(server.chat_requests()) == 1
    # Closing the view keeps the queue; the answer's end sends it, once.
    nvim.exec_lua("require('bb7.chat').close()")
    server.open_gate("one")
    assert requests_made(server, 2) == 2
    wait_for(nvim, "require('bb7').answer_state() == 'unread'", 10000)
    second = prompt_of(server, 1)
    assert "The first answer." in second and second.rindex("second") > second.index("first")

    open_view(nvim, "Second answer.")
    server.push(stream(text_chunk("Third "), {"gate": "three"}, text_chunk("answer."), finish()))
    send(nvim, "third")
    wait_for_conversation(nvim, "Third")
    send(nvim, "fourth, to edit")
    wait_for(nvim, f"{BAR}:find('queued', 1, true) ~= nil")
    focus(nvim, "input")
    nvim.input("<C-c>")
    wait_for(nvim, f"{BAR}:find('queued', 1, true) == nil")
    assert nvim.current.buffer[:] == ["fourth, to edit"]
    assert nvim.exec_lua(f"return {STREAMING}")  # the answer streams on
    server.open_gate("three")
    answered(nvim, "Third answer.")
    assert len(server.chat_requests()) == 3


def test_gk_compacts_the_older_turns_and_gx_on_the_summary_brings_them_back(
    launch: Callable[..., Any], project: Path, server: LLMServer
) -> None:
    seeded = Seeded(project)
    chat = seeded.chat("Long")
    for n in range(6):
        seeded.ask(chat, f"question {n} about src/p{n}.py")
        seeded.answer(chat, f"answer {n}")
    seeded.store.close()
    nvim = with_ui(
        launch(), "{ provider = { base_url = ..., model = 'test/tools-model' } }", server.base_url
    )
    open_view(nvim, "answer 5")
    server.push(stream(text_chunk("Files: src/p0.py, src/p1.py. Rejected: regexes."), finish()))
    focus(nvim, "conversation")
    nvim.input("gK")
    wait_for_conversation(nvim, "## Summary of 4 messages (gX brings them back)")
    wait_for_conversation(nvim, "Rejected: regexes.")
    asked = server.chat_requests()[-1]["json"]["messages"][1]["content"]
    assert "question 1 about src/p1.py" in asked and "question 2" not in asked
    dimmed = "#vim.api.nvim_buf_get_extmarks(require('bb7.chat').buf('conversation'), "
    dimmed += "require('bb7.chat.conversation').ns, 0, -1, { details = true, type = 'highlight' })"
    assert nvim.exec_lua(f"return {dimmed}") >= 4  # the summarized messages, dimmed
    line = nvim.exec_lua(
        "for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do"
        " if l:find('## Summary', 1, true) then return i end end"
    )
    nvim.current.window.cursor = (line, 0)
    nvim.input("gX")
    wait_for_conversation(nvim, "## Summary of 4 messages (left out: gX sends it again)")
