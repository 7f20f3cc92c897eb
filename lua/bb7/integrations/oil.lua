--- oil.nvim for bb7: `add()` for an oil keymap adds the entry under the cursor to the active
--- chat: a file, or a directory with its files (recursively, asking first when many); on a
--- line with no entry, the directory shown.
--- Uses oil's public API only (`get_cursor_entry()`, `get_current_dir()`).
-- The plugin is not in bb7's workspace: its modules are neither resolved nor typed here.
---@diagnostic disable: unresolved-require, undefined-field
local M = {}

local function add(readonly)
  local ui = require('bb7.chat.ui')
  if vim.bo.filetype ~= 'oil' then return ui.say('not an oil buffer: nothing to add', 'warn') end
  local oil = require('oil')
  local dir = oil.get_current_dir()
  if not dir then return ui.say('oil shows no local directory here: nothing to add', 'warn') end
  local entry = oil.get_cursor_entry()
  local path = entry and vim.fs.joinpath(dir, entry.name) or dir
  require('bb7.chat.picker').add_paths({ vim.fs.normalize(path) }, readonly)
end

--- Adds the entry under the cursor, e.g. in oil's `keymaps`:
--- `['<leader>a'] = { callback = require('bb7.integrations.oil').add, desc = 'bb7: add' }`.
function M.add() add(false) end

--- As `add()`, read-only.
function M.add_readonly() add(true) end

return M
