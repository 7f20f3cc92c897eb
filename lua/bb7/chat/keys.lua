--- The chat view's keys, declared once: name, default, panes, mode, action and description of
--- each. `lua/bb7/config.lua` makes a `keys.<name>` option of each (|bb7-config|), and each
--- mapping's desc is its description, so which-key, `:map`, the `?` help popup and the help
--- file all say the same. Actions get the pane they run in and the view's controller.
local M = {}

local VIEW = { 'conversation', 'input', 'files' }
local EVERYWHERE = { 'conversation', 'input', 'files', 'chats' }

local function files() return require('bb7.chat.files') end
local function conversation() return require('bb7.chat.conversation') end
local function chats() return require('bb7.chat.chats') end

---@class bb7.KeyContext
---@field pane string the pane the key was pressed in
---@field view table the controller (`bb7.chat`): refresh, close, focus_next, ...

---@class bb7.KeySpec
---@field name string the option name (`keys.<name>`)
---@field default string|false
---@field panes string[]
---@field mode 'n'|'i'
---@field desc string what the key does (mapping desc, help popup, help file)
---@field action fun(ctx: bb7.KeyContext)

---@param name string
---@param default string|false
---@param panes string[]
---@param mode 'n'|'i'
---@param desc string
---@param action fun(ctx: bb7.KeyContext)
---@return bb7.KeySpec
local function key(name, default, panes, mode, desc, action)
  return { name = name, default = default, panes = panes, mode = mode, desc = desc, action = action }
end

--- A key of a reviewed buffer: no chat-view pane; `bb7.review` maps it and runs it.
---@param name string
---@param default string
---@param desc string
---@return bb7.KeySpec
local function review_key(name, default, desc)
  return key(name, default, { 'review' }, 'n', desc, function() end)
end

--- In help order.
---@type bb7.KeySpec[]
M.specs = {
  key(
    'send',
    '<CR>',
    { 'input' },
    'n',
    'send the message (normal mode, input buffer)',
    function(ctx) ctx.view.send() end
  ),
  key(
    'send_insert',
    '<C-s>',
    { 'input' },
    'i',
    'send the message from insert mode',
    function(ctx) ctx.view.send() end
  ),
  key(
    'cancel',
    '<C-c>',
    VIEW,
    'n',
    'cancel the streaming response',
    function(ctx) ctx.view.cancel() end
  ),
  key(
    'resend',
    'gr',
    VIEW,
    'n',
    'send your last message again (after an error or a cancel)',
    function(ctx) ctx.view.resend() end
  ),
  key(
    'dismiss_retry',
    'gR',
    VIEW,
    'n',
    "dismiss the retry banner: the failed edits' errors are not sent",
    function(ctx) ctx.view.dismiss_retry() end
  ),
  key(
    'help',
    '?',
    EVERYWHERE,
    'n',
    'show the keys of the current bb7 buffer',
    function(ctx) M.help(ctx.pane) end
  ),
  key('close', 'q', VIEW, 'n', 'close the chat view', function(ctx) ctx.view.close() end),
  key(
    'next_pane',
    '<Tab>',
    VIEW,
    'n',
    'go to the next pane of the chat view',
    function(ctx) ctx.view.focus_next(ctx.pane) end
  ),
  key(
    'focus_input',
    'i',
    { 'conversation', 'files' },
    'n',
    'go to the input and type (the conversation is read-only)',
    function(ctx) ctx.view.focus('input', true) end
  ),
  key(
    'chats',
    'gl',
    VIEW,
    'n',
    'list the chats (switch, rename, delete, pin, search)',
    function(ctx) chats().open(ctx.view) end
  ),
  key('new_chat', 'gn', EVERYWHERE, 'n', 'start a new chat', function(ctx) ctx.view.new_chat() end),
  key(
    'usage',
    'gC',
    { 'conversation', 'input' },
    'n',
    'show what today and this chat cost, and the credit left',
    function()
      local backend = require('bb7.backend')
      backend.request('usage', {}, function(err)
        if err then backend.report(err) end
      end)
    end
  ),
  key(
    'model',
    'gm',
    VIEW,
    'n',
    "choose the chat's model",
    function(ctx) require('bb7.chat.models').pick(ctx.view.refresh) end
  ),
  key(
    'add_file',
    'ga',
    VIEW,
    'n',
    'pick a project file to add to the context',
    function(ctx) ctx.view.pick_file() end
  ),
  key('reasoning', 'ge', VIEW, 'n', "choose the chat's reasoning effort", function(ctx)
    require('bb7.reasoning').pick(function() ctx.view.refresh() end)
  end),
  key(
    'fork',
    'gF',
    { 'conversation' },
    'n',
    'fork the chat from the user message under the cursor',
    function(ctx) conversation().fork(ctx.view) end
  ),
  key(
    'edit_message',
    'gE',
    { 'conversation' },
    'n',
    'edit the user message under the cursor (drops what follows)',
    function(ctx) conversation().edit(ctx.view) end
  ),
  key(
    'next_message',
    ']]',
    { 'conversation' },
    'n',
    'go to the next message',
    function() conversation().jump(1) end
  ),
  key(
    'prev_message',
    '[[',
    { 'conversation' },
    'n',
    'go to the previous message',
    function() conversation().jump(-1) end
  ),
  key(
    'apply',
    'p',
    { 'files' },
    'n',
    'apply the pending output of the file under the cursor',
    function(ctx) files().apply(ctx.view.refresh) end
  ),
  key(
    'apply_all',
    'P',
    { 'files' },
    'n',
    'apply every pending output (conflicts are skipped)',
    function(ctx) files().apply_all(ctx.view.refresh) end
  ),
  key(
    'discard',
    'x',
    { 'files' },
    'n',
    'discard the pending output under the cursor',
    function(ctx) files().discard(ctx.view.refresh) end
  ),
  key(
    'diff',
    'd',
    { 'files' },
    'n',
    'show the pending change as a diff',
    function() files().diff() end
  ),
  key(
    'vimdiff',
    'D',
    { 'files' },
    'n',
    'merge the pending change in vimdiff (|:BB7Diff|)',
    function() files().vimdiff() end
  ),
  key(
    'review',
    'R',
    { 'files' },
    'n',
    'review the pending change of the file under the cursor inline (|:BB7Review|)',
    function() files().review('toggle') end
  ),
  key(
    'merge',
    'M',
    { 'files' },
    'n',
    'merge the pending change under the cursor over your edits (|:BB7Merge|)',
    function() files().review('merge') end
  ),
  key(
    'update',
    'u',
    { 'files' },
    'n',
    'update the snapshot from the local file',
    function(ctx) files().update(ctx.view.refresh) end
  ),
  key(
    'update_all',
    'U',
    { 'files' },
    'n',
    'update every snapshot from the local files',
    function(ctx) files().update_all(ctx.view.refresh) end
  ),
  key(
    'toggle_readonly',
    'r',
    { 'files' },
    'n',
    'toggle read-only for the file under the cursor',
    function(ctx) files().toggle_readonly(ctx.view.refresh) end
  ),
  key(
    'remove',
    'X',
    { 'files' },
    'n',
    'remove the file under the cursor from the context',
    function(ctx) files().remove(ctx.view.refresh) end
  ),
  key(
    'open_file',
    '<CR>',
    { 'files' },
    'n',
    'open the file under the cursor',
    function() files().open() end
  ),
  key(
    'select_chat',
    '<CR>',
    { 'chats' },
    'n',
    'switch to the chat under the cursor (chat list)',
    function(ctx) chats().select(ctx.view) end
  ),
  key(
    'rename_chat',
    'r',
    { 'chats' },
    'n',
    'rename the chat under the cursor (chat list)',
    function(ctx) chats().rename(ctx.view) end
  ),
  key(
    'delete_chat',
    'd',
    { 'chats' },
    'n',
    'delete the chat under the cursor (chat list)',
    function(ctx) chats().delete(ctx.view) end
  ),
  key(
    'pin_chat',
    'p',
    { 'chats' },
    'n',
    'pin or unpin the chat under the cursor (chat list)',
    function() chats().pin() end
  ),
  key(
    'move_chat',
    'm',
    { 'chats' },
    'n',
    'move the chat under the cursor between the project and global chats',
    function(ctx) chats().move(ctx.view) end
  ),
  key(
    'search_chats',
    '/',
    { 'chats' },
    'n',
    'search the chats by name and message text (chat list)',
    function() chats().search() end
  ),
  -- While reviewing a buffer (|:BB7Review|): `bb7.review` maps these in that buffer only.
  review_key('review_next', ']h', 'go to the next hunk (review)'),
  review_key('review_prev', '[h', 'go to the previous hunk (review)'),
  review_key('review_accept', 'ga', 'accept the hunk under the cursor into the buffer (review)'),
  review_key(
    'review_amend',
    'gm',
    "edit the hunk under the cursor's new lines, then accept them as edited (review)"
  ),
  review_key('review_reject', 'gr', 'reject the hunk under the cursor, with a reason (review)'),
  review_key('review_accept_all', 'gA', 'accept every hunk (review)'),
  review_key('review_reject_all', 'gR', 'reject every hunk, with a reason (review)'),
  review_key('review_quit', 'q', 'end the review (review)'),
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
  for _, spec in ipairs(M.specs) do
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
  for _, spec in ipairs(M.specs) do
    local lhs = keys[spec.name]
    if lhs and applies(spec, pane) then
      vim.keymap.set(spec.mode, lhs, function() spec.action({ pane = pane, view = view }) end, {
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
  local win = layout.float(buf, {
    title = (' bb7 keys: %s '):format(pane),
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
