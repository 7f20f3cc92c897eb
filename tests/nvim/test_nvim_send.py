"""Talking to the model from Neovim, `require('bb7').send()`, against a real OpenAI-compatible
server on 127.0.0.1: a turn ending in a pending change, cancel mid-stream, a failed edit
repaired by the next send, and the model picker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from editor import NEWEST_ONLY, notifications, run, screen, signs, wait_for, wait_for_status

from bb7.files.fileid import entry_file_id
from llm_server import LLMServer, edits, finish, stream, text_chunk, tool_call

A_TEXT = "one = 1\ntwo = 2\nthree = 3\n"

# Every event a send produces, kept in order per name, and the User autocmds.
LISTEN = """
  _G.got = {}
  for _, name in ipairs({ 'request_started', 'chunk', 'tool_progress', 'diff_error', 'done' }) do
    _G.got[name] = {}
    require('bb7.events').on(name, function(p) table.insert(_G.got[name], p) end)
  end
  _G.user = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = { 'BB7RequestStarted', 'BB7ResponseDone' },
    callback = function(ev) table.insert(_G.user, ev.match) end,
  })
"""


@pytest.fixture
def chat(ready: Any, server: LLMServer) -> Any:
    """The `ready` editor talking to the local server; a.py and b.py are in the chat."""
    ready.exec_lua(
        # No titles: their request would take the next scripted response.
        "require('bb7').setup({ status = { debounce_ms = 20 }, titles = { enabled = false },"
        " provider = { base_url = ..., model = 'test/tools-model' } })",
        server.base_url,
    )
    ready.exec_lua(LISTEN)
    return ready


def send(nvim: Any, text: str) -> str:
    request_id: str = nvim.exec_lua("return require('bb7').send(...)", text)
    return request_id


def done(nvim: Any, count: int = 1) -> dict[str, Any]:
    wait_for(nvim, f"#_G.got.done == {count}")
    last: dict[str, Any] = nvim.exec_lua(f"return _G.got.done[{count}]")
    return last


def test_a_turn_with_a_tool_call_edit_ends_in_a_pending_change_on_screen(
    chat: Any, server: LLMServer, project: Path
) -> None:
    fid = entry_file_id("a.py", A_TEXT)
    server.push(
        stream(
            text_chunk("Making two "),
            text_chunk("twenty-two."),
            *tool_call("edit_file", edits(("a.py", fid, "two = 2", "two = 22"))),
            finish("tool_calls"),
        )
    )
    request_id = send(chat, "Make two 22")
    outcome = done(chat)
    assert outcome["request_id"] == request_id and outcome["ok"] is True
    assert outcome["files"] == [str(project / "a.py")]
    wait_for_status(chat, project / "a.py", "M")
    assert signs(chat) == [[1, "M "], [2, "│ "]]
    rows = screen(chat)
    # ● : the answer ended with no chat view open, unread.
    assert rows[0].startswith("M   one = 1") and "a.py bb7:M ●" in rows
    got = chat.exec_lua("return _G.got")
    assert "".join(c["event"]["text"] for c in got["chunk"]) == "Making two twenty-two."
    assert got["request_started"][0]["model"] == "test/tools-model"
    assert got["tool_progress"][-1]["event"]["path"] == "a.py"
    assert chat.exec_lua("return _G.user") == ["BB7RequestStarted", "BB7ResponseDone"]
    (request,) = server.chat_requests()
    assert request["json"]["model"] == "test/tools-model"
    assert "two = 2" in request["body"]  # a.py's snapshot went with it
    assert (project / "a.py").read_text() == A_TEXT  # nothing applied yet


def test_cancel_stops_a_streaming_answer_and_keeps_no_change(
    chat: Any, server: LLMServer, project: Path
) -> None:
    server.push(stream(text_chunk("Let me think"), {"stall": 30}))
    send(chat, "Take your time")
    wait_for(chat, "#_G.got.chunk == 1")
    chat.command("BB7Cancel")
    outcome = done(chat)
    assert (outcome["ok"], outcome["kind"]) == (False, "cancelled")
    assert server.wait_for_disconnect(5) is not None  # the connection was closed
    assert any("cancelled" in n for n in notifications(chat))
    assert chat.exec_lua("return require('bb7').status()") == ""


@NEWEST_ONLY
def test_a_failed_edit_is_reported_and_repaired_by_the_next_send(
    chat: Any, server: LLMServer, project: Path
) -> None:
    fid = entry_file_id("a.py", A_TEXT)
    wrong = edits(("a.py", fid, "two = 3", "two = 22"))
    server.push(stream(text_chunk("Done."), *tool_call("edit_file", wrong), finish("tool_calls")))
    send(chat, "Make two 22")
    failed = done(chat)
    assert failed["ok"] is False and "a.py" in failed["errors"][0]
    (diff_error,) = chat.exec_lua("return _G.got.diff_error")
    assert diff_error["errors"][0]["kind"] == "not_found" and diff_error["retry_saved"] is True
    shown = notifications(chat)[-1]
    assert "could not be applied" in shown and "next message sends the errors" in shown
    assert chat.exec_lua("return require('bb7').status()") == ""
    right = edits(("a.py", fid, "two = 2", "two = 22"))
    server.push(stream(text_chunk("Fixed."), *tool_call("edit_file", right), finish("tool_calls")))
    send(chat, "Please fix it")
    assert done(chat, 2)["ok"] is True
    wait_for_status(chat, project / "a.py", "M")
    retry = server.chat_requests()[1]["body"]
    assert "two = 3" in retry  # the failed edit went back to the model with the error


@NEWEST_ONLY
def test_the_model_picker_lists_tool_capable_models_first_and_sets_the_chats_model(
    chat: Any, server: LLMServer
) -> None:
    chat.exec_lua(
        "vim.ui.select = function(items, opts, on_choice)"
        "  _G.picker = { ids = vim.tbl_map(function(m) return m.id end, items),"
        "    prompt = opts.prompt, first = opts.format_item(items[1]) }"
        "  on_choice(items[2])"
        " end"
    )
    chat.command("BB7Model")
    wait_for(chat, "_G.picker ~= nil")
    picker = chat.exec_lua("return _G.picker")
    # The models, tool-capable first, then the item that marks a favourite (no model id).
    assert picker["ids"] == ["test/tools-model", "test/plain-model", ""]
    assert picker["prompt"] == "bb7 model (now test/tools-model)"
    assert picker["first"] == "test/tools-model  (128k context, $3.00/M in)"
    wait_for(chat, "_G.notifications[#_G.notifications].msg:find('test/plain-model', 1, true)")
    server.push(stream(text_chunk("Hi"), finish()))
    send(chat, "Hello")
    done(chat)
    assert server.chat_requests()[-1]["json"]["model"] == "test/plain-model"
    assert "model of" in run(chat, "BB7Model test/tools-model")


@NEWEST_ONLY
def test_without_an_api_key_the_message_says_how_to_set_one_and_offers_paste(ready: Any) -> None:
    ready.exec_lua(LISTEN)
    # The default provider (OpenRouter) and no key: the send fails before any request.
    send(ready, "Hello")
    outcome = done(ready)
    assert (outcome["ok"], outcome["kind"]) == (False, "auth")
    shown = notifications(ready)[-1]
    assert "OPENROUTER_API_KEY is not set" in shown and "export OPENROUTER_API_KEY=" in shown
    assert ":BB7Paste applies an answer pasted from any web chat" in shown


@NEWEST_ONLY
def test_the_reasoning_effort_switched_at_runtime_goes_with_the_next_message(
    ready: Any, server: LLMServer
) -> None:
    ready.exec_lua(
        "require('bb7').setup({ titles = { enabled = false }, provider = { base_url = ...,"
        " model = 'test/tools-model', reasoning_effort = 'low' } })",
        server.base_url,
    )
    ready.exec_lua(LISTEN)
    server.push(stream(text_chunk("one"), finish()), stream(text_chunk("two"), finish()))
    send(ready, "First")
    done(ready)
    ready.exec_lua("require('bb7.reasoning').set('high', function(e) _G.effort_set = e end)")
    wait_for(ready, "_G.effort_set == 'high'")
    assert "reasoning effort of" in notifications(ready)[-1]
    send(ready, "Second")
    done(ready, 2)
    efforts = [r["json"].get("reasoning_effort") for r in server.chat_requests()]
    assert efforts == ["low", "high"]


def test_add_again_refreshes_and_an_edit_between_two_turns_goes_as_a_diff(
    chat: Any, server: LLMServer, project: Path
) -> None:
    lines = [f"n{i} = {i}" for i in range(300)]
    chat.exec_lua("vim.api.nvim_buf_set_lines(0, 0, -1, true, ...)", lines)
    chat.command("write")
    assert run(chat, "BB7Add").startswith("bb7: refreshed a.py (writable) in ")
    server.push(stream(text_chunk("It is 2."), finish()))
    send(chat, "What is n2?")
    done(chat)
    chat.exec_lua("vim.api.nvim_buf_set_lines(0, 2, 3, true, { \"n2 = 'TWO'\" })")  # unsaved
    wait_for_status(chat, project / "a.py", "~")
    server.push(stream({"gate": "answer"}, text_chunk("Now 'TWO'."), finish()))
    send(chat, "And now?")
    wait_for_status(chat, project / "a.py", "")  # the `~` goes as the message is sent
    server.open_gate("answer")
    assert done(chat, 2)["ok"] is True
    before = "".join(line + "\n" for line in lines)
    edited = before.replace("n2 = 2\n", "n2 = 'TWO'\n")
    new, old = entry_file_id("a.py", edited), entry_file_id("a.py", before)
    prompt = server.chat_requests()[1]["json"]["messages"][1]["content"]
    assert f"path=a.py file_id={new} prev_file_id={old} by=user" in prompt
    assert "-n2 = 2\n+n2 = 'TWO'\n" in prompt and prompt.count("n30 = 30") == 1
    assert f"- {new} a.py rw original" in prompt
    wait_for_status(chat, project / "a.py", "")  # nor after it


C_TEXT = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"


def test_an_answer_with_an_edit_matching_two_places_offers_both_in_the_review(
    chat: Any, server: LLMServer, project: Path
) -> None:
    (project / "c.py").write_text(C_TEXT)
    run(chat, "BB7Add c.py")
    # Three edits: a.py's and b.py's match one place each, c.py's `    x = 1` two (lines 2, 7).
    server.push(
        stream(
            text_chunk("Done."),
            *tool_call(
                "edit_file",
                edits(
                    ("a.py", entry_file_id("a.py", A_TEXT), "two = 2", "two = 22"),
                    ("c.py", entry_file_id("c.py", C_TEXT), "    x = 1", "    x = 2"),
                    ("b.py", entry_file_id("b.py", "print('b')\n"), "'b'", "'bb'"),
                ),
            ),
            finish("tool_calls"),
        )
    )
    send(chat, "x is 2 in b")
    assert done(chat)["ok"] is True
    for name in ("a.py", "b.py", "c.py"):
        wait_for_status(chat, project / name, "M")  # the rest of the answer pends as usual
    chat.command("edit c.py")
    assert chat.exec_lua("return require('bb7.status').statusline()") == "bb7:M choose"
    said = run(chat, "BB7Apply")
    assert "c.py: an edit waits for a choice of place; :BB7Review" in said
    run(chat, "BB7Review")
    wait_for(chat, "require('bb7.review').active(0)")
    assert "reviewing c.py: 2 hunks; 1 edit to place" in "\n".join(notifications(chat))
    rows = screen(chat)
    assert any("bb7 hunk 1/2: place 1 of 2 of one edit" in row for row in rows), rows
    chat.input("]h]h")  # the first place, in a(), then the second, in b()
    wait_for(chat, "vim.fn.line('.') == 7")
    chat.input("ga")
    wait_for(chat, "vim.api.nvim_buf_get_lines(0, 6, 7, false)[1] == '    x = 2'")
    assert (
        chat.current.buffer[:]
        == C_TEXT.replace("b():\n    x = 1", "b():\n    x = 2").split("\n")[:-1]
    )
    chat.command("write")
    assert (project / "c.py").read_text() == C_TEXT.replace("b():\n    x = 1", "b():\n    x = 2")
    wait_for_status(chat, project / "c.py", "")
    assert (project / "a.py").read_text() == A_TEXT  # its change still pending, not written
