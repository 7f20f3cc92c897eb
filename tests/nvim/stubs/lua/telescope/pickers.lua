-- Test stub: a picker is a prompt buffer in a window; the pickers open now are kept by prompt
-- buffer for `actions.state.get_current_picker`.
local M = { open = {} }

local Picker = {}
Picker.__index = Picker

function M.new(opts, spec) return setmetatable(vim.tbl_extend('force', opts, spec), Picker) end

--- The entry on the selection row.
function Picker:selection() return self.finder.entries[self.row] end

function Picker:get_multi_selection() return vim.list_slice(self.multi) end

function Picker:toggle_selection()
  local entry = self:selection()
  for i, chosen in ipairs(self.multi) do
    if chosen == entry then return table.remove(self.multi, i) end
  end
  table.insert(self.multi, entry)
end

function Picker:find()
  self.row, self.multi = 1, {}
  self.prompt_bufnr = vim.api.nvim_create_buf(false, true)
  vim.bo[self.prompt_bufnr].filetype = 'TelescopePrompt'
  self.prompt_win = vim.api.nvim_open_win(self.prompt_bufnr, true, {
    relative = 'editor',
    row = 1,
    col = 1,
    width = 40,
    height = 1,
  })
  M.open[self.prompt_bufnr] = self
  local actions = require('telescope.actions')
  local function map(mode, key, fn)
    vim.keymap.set(mode, key, function() fn(self.prompt_bufnr) end, { buffer = self.prompt_bufnr })
  end
  map({ 'n', 'i' }, '<Tab>', actions.toggle_selection + actions.move_selection_next)
  map({ 'n', 'i' }, '<Down>', actions.move_selection_next)
  map({ 'n', 'i' }, '<CR>', actions.select_default)
  if self.attach_mappings then self.attach_mappings(self.prompt_bufnr, map) end
end

return M
