"""A long chat in one sitting against the scripted server, on the newest Neovim only (the chat
view's Lua, its keys and bars, and the host's requests are the same on 0.11.4, whose API the
other sittings drive): a git diff part carries the unstaged hunk of a file the chat does not
hold and is removed like a file; a message queued while an answer streams is sent once, after
it (also with the view closed), and its request holds the first answer, while `<C-c>` in the
input takes one back; near the model's context limit the input's bar offers compacting by the
key as configured, which summarizes the older turns into one block drawn where they were,
dimmed below it, and `gX` on the summary sends them again."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import (
    answered,
    conversation,
    files_panel,
    focus,
    open_view,
    send,
    wait_for_conversation,
    with_ui,
)
from editor import VERSIONS, press, type_command, wait_for, wait_for_notification

from llm_server import DEFAULT_MODELS, LLMServer, finish, stream, text_chunk
from waits import until

BAR = "vim.wo[require('bb7.chat.view').win('input')].winbar"
STREAMING = "require('bb7.chat.view').streaming()"
# A model whose context a chat of a dozen turns nearly fills.
TIGHT = {
    **DEFAULT_MODELS[0],
    "id": "test/tight",
    "context_length": 3800,
    "top_provider": {"max_completion_tokens": None},
}


@pytest.fixture
def server_models() -> list[dict[str, Any]]:
    return [*DEFAULT_MODELS, TIGHT]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def prompt_of(server: LLMServer, n: int) -> str:
    request = server.chat_requests()[n]["json"]
    return "\n".join(str(m["content"]) for m in request["messages"])


def requests_made(server: LLMServer, count: int) -> int:
    until(lambda: len(server.chat_requests()) >= count, f"{count} requests")
    return len(server.chat_requests())


@pytest.mark.parametrize("nvim_binary", VERSIONS[-1:], indirect=True)
def test_a_diff_part_a_queued_message_and_compacting_a_long_chat(
    launch: Callable[..., Any], project: Path, server: LLMServer
) -> None:
    git(project, "init", "-q")
    git(project, "-c", "user.name=t", "-c", "user.email=t@e.x", "add", ".")
    git(project, "-c", "user.name=t", "-c", "user.email=t@e.x", "commit", "-qm", "one")
    (project / "b.py").write_text("print('bee')\n")  # unstaged, and not in the chat
    seeded = Seeded(project)
    chat = seeded.chat("Long")
    seeded.add(chat, "a.py")
    for n in range(6):
        seeded.ask(chat, f"question {n} about src/p{n}.py")
        seeded.answer(chat, f"answer {n}")
    seeded.store.close()
    setup = "{ provider = { base_url = ..., model = 'test/tight' }, keys = { compact = 'gz' } }"
    nvim = with_ui(launch(), setup, server.base_url)
    open_view(nvim, "answer 5")
    type_command(nvim, "BB7Add diff")
    wait_for_notification(nvim, "added @diff (")
    wait_for(nvim, "#vim.api.nvim_buf_get_lines(require('bb7.chat').buf('files'), 0, -1, 0) == 2")
    assert [r.split()[:2] for r in files_panel(nvim)] == [["R", "@diff"], ["a.py"]]

    # A message sent while the answer streams waits: the bar says so, nothing is sent.
    server.push(
        stream(text_chunk("The first "), {"gate": "one"}, text_chunk("answer."), finish()),
        stream(text_chunk("Second answer."), finish()),
    )
    send(nvim, "first")
    wait_for_conversation(nvim, "The first")
    assert "-print('b')\n+print('bee')" in prompt_of(server, 0)
    send(nvim, "second")
    wait_for(nvim, f"{BAR}:find('queued', 1, true) ~= nil")
    assert nvim.current.buffer[:] == [""]
    assert len(server.chat_requests()) == 1
    # Closing the view keeps the queue; the answer's end sends it, once.
    nvim.exec_lua("require('bb7.chat').close()")
    server.open_gate("one")
    assert requests_made(server, 2) == 2
    wait_for(nvim, "require('bb7').answer_state() == 'unread'")
    second = prompt_of(server, 1)
    assert "The first answer." in second and second.rindex("second") > second.index("first")

    # <C-c> in the input takes a queued message back; the answer streams on.
    open_view(nvim, "Second answer.")
    server.push(stream(text_chunk("Third "), {"gate": "three"}, text_chunk("answer."), finish()))
    send(nvim, "third")
    wait_for_conversation(nvim, "Third")
    send(nvim, "fourth, to edit")
    wait_for(nvim, f"{BAR}:find('queued', 1, true) ~= nil")
    focus(nvim, "input")
    press(nvim, "<C-c>")
    wait_for(nvim, f"{BAR}:find('queued', 1, true) == nil")
    assert nvim.current.buffer[:] == ["fourth, to edit"]
    assert nvim.exec_lua(f"return {STREAMING}")
    server.open_gate("three")
    answered(nvim, "Third answer.")
    assert len(server.chat_requests()) == 3
    type_command(nvim, "BB7Remove @diff")
    wait_for_notification(nvim, "removed @diff")

    # Near the context limit the bar offers compacting, by the key as configured.
    wait_for(nvim, f"{BAR}:find('context nearly full: gz compacts', 1, true) ~= nil")
    server.push(stream(text_chunk("Files: src/p0.py, src/p1.py. Rejected: regexes."), finish()))
    focus(nvim, "conversation")
    nvim.input("gz")
    wait_for_conversation(nvim, "## Summary of 10 messages (gX brings them back)")
    asked = server.chat_requests()[-1]["json"]["messages"][1]["content"]
    assert "question 4 about src/p4.py" in asked and "question 5" not in asked
    # Drawn where the summarized messages are: above them, and they are dimmed.
    lines = conversation(nvim)
    summary = lines.index("## Summary of 10 messages (gX brings them back)")
    assert lines[summary + 2] == "Files: src/p0.py, src/p1.py. Rejected: regexes."
    assert summary < lines.index("question 0 about src/p0.py") < lines.index("answer 5")
    dimmed = "#vim.api.nvim_buf_get_extmarks(require('bb7.chat').buf('conversation'), "
    dimmed += "require('bb7.chat.conversation').ns, 0, -1, { details = true, type = 'highlight' })"
    assert nvim.exec_lua(f"return {dimmed}") >= 10
    nvim.current.window.cursor = (summary + 1, 0)
    nvim.input("gX")
    wait_for_conversation(nvim, "## Summary of 10 messages (left out: gX sends it again)")
