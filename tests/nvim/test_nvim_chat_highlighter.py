"""The conversation's treesitter highlighter while lines go away under it (issue 15 item 8).

On a loaded machine the highlighter's parse takes longer than its time slice and goes on in
the background; until it ends, each redraw uses the highlights of the trees it had. When the
finished answer is drawn shorter than the stream, or the progress line is removed, those reach
past the end of the buffer: "Invalid 'end_row': out of range", a stack trace and a hit-enter
prompt. These tests put the highlighter in that state (a parse in flight for the window, which
the load of a full CI run gave once in the replay test) and check the next redraw is clean."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_state import chat_with_code
from chat_view_helpers import open_view, with_ui

from waits import WAIT_MS

# The stream leaves a code fence open, as a streaming answer does mid-block: the open block
# reaches to the last line of the buffer.
STREAM = """
local events = require('bb7.events')
local view = require('bb7.chat.view')
local buf, win = view.buf('conversation'), view.win('conversation')
events.handle({
  { 'request_started', { request_id = 'r', model = 'test/m' } },
  { 'chunk', { request_id = 'r', event = { text = 'Streamed:\\n\\n```lua\\n'
    .. ('local x = 1\\n'):rep(30) } } },
  { 'tool_progress', { request_id = 'r', event = { name = 'edit_file', path = 'a.py',
    arguments_length = 10 } } },
})
vim.cmd('redraw')
local highlighter = vim.treesitter.highlighter.active[buf]
assert(highlighter, 'the conversation is not highlighted by treesitter')
-- A parse still in flight: the highlighter keeps drawing from the states it has.
highlighter.parsing[win] = true
"""

FINISH = """
local wait_ms = ...
local events = require('bb7.events')
local view = require('bb7.chat.view')
local buf = view.buf('conversation')
local before = vim.api.nvim_buf_line_count(buf)
events.handle({ { 'done', { request_id = 'r', ok = true } } })
assert(vim.wait(wait_ms, function() return not view.streaming()
  and vim.api.nvim_buf_line_count(buf) < before end, 2), 'the stored chat was not drawn')
vim.cmd('redraw')
"""

# The text goes on after the progress line: the line is removed.
RESUME = """
local events = require('bb7.events')
events.handle({ { 'chunk', { request_id = 'r', event = { text = 'local y = 2\\n' } } } })
vim.cmd('redraw')
"""


def _clean(nvim: Any) -> None:
    mode = nvim.api.get_mode()  # answered even at a hit-enter prompt
    assert not mode["blocking"], "a hit-enter prompt"
    history: str = nvim.api.exec2("messages", {"output": True})["output"]
    assert "end_row" not in history and "Error" not in history, history


@pytest.mark.parametrize("step", [FINISH, RESUME], ids=["finished answer", "progress line"])
def test_lines_removed_while_a_parse_is_in_flight_redraw_cleanly(
    launch: Callable[..., Any], project: Path, step: str
) -> None:
    chat_with_code(project, "Highlights")
    nvim = with_ui(launch())
    open_view(nvim, "answer 2")
    nvim.exec_lua(STREAM)
    nvim.exec_lua(step, WAIT_MS)
    _clean(nvim)
    lines = nvim.exec_lua(
        "return vim.api.nvim_buf_get_lines(require('bb7.chat.view').buf('conversation'), 0, -1,"
        " false)"
    )
    if step is FINISH:
        assert lines[-1] == "```" and not any(line.startswith("Streamed") for line in lines)
    else:
        assert "local y = 2" in lines and "Streamed:" in lines
