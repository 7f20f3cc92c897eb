--- The conversation pane: a `markdown` buffer drawn from the host's rendering of the stored
--- chat (`bb7.chatview.conversation`: lines, line highlights, reasoning folds, message
--- anchors), and appended to cheaply while an answer streams: each chunk is one
--- `nvim_buf_set_text` at the end of the buffer, never a redraw of the whole chat. When the
--- answer ends, the stored chat is drawn again.
local M = {}

M.ns = vim.api.nvim_create_namespace('bb7_chat')
-- The progress line's highlight: cleared with the line (a mark on a deleted last line would
-- move onto the line above it).
local STATUS_NS = vim.api.nvim_create_namespace('bb7_chat_status')

-- Shapes shared with python/bb7/chatview/conversation.py.
local USER_HEADING = '## You'
local ASSISTANT_HEADING = '## Assistant'
local REASONING_TITLE = '> **Reasoning**'
local QUOTE = '> '

local H = {
  anchors = {}, -- { line, message_id, role } of every message, from the host
  live = nil, -- while a send runs: { phase, fold_start, tail, status_lines }
}

local function chat() return require('bb7.chat') end
local function buf() return chat().buf('conversation') end
local function win() return chat().win('conversation') end
local function notify(message, level) require('bb7.log').notify(message, level) end

function M.streaming() return H.live ~= nil end

--- True, with a message, while an answer streams: actions that change the chat wait for it.
function M.busy()
  if not M.streaming() then return false end
  local cancel = require('bb7.config').get().keys.cancel or ':BB7Cancel'
  notify(('an answer is streaming; wait for it or cancel it (%s)'):format(cancel), 'warn')
  return true
end

--- Shown for a closed reasoning fold.
function M.foldtext()
  local count = vim.v.foldend - vim.v.foldstart
  return ('▸ Reasoning (%d line%s)'):format(count, count == 1 and '' or 's')
end

local function edit(b, fn)
  vim.bo[b].modifiable = true
  local ok, err = pcall(fn)
  vim.bo[b].modifiable = false
  if not ok then error(err, 0) end
end

local function fold(w, first, last)
  if w and last >= first then
    vim.api.nvim_win_call(w, function() vim.cmd(('%d,%dfold'):format(first, last)) end)
  end
end

local function at_end(w, count) return w ~= nil and vim.api.nvim_win_get_cursor(w)[1] >= count end

--- Draws a `Rendered` from the host. The window keeps its place, or follows the end when
--- the cursor was on the last line.
function M.render(rendered)
  local b, w = buf(), win()
  local follow = w == nil or at_end(w, vim.api.nvim_buf_line_count(b))
  local view = w and not follow and vim.api.nvim_win_call(w, vim.fn.winsaveview)
  edit(b, function() vim.api.nvim_buf_set_lines(b, 0, -1, false, rendered.lines) end)
  vim.api.nvim_buf_clear_namespace(b, M.ns, 0, -1)
  vim.api.nvim_buf_clear_namespace(b, STATUS_NS, 0, -1)
  for _, hl in ipairs(rendered.highlights) do
    vim.api.nvim_buf_set_extmark(b, M.ns, hl[1], 0, { line_hl_group = hl[2] })
  end
  if #rendered.lines == 0 then
    vim.api.nvim_buf_set_extmark(b, M.ns, 0, 0, {
      virt_text = { { 'A new chat: write below, add files with :BB7Add', 'BB7ChatStatus' } },
    })
  end
  H.anchors = rendered.anchors
  H.folds = rendered.folds
  H.live = nil
  if w then
    M.refold()
    if follow then
      vim.api.nvim_win_set_cursor(w, { vim.api.nvim_buf_line_count(b), 0 })
      -- The last line at the bottom: no empty rows left by the shorter stored rendering.
      vim.api.nvim_win_call(w, function() vim.cmd('normal! zb') end)
    elseif view then
      vim.api.nvim_win_call(w, function() vim.fn.winrestview(view) end)
    end
  end
end

--- Folds the reasoning again (a window showing the buffer anew has no folds).
function M.refold()
  local w = win()
  if not w then return end
  vim.api.nvim_win_call(w, function() vim.cmd('normal! zE') end)
  for _, range in ipairs(H.folds or {}) do
    fold(w, range[1], range[2])
  end
end

-- Streaming ---------------------------------------------------------------------------------

local function line_count(b) return vim.api.nvim_buf_line_count(b) end

local function is_empty(b)
  return line_count(b) == 1 and vim.api.nvim_buf_get_lines(b, 0, 1, false)[1] == ''
end

local function scroll(w, follow, b)
  if follow and w then vim.api.nvim_win_set_cursor(w, { line_count(b), 0 }) end
end

--- Appends `lines` as a block (after one blank line); returns the 1-based first line.
local function add_block(lines, group, ns)
  local b, w = buf(), win()
  local count = line_count(b)
  local follow = w == nil or at_end(w, count)
  local first
  edit(b, function()
    if is_empty(b) then
      vim.api.nvim_buf_clear_namespace(b, M.ns, 0, -1) -- the empty chat's hint
      vim.api.nvim_buf_set_lines(b, 0, 1, false, lines)
      first = 1
    else
      vim.api.nvim_buf_set_lines(b, count, count, false, vim.list_extend({ '' }, lines))
      first = count + 2
    end
  end)
  if group then
    for line = first, first + #lines - 1 do
      vim.api.nvim_buf_set_extmark(b, ns or M.ns, line - 1, 0, { line_hl_group = group })
    end
  end
  if H.live then H.live.tail = #lines[#lines] end
  scroll(w, follow, b)
  return first
end

--- Appends `text` at the very end of the buffer: one `nvim_buf_set_text`.
local function append(text)
  local b, w = buf(), win()
  local last = line_count(b) - 1
  local follow = w == nil or at_end(w, last + 1)
  local col = H.live.tail
  local pieces = vim.split(text, '\n', { plain = true })
  edit(b, function() vim.api.nvim_buf_set_text(b, last, col, last, col, pieces) end)
  H.live.tail = #pieces == 1 and col + #pieces[1] or #pieces[#pieces]
  scroll(w, follow, b)
end

local function clear_status()
  local live = H.live
  if not live or live.status_lines == 0 then return end
  local b = buf()
  local count = line_count(b)
  vim.api.nvim_buf_clear_namespace(b, STATUS_NS, 0, -1)
  edit(b, function() vim.api.nvim_buf_set_lines(b, count - live.status_lines, count, false, {}) end)
  live.status_lines = 0
  local last = vim.api.nvim_buf_get_lines(b, -2, -1, false)[1] or ''
  live.tail = #last
end

--- A progress line at the end of the conversation (replaced by the next one, or the text).
local function set_status(text)
  if not H.live then return end
  clear_status()
  local empty = is_empty(buf())
  add_block({ text }, 'BB7ChatStatus', STATUS_NS)
  H.live.status_lines = empty and 1 or 2
end

local function close_reasoning()
  local live = H.live
  if live.phase ~= 'reasoning' then return end
  fold(win(), live.fold_start, line_count(buf()))
  live.phase = 'after_reasoning'
end

--- Shows the user's message at once, before the host has stored it.
function M.begin_exchange(text)
  H.live = { phase = 'sending', tail = 0, status_lines = 0 }
  add_block({ USER_HEADING }, 'BB7ChatUser')
  add_block(vim.split(vim.trim(text), '\n', { plain = true }))
  set_status('⋯ sending')
  chat().winbars()
end

--- Forgets a live answer (the view switched chats).
function M.reset() H.live = nil end

local function heading(model)
  return model ~= '' and (ASSISTANT_HEADING .. ' · ' .. model) or ASSISTANT_HEADING
end

--- What each event of a send does to the pane. `request_started` and `done` carry their
--- fields; the others (`Streamed`) carry the send loop's event (`bb7.chat.events`) under
--- `event`.
M.handlers = {
  request_started = function(p)
    if not H.live then H.live = { tail = 0, status_lines = 0 } end
    clear_status()
    H.live.phase = 'waiting'
    local title = heading(p.model or '') .. (p.repair and ' (repair)' or '')
    add_block({ title }, 'BB7ChatAssistant')
    set_status('⋯ waiting for the model')
    chat().winbars()
  end,
  reasoning = function(p)
    if not H.live then return end
    clear_status()
    if H.live.phase ~= 'reasoning' then
      H.live.fold_start = add_block({ REASONING_TITLE, QUOTE }, 'BB7ChatReasoning')
      H.live.phase = 'reasoning'
    end
    append((p.event.text:gsub('\n', '\n' .. QUOTE)))
  end,
  chunk = function(p)
    if not H.live then return end
    clear_status()
    close_reasoning()
    if H.live.phase ~= 'text' then
      add_block({ '' })
      H.live.phase = 'text'
    end
    append(p.event.text)
  end,
  tool_progress = function(p)
    local ev = p.event
    local where = ev.path ~= '' and (' ' .. ev.path) or ''
    set_status(('✎ %s%s · %d chars'):format(ev.name, where, ev.arguments_length))
  end,
  block = function(p)
    if not p.event.ok then set_status('⚠ ' .. p.event.message) end
  end,
  retrying = function(p)
    local ev = p.event
    set_status(('⟳ %s; retrying in %.1f s'):format(ev.reason or 'provider busy', ev.delay or 0))
  end,
  repairing = function(p)
    local count = #(p.event.errors or {})
    set_status(('✎ %d change(s) failed; asking the model to repair them'):format(count))
  end,
  -- The end of every send, refused, failed, cancelled or done: the stored chat again.
  done = function()
    H.live = nil
    if chat().is_open() then chat().refresh() end
  end,
  title = function(p)
    local shown = chat().state().chat
    if shown and shown.id == p.event.chat_id then
      shown.name = p.event.title
      chat().winbars()
    end
  end,
}

--- Listens to the send events the host forwards.
function M.subscribe()
  local events = require('bb7.events')
  for name, handler in pairs(M.handlers) do
    events.on(name, handler)
  end
end

-- Messages ------------------------------------------------------------------------------------

--- Moves to the next (1) or previous (-1) message heading.
function M.jump(direction)
  local w = win()
  if not w then return end
  local line = vim.api.nvim_win_get_cursor(w)[1]
  local target
  for _, anchor in ipairs(H.anchors) do
    if direction > 0 and anchor[1] > line then
      target = anchor[1]
      break
    elseif direction < 0 and anchor[1] < line then
      target = anchor[1]
    end
  end
  if target then vim.api.nvim_win_set_cursor(w, { target, 0 }) end
end

--- The message under the cursor, as { line, message_id, role }.
function M.message_at_cursor()
  local w = win()
  if not w then return nil end
  local line = vim.api.nvim_win_get_cursor(w)[1]
  local found
  for _, anchor in ipairs(H.anchors) do
    if anchor[1] > line then break end
    found = anchor
  end
  return found
end

local function user_message()
  if M.busy() then return nil end
  local anchor = M.message_at_cursor()
  if not anchor or anchor[3] ~= 'user' then
    notify('put the cursor on one of your messages (under "' .. USER_HEADING .. '")', 'warn')
    return nil
  end
  return anchor[2]
end

local function restored(err, value)
  local backend = require('bb7.backend')
  if err then return backend.report(err) end
  for _, warning in ipairs(value.warnings or {}) do
    notify(warning, 'warn')
  end
  chat().refresh({ draft = 'replace' })
  chat().focus('input')
end

--- Forks the chat from the user message under the cursor: a new chat with the history before
--- it, that message as the draft.
local function restore(method, id)
  require('bb7.chat.input').flush()
  local args = { message_id = id, buffers = chat().buffers() }
  require('bb7.backend').request(method, args, restored)
end

function M.fork()
  local id = user_message()
  if id then restore('fork_chat', id) end
end

--- Edits the user message under the cursor: the chat is cut before it (after a confirm) and
--- its text goes to the input.
function M.edit()
  local id = user_message()
  if not id then return end
  local question = 'Edit this message? It and everything after it leave the chat.'
  if vim.fn.confirm(question, '&Yes\n&No', 2) ~= 1 then return end
  restore('edit_message', id)
end

return M
