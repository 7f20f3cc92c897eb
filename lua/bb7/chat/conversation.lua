--- The conversation pane: a `markdown` buffer drawn from the host's rendering of the stored
--- chat (`bb7.chatview.conversation`: lines, line highlights, folds, message anchors, and the
--- heading shapes), and appended to cheaply while an answer streams: each chunk is one
--- `nvim_buf_set_text` at the end of the buffer, never a redraw of the whole chat. When the
--- answer ends, the stored chat is drawn again, changing only the lines that differ.
local M = {}

local view = require('bb7.chat.view')
local ui = require('bb7.chat.ui')

M.ns = vim.api.nvim_create_namespace('bb7_chat')
-- The progress line's highlight: cleared with the line (a mark on a deleted last line would
-- move onto the line above it).
local STATUS_NS = vim.api.nvim_create_namespace('bb7_chat_status')
-- Where an agent's tool calls, plan and question are while its turn streams (updated in place).
local AGENT_NS = vim.api.nvim_create_namespace('bb7_chat_agent')
local TICK_MS = 1000

---@class bb7.Shapes  How messages start; the host's `Rendered` carries them.
local shapes = {
  user_heading = '## You',
  assistant_heading = '## Assistant',
  reasoning_title = '> **Reasoning**',
  quote = '> ',
}

local H = {
  anchors = {}, ---@type bb7.Anchor[] of every message, from the host
  folds = {}, ---@type integer[][]
  timer = nil, ---@type uv.uv_timer_t?
  to_end = false, -- the next drawing puts the cursor on the last line (the view opened)
  controller = nil, ---@type table? the view's controller (`bb7.chat`), given to `subscribe`
}

local function buf() return (view.buf('conversation')) end
local function win() return view.win('conversation') end

--- True, with a message, while an answer streams: actions that change the chat wait for it.
---@return boolean
function M.busy()
  if not view.streaming() then return false end
  local cancel = require('bb7.config').get().keys.cancel or ':BB7Cancel'
  ui.say(('an answer is streaming; wait for it or cancel it (%s)'):format(cancel), 'warn')
  return true
end

--- Shown for a closed fold: reasoning says what it hides, a note's details their size.
---@return string
function M.foldtext()
  local count = vim.v.foldend - vim.v.foldstart
  local first = vim.fn.getline(vim.v.foldstart)
  if first == shapes.reasoning_title then
    return ('▸ Reasoning (%d line%s)'):format(count, count == 1 and '' or 's')
  end
  if first == '```diff' then return ('  ▸ diff (%d lines, za shows it)'):format(count - 1) end
  return ('  ▸ %d more line%s (za shows them)'):format(count + 1, count == 0 and '' or 's')
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

--- Output arrived below a cursor that is not on the last line (the user reads above): the
--- window stays put and its bar says so (`view.winbars`) until the end is seen.
---@param w integer?
---@param follow boolean
local function arrived(w, follow)
  if w and not follow and not view.state.unseen then
    view.state.unseen = true
    view.winbars()
  end
end

local function mark_seen()
  if view.state.unseen then
    view.state.unseen = false
    view.winbars()
  end
end

--- Puts the cursor on the conversation's last line, at the bottom of the window (the key
--- `latest`, a send); the "new answer below" mark goes.
function M.to_end()
  local b, w = buf(), win()
  if w then
    vim.api.nvim_win_set_cursor(w, { vim.api.nvim_buf_line_count(b), 0 })
    vim.api.nvim_win_call(w, function() vim.cmd('normal! zb') end)
  end
  mark_seen()
end

--- The next drawing of the conversation ends on its last line (the view opens: answers that
--- came while it was closed are in sight).
function M.follow_next() H.to_end = true end

--- Watches the conversation's cursor: reaching the last line clears the "new answer below"
--- mark.
---@param b integer
function M.setup(b)
  vim.api.nvim_create_autocmd('CursorMoved', {
    buffer = b,
    desc = 'bb7: the end of the conversation is seen',
    callback = function()
      local w = win()
      if view.state.unseen and at_end(w, vim.api.nvim_buf_line_count(b)) then mark_seen() end
    end,
  })
end

--- Makes the treesitter highlighter draw the next frame from trees of the buffer as it is now.
--- While a parse is in flight (a slow or loaded machine) the highlighter keeps drawing the
--- highlights of the trees it had, and after lines were removed those reach past the end:
--- "Invalid 'end_row': out of range", with a hit-enter prompt. So: drop what the highlighter
--- kept for its windows (Neovim 0.11 and 0.12 keep it in `parsing` and `_highlight_states`;
--- left alone when a version names them otherwise), so its next redraw starts from the new
--- trees. `parse` parses them all first, injections too (tens of ms for thousands of lines:
--- once per finished answer, not per streamed line), so that redraw needs no parse.
---@param b integer
---@param parse boolean
local function fresh_highlights(b, parse)
  local highlighter = vim.treesitter.highlighter.active[b]
  if not highlighter then return end
  if parse then pcall(function() highlighter.tree:parse(true) end) end
  for _, kept in ipairs({
    highlighter.parsing,
    (highlighter --[[@as table]])._highlight_states,
  }) do
    if type(kept) == 'table' then
      for w in pairs(kept) do
        kept[w] = nil
      end
    end
  end
end

--- Replaces the buffer's lines with `lines`, touching only those from the first that differs:
--- the lines above keep their highlights and folds.
---@param b integer
---@param lines string[]
local function patch(b, lines)
  local old = vim.api.nvim_buf_get_lines(b, 0, -1, false)
  local same = 0
  while same < #old and same < #lines and old[same + 1] == lines[same + 1] do
    same = same + 1
  end
  if same == #old and same == #lines then return end
  edit(
    b,
    function() vim.api.nvim_buf_set_lines(b, same, -1, false, vim.list_slice(lines, same + 1)) end
  )
  fresh_highlights(b, true)
end

---@param rendered bb7.Rendered
local function take_shapes(rendered)
  for name in pairs(shapes) do
    if type(rendered[name]) == 'string' then shapes[name] = rendered[name] end
  end
end

--- Draws a `Rendered` from the host. The window keeps its place, or follows the end when
--- the cursor was on the last line. `has_files`: the chat has context files (an empty chat
--- then says only where to write).
---@param rendered bb7.Rendered
---@param has_files? boolean
function M.render(rendered, has_files)
  local b, w = buf(), win()
  take_shapes(rendered)
  local count = vim.api.nvim_buf_line_count(b)
  local follow = w == nil or H.to_end or at_end(w, count)
  if w then H.to_end = false end
  local saved = w and not follow and vim.api.nvim_win_call(w, vim.fn.winsaveview)
  M.stop_live()
  vim.api.nvim_buf_clear_namespace(b, STATUS_NS, 0, -1)
  patch(b, rendered.lines)
  vim.api.nvim_buf_clear_namespace(b, M.ns, 0, -1)
  for _, hl in ipairs(rendered.highlights) do
    vim.api.nvim_buf_set_extmark(b, M.ns, hl[1], 0, { line_hl_group = hl[2] })
  end
  -- A message left out of future requests: dimmed over the markdown's own colours.
  for _, range in ipairs(rendered.excluded or {}) do
    local last = vim.api.nvim_buf_get_lines(b, range[2] - 1, range[2], false)[1] or ''
    vim.api.nvim_buf_set_extmark(b, M.ns, range[1] - 1, 0, {
      end_row = range[2] - 1,
      end_col = #last,
      hl_group = 'BB7Excluded',
      hl_eol = true,
      priority = 200,
    })
  end
  if #rendered.anchors == 0 then
    -- No message yet: under what there is (its first line, its files added).
    local hint = has_files and 'A new chat: write below'
      or 'A new chat: write below, add files with :BB7Add'
    vim.api.nvim_buf_set_extmark(b, M.ns, math.max(0, #rendered.lines - 1), 0, {
      virt_lines = { { { hint, 'BB7ChatStatus' } } },
    })
  end
  H.anchors = rendered.anchors
  H.folds = rendered.folds
  if w then
    M.refold()
    if follow then
      -- The last line at the bottom: no empty rows left by the shorter stored rendering.
      M.to_end()
    elseif saved then
      vim.api.nvim_win_call(w, function() vim.fn.winrestview(saved) end)
      if #rendered.lines > count then arrived(w, false) end
    end
  end
end

--- Folds the reasoning and long notes again (a window showing the buffer anew has none).
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
  arrived(w, follow)
end

--- Appends `lines` as a block (after one blank line); returns the 1-based first line.
local function add_block(lines, group, ns)
  local b, w = buf(), win()
  local count = line_count(b)
  local follow = w == nil or at_end(w, count)
  local first = 1
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
  if view.state.live then view.state.live.tail = #lines[#lines] end
  scroll(w, follow, b)
  return first
end

--- Appends `text` at the very end of the buffer: one `nvim_buf_set_text`.
local function append(text)
  local b, w = buf(), win()
  local live = view.state.live
  if not live then return end
  local last = line_count(b) - 1
  local follow = w == nil or at_end(w, last + 1)
  local col = live.tail
  local pieces = vim.split(text, '\n', { plain = true })
  edit(b, function() vim.api.nvim_buf_set_text(b, last, col, last, col, pieces) end)
  live.tail = #pieces == 1 and col + #pieces[1] or #pieces[#pieces]
  live.chars = live.chars + #text
  scroll(w, follow, b)
end

local function clear_status()
  local live = view.state.live
  if not live or live.status_lines == 0 then return end
  local b = buf()
  local count = line_count(b)
  vim.api.nvim_buf_clear_namespace(b, STATUS_NS, 0, -1)
  edit(b, function() vim.api.nvim_buf_set_lines(b, count - live.status_lines, count, false, {}) end)
  fresh_highlights(b, false)
  live.status_lines = 0
  local last = vim.api.nvim_buf_get_lines(b, -2, -1, false)[1] or ''
  live.tail = #last
end

--- A progress line at the end of the conversation (replaced by the next one, or the text).
local function set_status(text)
  if not view.state.live then return end
  clear_status()
  local empty = is_empty(buf())
  add_block({ text }, 'BB7ChatStatus', STATUS_NS)
  view.state.live.status_lines = empty and 1 or 2
end

local function close_reasoning()
  local live = view.state.live
  if not live or live.phase ~= 'reasoning' then return end
  fold(win(), live.fold_start, line_count(buf()))
  live.phase = 'after_reasoning'
end

--- Starts a live answer: the window bar counts the seconds (and the retry wait) each second.
---@param phase string
local function start_live(phase)
  if not view.state.live then
    view.state.live =
      { phase = phase, tail = 0, status_lines = 0, started = vim.uv.now(), chars = 0 }
  end
  view.state.live.phase = phase
  H.timer = H.timer or assert(vim.uv.new_timer())
  H.timer:start(TICK_MS, TICK_MS, vim.schedule_wrap(view.winbars))
  view.winbars()
end

--- Ends the live answer (drawn again from the store, or the view switched chats).
function M.stop_live()
  view.state.live = nil
  local b = view.state.bufs.conversation
  if b and vim.api.nvim_buf_is_valid(b) then
    vim.api.nvim_buf_clear_namespace(b, AGENT_NS, 0, -1)
  end
  if H.timer then H.timer:stop() end
end

--- Shows the user's message at once, before the host has stored it.
---@param text string
function M.begin_exchange(text)
  start_live('sending')
  add_block({ shapes.user_heading }, 'BB7ChatUser')
  add_block(vim.split(vim.trim(text), '\n', { plain = true }))
  set_status('⋯ sending')
  M.to_end()
end

local function heading(model)
  return model ~= '' and (shapes.assistant_heading .. ' · ' .. model) or shapes.assistant_heading
end

--- What each event of a send does to the pane. `request_started` and `done` carry their
--- fields; the others (`Streamed`) carry the send loop's event (`bb7.chat.events`) under
--- `event`.
M.handlers = {
  request_started = function(p)
    require('bb7.chat.queue').started(p)
    start_live('waiting')
    clear_status()
    local title = heading(p.model or '') .. (p.repair and ' (repair)' or '')
    add_block({ title }, 'BB7ChatAssistant')
    set_status('⋯ waiting for the model')
  end,
  reasoning = function(p)
    local live = view.state.live
    if not live then return end
    clear_status()
    live.retry_until = nil
    if live.phase ~= 'reasoning' then
      live.fold_start = add_block({ shapes.reasoning_title, shapes.quote }, 'BB7ChatReasoning')
      live.phase = 'reasoning'
    end
    append((p.event.text:gsub('\n', '\n' .. shapes.quote)))
  end,
  chunk = function(p)
    local live = view.state.live
    if not live then return end
    clear_status()
    live.retry_until = nil
    close_reasoning()
    if live.phase ~= 'text' then
      add_block({ '' })
      live.phase = 'text'
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
    local live = view.state.live
    if live then live.retry_until = vim.uv.now() + math.floor((ev.delay or 0) * 1000) end
    -- The action first (the reason is whole sentences, cut at the window's edge).
    set_status(('⟳ retrying in %.1f s: %s'):format(ev.delay or 0, ev.reason or 'provider busy'))
    view.winbars()
  end,
  repairing = function(p)
    local count = #(p.event.errors or {})
    set_status(
      ('✎ %d change%s failed; asking the model to repair them'):format(
        count,
        count == 1 and '' or 's'
      )
    )
  end,
  agent_tool = function(p)
    local live = view.state.live
    if not live then return end
    clear_status()
    close_reasoning()
    live.tools = live.tools or {}
    local tool = live.tools[p.id]
    local b = buf()
    local row = tool and vim.api.nvim_buf_get_extmark_by_id(b, AGENT_NS, tool.mark, {})[1]
    if not row then
      local first = add_block({ p.line }, 'BB7ChatTool')
      tool = { mark = vim.api.nvim_buf_set_extmark(b, AGENT_NS, first - 1, 0, {}) }
      live.tools[p.id] = tool
      row = first - 1
      live.phase = 'tool'
    else
      local old = vim.api.nvim_buf_get_lines(b, row, row + 1, false)[1] or ''
      edit(b, function() vim.api.nvim_buf_set_text(b, row, 0, row, #old, { p.line }) end)
    end
    if #(p.diff or {}) > 0 and not tool.diff then
      -- Its changes under it, shown like a pending change's diff.
      tool.diff = true
      edit(b, function() vim.api.nvim_buf_set_lines(b, row + 1, row + 1, false, p.diff) end)
      if row + 1 + #p.diff >= line_count(b) then live.tail = #p.diff[#p.diff] end
    end
  end,
  agent_plan = function(p)
    local live = view.state.live
    if not live then return end
    clear_status()
    close_reasoning()
    local b = buf()
    local plan = live.plan
    local row = plan and vim.api.nvim_buf_get_extmark_by_id(b, AGENT_NS, plan.mark, {})[1]
    if plan and row then
      edit(b, function() vim.api.nvim_buf_set_lines(b, row, row + plan.count, false, p.lines) end)
      plan.count = #p.lines
      if row + plan.count >= line_count(b) then live.tail = #p.lines[#p.lines] end
      return
    end
    local first = add_block(p.lines)
    live.plan =
      { mark = vim.api.nvim_buf_set_extmark(b, AGENT_NS, first - 1, 0, {}), count = #p.lines }
    live.phase = 'plan'
  end,
  agent_permission = function(p)
    local live = view.state.live
    if not live then return end
    clear_status()
    close_reasoning()
    local first = add_block({ '? ' .. require('bb7.chat.permission').line(p) }, 'BB7ChatQuestion')
    local mark = vim.api.nvim_buf_set_extmark(buf(), AGENT_NS, first - 1, 0, {})
    live.phase = 'question'
    require('bb7.chat.permission').ask(p, function(said)
      local b = buf()
      local row = vim.api.nvim_buf_get_extmark_by_id(b, AGENT_NS, mark, {})[1]
      if not row then return end
      local old = vim.api.nvim_buf_get_lines(b, row, row + 1, false)[1] or ''
      local line = ('? %s: %s'):format(p.question, said)
      edit(b, function() vim.api.nvim_buf_set_text(b, row, 0, row, #old, { line }) end)
      if row + 1 >= line_count(b) then live.tail = #line end
    end)
  end,
  agent_notice = function(p)
    if not view.state.live then return end
    clear_status()
    close_reasoning()
    add_block({ '⚠ ' .. p.message }, 'BB7ChatWarning')
    view.state.live.phase = 'notice'
    require('bb7.log').debug('agent: %s', p.message)
  end,
  -- The end of every send, refused, failed, cancelled or done: the stored chat again, and
  -- the statuses from the same request (`bb7.events` leaves them to the open view); then a
  -- message queued meanwhile goes (after the redraw, which would end its exchange).
  done = function(p)
    require('bb7.chat.permission').clear()
    M.stop_live()
    require('bb7.chat.input').done(p)
    local queue, controller = require('bb7.chat.queue'), H.controller
    if not view.is_open() or not controller then return queue.done(p) end
    controller.refresh({ statuses = true }, function() queue.done(p) end)
  end,
  title = function(p)
    local shown = view.state.chat
    if shown and shown.id == p.event.chat_id then
      shown.name = p.event.title
      view.winbars()
    end
  end,
}

--- Listens to the send events the host forwards; `controller` redraws the view at the end.
---@param controller table
function M.subscribe(controller)
  H.controller = controller
  local events = require('bb7.events')
  for name, handler in pairs(M.handlers) do
    events.on(name, handler)
  end
end

-- Messages ------------------------------------------------------------------------------------

--- Moves to the next (1) or previous (-1) message heading (of `role` only, when given).
---@param direction 1|-1
---@param role? string
function M.jump(direction, role)
  local w = win()
  if not w then return end
  local line = vim.api.nvim_win_get_cursor(w)[1]
  local target
  for _, anchor in ipairs(H.anchors) do
    if role == nil or anchor[3] == role then
      if direction > 0 and anchor[1] > line then
        target = anchor[1]
        break
      elseif direction < 0 and anchor[1] < line then
        target = anchor[1]
      end
    end
  end
  if target then vim.api.nvim_win_set_cursor(w, { target, 0 }) end
end

--- The message under the cursor, as { line, message_id, role }.
---@return bb7.Anchor?
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

--- `K`: a small float about the message under the cursor (its answer's, on a user message):
--- when, model and reasoning effort, tokens, cost, duration; above the first message (and
--- with `what` 'chat', `g3`), the chat's project, files, model and totals. It closes when the
--- cursor moves; `K` again enters it.
---@param what? 'chat' the chat's, wherever the cursor is
function M.info(what)
  local anchor = what ~= 'chat' and M.message_at_cursor() or nil
  local backend = require('bb7.backend')
  -- Above the first message (the chat's first line): the chat itself, its project.
  local method, args = 'chat_info', vim.empty_dict()
  if anchor then
    method, args = 'message_info', { message_id = anchor[2] }
  end
  backend.request(method, args, function(err, info)
    if err then return backend.report(err) end
    local w = win()
    if not w then return end
    -- Broken between words to the pane's width (Neovim would cut a word where the screen
    -- ends: the split layout's pane starts mid-screen).
    local width = math.max(20, math.min(vim.o.columns - 4, vim.api.nvim_win_get_width(w) - 2))
    local lines = {}
    for _, line in ipairs(info.lines) do
      vim.list_extend(lines, require('bb7.chat.layout').wrap(line, width))
    end
    -- At the conversation's cursor, whichever pane asked (`g3` from the input, at the foot of
    -- the screen, would leave it no room).
    vim.api.nvim_win_call(
      w,
      function()
        vim.lsp.util.open_floating_preview(lines, '', {
          border = 'rounded',
          focus_id = 'bb7_message_info',
          max_width = width,
        })
      end
    )
  end)
end

--- Scrolls the conversation by `keys` (`<C-d>`, `<C-u>`) from another pane (the input).
---@param keys string
function M.scroll(keys)
  local w = win()
  if not w then return end
  vim.api.nvim_win_call(w, function() vim.cmd('normal! ' .. vim.keycode(keys)) end)
  if at_end(w, vim.api.nvim_buf_line_count(buf())) then mark_seen() end
end

--- The last user message of the chat shown, as an anchor (nil in an empty chat).
---@return bb7.Anchor?
function M.last_user_message()
  for i = #H.anchors, 1, -1 do
    if H.anchors[i][3] == 'user' then return H.anchors[i] end
  end
  return nil
end

local function user_message()
  if M.busy() then return nil end
  local anchor = M.message_at_cursor()
  if not anchor or anchor[3] ~= 'user' then
    ui.say('put the cursor on one of your messages (under "' .. shapes.user_heading .. '")', 'warn')
    return nil
  end
  return anchor[2]
end

--- Excludes the message under the cursor from future requests (your message with its
--- answer; it stays here, dimmed), or includes it again when it is excluded.
function M.exclude()
  if M.busy() then return end
  local anchor = M.message_at_cursor()
  if not anchor then return ui.say('put the cursor on a message', 'warn') end
  require('bb7.chat.prompt').exclude(anchor[2])
end

--- `:BB7Compact` / `gK`: the model summarizes all but the last `keep` turns (default 4); the
--- host says when it is done and the view is drawn again.
---@param keep? integer
function M.compact(keep)
  if M.busy() then return end
  require('bb7.util').backend().request('compact', { keep = keep or 4 }, function(err, said)
    if err then return require('bb7.util').backend().report(err) end
    ui.say(said.message)
  end)
end

--- Forks (`fork_chat`) or cuts (`edit_message`) the chat at user message `id`; the view shows
--- the chat it leaves active with that message as the draft; `then_()` runs afterwards.
---@param controller table the view's controller
---@param method 'fork_chat'|'edit_message'
---@param id integer
---@param then_? fun()
function M.restore(controller, method, id, then_)
  require('bb7.chat.input').flush()
  local backend = require('bb7.backend')
  local args = { message_id = id, buffers = view.buffers() }
  backend.request(method, args, function(err, value)
    if err then return backend.report(err) end
    -- One warning per file (a fork of a fork could list a file twice), in one line: several
    -- are counted there, and listed in :BB7Log (two lines would wait for Enter).
    local seen, unique = {}, {}
    for _, warning in ipairs(value.warnings or {}) do
      if not seen[warning] then table.insert(unique, warning) end
      seen[warning] = true
    end
    if #unique == 1 then
      ui.say(unique[1], 'warn')
    elseif #unique > 1 then
      local head = ('%d files changed since; the chat has them as they were'):format(#unique)
      ui.say(head .. '\n' .. table.concat(unique, '\n'), 'warn')
    end
    controller.refresh({ draft = 'replace' }, then_)
    controller.focus('input')
  end)
end

--- Forks the chat from the user message under the cursor: a new chat with the history before
--- it, that message as the draft.
---@param controller table
function M.fork(controller)
  local id = user_message()
  if id then M.restore(controller, 'fork_chat', id) end
end

--- Edits the user message under the cursor: the chat is cut before it (after a confirm) and
--- its text goes to the input.
---@param controller table
function M.edit(controller)
  local id = user_message()
  if not id then return end
  ui.confirm(
    'Edit this message? It and everything after it leave the chat.',
    function() M.restore(controller, 'edit_message', id) end
  )
end

return M
