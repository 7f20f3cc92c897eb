--- The chat view's keys: in which panes each one works, what it runs, and the `?` help popup.
--- The keys themselves are the `keys` options (|bb7-config|); each mapping's desc is the
--- option's description, so which-key, `:map` and the help popup all say the same.
local M = {}

local VIEW = { 'conversation', 'input', 'files' }
local EVERYWHERE = { 'conversation', 'input', 'files', 'chats' }

local function chat() return require('bb7.chat') end
local function files() return require('bb7.chat.files') end
local function conversation() return require('bb7.chat.conversation') end
local function chats() return require('bb7.chat.chats') end

--- { option name, mode, panes, run(pane) }, in help order.
M.specs = {
  { 'send', 'n', { 'input' }, function() require('bb7.chat.input').send() end },
  { 'send_insert', 'i', { 'input' }, function() require('bb7.chat.input').send() end },
  { 'cancel', 'n', VIEW, function() chat().cancel() end },
  { 'help', 'n', EVERYWHERE, function(pane) M.help(pane) end },
  { 'close', 'n', VIEW, function() chat().close() end },
  { 'next_pane', 'n', VIEW, function(pane) chat().focus_next(pane) end },
  { 'focus_input', 'n', { 'conversation', 'files' }, function() chat().focus('input', true) end },
  { 'chats', 'n', VIEW, function() chats().open() end },
  { 'new_chat', 'n', EVERYWHERE, function() chat().new_chat() end },
  { 'model', 'n', VIEW, function() require('bb7.chat.models').pick(chat().refresh) end },
  { 'next_message', 'n', { 'conversation' }, function() conversation().jump(1) end },
  { 'prev_message', 'n', { 'conversation' }, function() conversation().jump(-1) end },
  { 'fork', 'n', { 'conversation' }, function() conversation().fork() end },
  { 'edit_message', 'n', { 'conversation' }, function() conversation().edit() end },
  { 'apply', 'n', { 'files' }, function() files().apply() end },
  { 'apply_all', 'n', { 'files' }, function() files().apply_all() end },
  { 'discard', 'n', { 'files' }, function() files().discard() end },
  { 'diff', 'n', { 'files' }, function() files().diff() end },
  { 'vimdiff', 'n', { 'files' }, function() files().vimdiff() end },
  { 'update', 'n', { 'files' }, function() files().update() end },
  { 'update_all', 'n', { 'files' }, function() files().update_all() end },
  { 'toggle_readonly', 'n', { 'files' }, function() files().toggle_readonly() end },
  { 'remove', 'n', { 'files' }, function() files().remove() end },
  { 'open_file', 'n', { 'files' }, function() files().open() end },
  { 'select_chat', 'n', { 'chats' }, function() chats().select() end },
  { 'rename_chat', 'n', { 'chats' }, function() chats().rename() end },
  { 'delete_chat', 'n', { 'chats' }, function() chats().delete() end },
  { 'pin_chat', 'n', { 'chats' }, function() chats().pin() end },
  { 'search_chats', 'n', { 'chats' }, function() chats().search() end },
  { 'review', 'n', { 'files' }, function() files().review('toggle') end },
  { 'merge', 'n', { 'files' }, function() files().review('merge') end },
}

-- Native keys worth knowing in a pane, shown in the help popup after bb7's own.
M.native = {
  conversation = {
    { 'za', 'open or close the reasoning under the cursor' },
    { 'zR / zM', 'open / close all reasoning' },
  },
  input = { { '<C-w>w', 'go to the next window' } },
  chats = { { 'q / <Esc>', 'close the chat list' } },
}

local function what()
  local out = {}
  for _, key in ipairs(require('bb7.config').keys) do
    out[key[1]] = key[3]
  end
  return out
end

local function applies(spec, pane) return vim.tbl_contains(spec[3], pane) end

--- The keys of `pane` as { lhs, mode, description }, in help order (disabled keys left out).
function M.list(pane)
  local keys, descriptions = require('bb7.config').get().keys, what()
  local out = {}
  for _, spec in ipairs(M.specs) do
    local lhs = keys[spec[1]]
    if lhs and applies(spec, pane) then
      table.insert(out, { lhs, spec[2], descriptions[spec[1]] })
    end
  end
  return out
end

--- Maps the keys of `pane` in `buf` (again after a `setup()` changed them).
function M.attach(buf, pane)
  for _, old in ipairs(vim.b[buf].bb7_keys or {}) do
    pcall(vim.keymap.del, old[2], old[1], { buffer = buf })
  end
  local mapped = {}
  local keys, descriptions = require('bb7.config').get().keys, what()
  for _, spec in ipairs(M.specs) do
    local lhs = keys[spec[1]]
    if lhs and applies(spec, pane) then
      vim.keymap.set(spec[2], lhs, function() spec[4](pane) end, {
        buffer = buf,
        desc = 'bb7: ' .. descriptions[spec[1]],
        nowait = true,
        silent = true,
      })
      table.insert(mapped, { lhs, spec[2] })
    end
  end
  vim.b[buf].bb7_keys = mapped
end

local help_ns = vim.api.nvim_create_namespace('bb7_chat_help')

--- The `?` popup: the keys of `pane`, then useful native keys.
function M.help(pane)
  local rows = {}
  for _, key in ipairs(M.list(pane)) do
    local mode = key[2] == 'i' and ' (insert)' or ''
    table.insert(rows, { key[1], key[3] .. mode })
  end
  for _, key in ipairs(M.native[pane] or {}) do
    table.insert(rows, key)
  end
  local width = 0
  for _, row in ipairs(rows) do
    width = math.max(width, vim.api.nvim_strwidth(row[1]))
  end
  local lines = {}
  for _, row in ipairs(rows) do
    local pad = (' '):rep(width - vim.api.nvim_strwidth(row[1]))
    table.insert(lines, (' %s%s  %s'):format(row[1], pad, row[2]))
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  for i = 1, #lines do
    local key = { end_col = 1 + #rows[i][1], hl_group = 'BB7HelpKey' }
    vim.api.nvim_buf_set_extmark(buf, help_ns, i - 1, 1, key)
  end
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'bb7_help'
  local win = require('bb7.chat.layout').float(buf, {
    title = (' bb7 keys: %s '):format(pane),
    width = math.max(30, require('bb7.chat.layout').longest(lines) + 1),
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
