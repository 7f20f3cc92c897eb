-- Test stub: the picker of a prompt buffer, and the entry under the selection of the picker
-- in the current window (telescope keeps it as a global of its state).
local M = {}

function M.get_current_picker(prompt_bufnr) return require('telescope.pickers').open[prompt_bufnr] end

function M.get_selected_entry()
  local p = require('telescope.pickers').open[vim.api.nvim_get_current_buf()]
  return p and p:selection()
end

return M
