--- The chat view's keys: what each key declared in `bb7.keys` for a pane of the view (or its
--- chat list) does, mapping them in the panes' buffers, and the `?` help popup. Actions get
--- the pane they run in and the view's controller.
local M = {}

local function files() return require('bb7.chat.files') end
local function conversation() return require('bb7.chat.conversation') end
local function chats() return require('bb7.chat.chats') end

---@class bb7.KeyContext
---@field pane string the pane the key was pressed in
---@field view table the controller (`bb7.chat`): refresh, close, focus_next, ...

--- What each key does, by its name in `bb7.keys` (a review key has none here).
---@type table<string, fun(ctx: bb7.KeyContext)>
M.actions = {
  send = function(ctx) ctx.view.send() end,
  send_insert = function(ctx) ctx.view.send() end,
  cancel = function(ctx)
    -- In the input, a queued message is taken back first (the answer streams on).
    if ctx.pane == 'input' and require('bb7.chat.input').take_back() then return end
    ctx.view.cancel()
  end,
  resend = function(ctx) ctx.view.resend() end,
  dismiss_retry = function(ctx) ctx.view.dismiss_retry() end,
  help = function(ctx) M.help(ctx.pane) end,
  close = function(ctx) ctx.view.close() end,
  next_pane = function(ctx) ctx.view.focus_next(ctx.pane) end,
  pane_chats = function(ctx) chats().open(ctx.view) end,
  pane_files = function(ctx) ctx.view.focus('files') end,
  pane_info = function() conversation().info('chat') end,
  pane_conversation = function(ctx) ctx.view.focus('conversation') end,
  pane_input = function(ctx) ctx.view.focus('input') end,
  scroll_down = function() conversation().scroll('<C-d>') end,
  scroll_up = function() conversation().scroll('<C-u>') end,
  focus_input = function(ctx) ctx.view.focus('input', true) end,
  chats = function(ctx) chats().open(ctx.view) end,
  new_chat = function(ctx) ctx.view.new_chat() end,
  new_chat_context = function(ctx) ctx.view.new_chat(true) end,
  usage = function()
    local backend = require('bb7.backend')
    backend.request('usage', {}, function(err)
      if err then backend.report(err) end
    end)
  end,
  model = function(ctx) require('bb7.chat.models').pick(ctx.view.refresh) end,
  add_file = function(ctx) ctx.view.pick_file() end,
  prompt = function() require('bb7.chat.prompt').open() end,
  add_requested = function(ctx) require('bb7.chat.asked').add(ctx.view, true) end,
  add_requested_writable = function(ctx) require('bb7.chat.asked').add(ctx.view, false) end,
  reasoning = function(ctx)
    require('bb7.reasoning').pick(function() ctx.view.refresh() end)
  end,
  fork = function(ctx) conversation().fork(ctx.view) end,
  edit_message = function(ctx) conversation().edit(ctx.view) end,
  exclude = function() conversation().exclude() end,
  compact = function() conversation().compact() end,
  next_message = function() conversation().jump(1) end,
  prev_message = function() conversation().jump(-1) end,
  next_user = function() conversation().jump(1, 'user') end,
  prev_user = function() conversation().jump(-1, 'user') end,
  latest = function() conversation().to_end() end,
  message_info = function() conversation().info() end,
  run_checks = function() require('bb7.checks').run() end,
  check_output = function(ctx)
    local anchor = ctx.pane == 'conversation' and conversation().message_at_cursor() or nil
    require('bb7.checks').show(anchor and anchor[3] == 'check' and anchor[2] or nil)
  end,
  fix_checks = function() require('bb7.checks').fix() end,
  apply = function(ctx) files().apply(ctx.view.refresh) end,
  apply_all = function(ctx) files().apply_all(ctx.view.refresh) end,
  discard = function(ctx) files().discard(ctx.view.refresh) end,
  diff = function() files().diff() end,
  next_change = function() files().jump(1) end,
  prev_change = function() files().jump(-1) end,
  vimdiff = function() files().vimdiff() end,
  review = function() files().review('toggle') end,
  merge = function() files().review('merge') end,
  update = function(ctx) files().update(ctx.view.refresh) end,
  update_all = function(ctx) files().update_all(ctx.view.refresh) end,
  toggle_readonly = function(ctx) files().toggle_readonly(ctx.view.refresh) end,
  remove = function(ctx) files().remove(ctx.view.refresh) end,
  open_file = function() files().open() end,
  select_chat = function(ctx) chats().select(ctx.view) end,
  rename_chat = function(ctx) chats().rename(ctx.view) end,
  delete_chat = function(ctx) chats().delete(ctx.view) end,
  pin_chat = function() chats().pin() end,
  retitle_chat = function() chats().retitle() end,
  move_chat = function(ctx) chats().move(ctx.view) end,
  search_chats = function() chats().search() end,
}

-- Native keys worth knowing in a pane, shown in the help popup after bb7's own.
M.native = {
  conversation = {
    { 'za', 'open or close the reasoning (or details) under the cursor' },
    { 'zR / zM', 'open / close all folds' },
  },
  input = {
    { '<C-x><C-o>', 'after @: complete a project path (adds the file)' },
    { '<C-w>w', 'go to the next window' },
  },
  chats = { { 'q / <Esc>', 'close the chat list' } },
}

--- A description without help-file markup (`|:BB7Diff|` reads `:BB7Diff`).
---@param desc string
---@return string
function M.plain(desc) return (desc:gsub('|([^|%s]+)|', '%1')) end

---@param spec bb7.KeySpec
---@param pane string
local function applies(spec, pane) return vim.tbl_contains(spec.panes, pane) end

--- The keys of `pane` as { lhs, mode, description }, in help order (disabled keys left out).
---@param pane string
---@return string[][]
function M.list(pane)
  local keys = require('bb7.config').get().keys
  local out = {}
  for _, spec in ipairs(require('bb7.keys').specs) do
    local lhs = keys[spec.name]
    if lhs and applies(spec, pane) then table.insert(out, { lhs, spec.mode, spec.desc }) end
  end
  return out
end

--- Maps the keys of `pane` in `buf` (again after a `setup()` changed them); `view` is the
--- controller the actions drive.
---@param buf integer
---@param pane string
---@param view table
function M.attach(buf, pane, view)
  for _, old in ipairs(vim.b[buf].bb7_keys or {}) do
    pcall(vim.keymap.del, old[2], old[1], { buffer = buf })
  end
  local mapped = {}
  local keys = require('bb7.config').get().keys
  for _, spec in ipairs(require('bb7.keys').specs) do
    local lhs = keys[spec.name]
    if lhs and applies(spec, pane) then
      local action = M.actions[spec.name]
      vim.keymap.set(spec.mode, lhs, function() action({ pane = pane, view = view }) end, {
        buffer = buf,
        desc = 'bb7: ' .. M.plain(spec.desc),
        nowait = true,
        silent = true,
      })
      table.insert(mapped, { lhs, spec.mode })
    end
  end
  vim.b[buf].bb7_keys = mapped
end

local help_ns = vim.api.nvim_create_namespace('bb7_chat_help')

--- The `?` popup: the keys of `pane`, then useful native keys. A description wider than the
--- screen allows goes on below itself (the popup does not wrap).
---@param pane string
---@return integer win
function M.help(pane)
  local rows = {}
  for _, k in ipairs(M.list(pane)) do
    local mode = k[2] == 'i' and ' (insert)' or ''
    table.insert(rows, { k[1], M.plain(k[3]) .. mode })
  end
  for _, k in ipairs(M.native[pane] or {}) do
    table.insert(rows, k)
  end
  local width = 0
  for _, row in ipairs(rows) do
    width = math.max(width, vim.api.nvim_strwidth(row[1]))
  end
  -- The float is at most `columns - 4` wide (`layout.float`), with one cell to spare.
  local layout = require('bb7.chat.layout')
  local room = vim.o.columns - 5 - width - 3
  local lines, starts = {}, {}
  for _, row in ipairs(rows) do
    local pad = (' '):rep(width - vim.api.nvim_strwidth(row[1]))
    table.insert(starts, { #lines, #row[1] })
    for i, part in ipairs(layout.wrap(row[2], math.max(20, room))) do
      local lead = i == 1 and (' %s%s  '):format(row[1], pad) or (' '):rep(width + 3)
      table.insert(lines, lead .. part)
    end
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  for _, start in ipairs(starts) do
    local mark = { end_col = 1 + start[2], hl_group = 'BB7HelpKey' }
    vim.api.nvim_buf_set_extmark(buf, help_ns, start[1], 1, mark)
  end
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'bb7_help'
  -- Taller than the screen (the conversation's keys at 24 lines): the popup has the focus, so
  -- the title says how to see the rest.
  local more = #lines > vim.o.lines - 6 and ' · j/k: more' or ''
  local win = layout.float(buf, {
    title = (' bb7 keys: %s%s '):format(pane, more),
    width = math.max(30, layout.longest(lines) + 1),
    height = #lines,
  })
  for _, lhs in ipairs({ 'q', '<Esc>', '?' }) do
    vim.keymap.set('n', lhs, function() pcall(vim.api.nvim_win_close, win, true) end, {
      buffer = buf,
      desc = 'bb7: close the help',
      nowait = true,
    })
  end
  return win
end

return M
