"""The finished answer drawn again under the treesitter highlighter, replayed many times: the
stream appends markdown (a code block, a progress line), the screen redraws, the end of the
send brings the stored chat from the real host and the screen redraws again. Once this raised
"Invalid 'end_row': out of range" with a stack trace and a hit-enter prompt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from chat_state import chat_with_code
from chat_view_helpers import open_view, with_ui
from editor import messages, wait_for

ROUNDS = 40

REPLAY = """
local rounds = ...
local events = require('bb7.events')
local view = require('bb7.chat.view')
local buf = view.buf('conversation')
for i = 1, rounds do
  events.dispatch({
    { 'request_started', { request_id = 'r', model = 'test/m' } },
    { 'reasoning', { request_id = 'r', event = { text = 'think\\nmore ' .. i } } },
    { 'chunk', { request_id = 'r', event = { text = 'Streamed ' .. i .. ':\\n\\n```lua\\n' } } },
    { 'chunk', { request_id = 'r', event = { text = ('local x = 1\\n'):rep(i % 7 + 1) } } },
    { 'tool_progress', { request_id = 'r', event = { name = 'edit_file', path = 'a.py',
        arguments_length = i } } },
  })
  vim.cmd('redraw')
  local before = vim.api.nvim_buf_line_count(buf)
  events.dispatch({ { 'done', { request_id = 'r', ok = true } } })
  assert(vim.wait(3000, function() return not view.streaming()
    and vim.api.nvim_buf_line_count(buf) ~= before end, 2), 'no redraw in round ' .. i)
  vim.cmd('redraw')
end
return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
"""


def test_drawing_the_finished_answer_again_never_trips_the_highlighter(
    launch: Callable[..., Any], project: Path
) -> None:
    chat_with_code(project, "Highlights")
    nvim = with_ui(launch())
    open_view(nvim, "answer 2")
    active = nvim.exec_lua(
        "return vim.treesitter.highlighter.active[require('bb7.chat.view').buf('conversation')]"
        " ~= nil"
    )
    assert active, "the conversation is not highlighted by treesitter"
    lines = nvim.exec_lua(REPLAY, ROUNDS)
    assert lines[-1] == "```"  # the stored chat, as it was
    assert not any(line.startswith("Streamed") for line in lines)
    assert not nvim.api.get_mode()["blocking"], "a hit-enter prompt"  # before a request it holds
    history = messages(nvim)
    assert "end_row" not in history and "Error" not in history, history
    assert nvim.api.get_mode()["mode"] == "n"  # no hit-enter prompt
    wait_for(nvim, "vim.v.errmsg == ''")
