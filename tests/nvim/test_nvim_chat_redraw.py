"""Lines leaving the end of the conversation under the treesitter highlighter, replayed many
times: an answer streams (a code block, a progress line), the screen redraws, a chunk replaces
the progress line or the end of the send brings the stored chat from the real host, and the
screen redraws again. Once this raised "Invalid 'end_row': out of range" with a stack trace and
a hit-enter prompt.

Why: the highlighter parses as it redraws, but a parse it cannot finish in 3 ms (Neovim 0.11
and later) it finishes later, drawing meanwhile from the trees of its last finished parse. In a
long chat every parse takes longer (markdown's combined injections scan the whole buffer); when
lines left the end, those trees reach past it, and Neovim 0.12 refuses the highlight (0.11.4
cuts it to the line drawn). So the chat here is long, ends inside a code block, and the streamed
answer is highlighted in full before lines leave. Without `fresh_highlights` in
`conversation.lua` (a parse, the highlighter's kept states dropped) this fails on 0.12;
`test_nvim_chat_highlighter.py` forces a parse in flight instead, in a short chat."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from chat_state import Seeded
from chat_view_helpers import COLS, QUIET_NOTIFY, ROWS, open_view
from editor import messages, notifications

from waits import WAIT_MS

ROUNDS = 6
EXCHANGES = 120  # ~2,400 lines: a parse takes the highlighter more than its 3 ms
ANSWER = """answer {i}, with `code` and a [link](https://example.com/{i}):

```lua
local x = {i}
print(x)
```

- one *point*
- two **points**
"""

# The last answer was cut inside its code block (cancelled): the lines streamed after it are
# in that block for the parser, so the block the highlighter holds ends past the stored chat.
CUT = "Here it is:\n\n```python\ndef test_it():\n    assert it\n"

# Three kinds of rounds, each from a highlighter that drew the whole streamed answer:
# 1. the answer ends: the stored chat is drawn, shorter;
# 2. a chunk replaces the progress line (one line for its two), then the answer ends;
# 3. a chunk grows the answer, the highlighter starts a parse it cannot finish in time, then
#    the answer ends while that parse is pending.
REPLAY = """
local rounds, wait_ms = ...
local events = require('bb7.events')
local view = require('bb7.chat.view')
local buf = view.buf('conversation')
local win = view.win('conversation')
local parser = vim.treesitter.get_parser(buf)
local highlighter = vim.treesitter.highlighter.active[buf]
local function count() return vim.api.nvim_buf_line_count(buf) end
local function chunk(text) return { 'chunk', { request_id = 'r', event = { text = text } } } end
local pending = 0 -- rounds whose answer ended while the highlighter had a parse to finish
for i = 1, rounds do
  local kind = (i - 1) % 3 + 1
  -- Idle: no parse of the last round pending (private to the highlighter, 0.11 and 0.12).
  vim.wait(3000, function() return not (highlighter.parsing or {})[win] end, 1)
  events.handle({
    { 'request_started', { request_id = 'r', model = 'test/m' } },
    { 'reasoning', { request_id = 'r', event = { text = 'think\\nmore ' .. i } } },
    chunk('Streamed ' .. i .. ':\\n\\n```lua\\n'),
    chunk(('local x = 1\\n'):rep(20 + i)),
  })
  if kind ~= 3 then
    events.handle({ { 'tool_progress', { request_id = 'r', event = { name = 'edit_file',
        path = 'a.py', arguments_length = i } } } })
  end
  -- The streamed answer highlighted as the user saw it: the highlighter's trees end with it.
  parser:parse(true)
  vim.cmd('redraw')
  if kind ~= 1 then
    events.handle({ chunk('local y = 2\\n') })
    vim.cmd('redraw')
  end
  if highlighter.parsing[win] then pending = pending + 1 end
  local before = count()
  events.handle({ { 'done', { request_id = 'r', ok = true } } })
  assert(vim.wait(wait_ms, function() return not view.streaming() and count() < before end, 2),
    'no redraw in round ' .. i)
  vim.cmd('redraw')
  vim.notify('round ' .. i)
  vim.cmd('redraw')
end
return { vim.api.nvim_buf_get_lines(buf, 0, -1, false), pending }
"""


def test_drawing_the_finished_answer_again_never_trips_the_highlighter(
    launch: Callable[..., Any], project: Path
) -> None:
    seeded = Seeded(project)
    chat = seeded.chat("Highlights")
    for i in range(EXCHANGES):
        seeded.ask(chat, f"question {i} about `x` and *y*")
        seeded.answer(chat, ANSWER.format(i=i), reasoning="hm\nyes")
    seeded.ask(chat, "and the test?")
    seeded.answer(chat, CUT)
    seeded.store.close()
    nvim = launch()
    nvim.exec_lua(QUIET_NOTIFY)
    # The UI takes the messages (as noice does): an error is kept in the history instead of
    # waiting for Enter, which would hold the replay below.
    nvim.ui_attach(COLS, ROWS, rgb=True, ext_messages=True)
    nvim.exec_lua("require('bb7').setup()")
    open_view(nvim, "assert it")
    active = nvim.exec_lua(
        "return vim.treesitter.highlighter.active[require('bb7.chat.view').buf('conversation')]"
        " ~= nil"
    )
    assert active, "the conversation is not highlighted by treesitter"
    lines, pending = nvim.exec_lua(REPLAY, ROUNDS, WAIT_MS)
    assert pending > 0, "the highlighter finished every parse in time: make the chat longer"
    assert lines[-1] == "    assert it"  # the stored chat, as it was
    assert not any(line.startswith("Streamed") for line in lines)
    history = messages(nvim)
    assert "end_row" not in history and "Error" not in history, history
    assert notifications(nvim)[-1] == f"round {ROUNDS}"
    assert nvim.api.get_mode() == {"mode": "n", "blocking": False}
