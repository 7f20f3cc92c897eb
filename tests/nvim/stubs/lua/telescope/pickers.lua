-- Test stub of telescope.pickers (telescope.nvim at 7d324792b7943e4aa16ad007212e6acc6f9fe335):
-- `new(opts, defaults):find()` opens the prompt buffer in a window and maps its keys;
-- `Picker:get_multi_selection()` gives the toggled entries in the order they were toggled
-- (pickers/multi.lua); each move of the selection sets the global `selected_entry` that
-- actions.state.get_selected_entry() reads. The pickers open now are kept by prompt buffer
-- (telescope.state's `get_status(prompt_bufnr).picker`).
local M = { open = {}, selected_entry = nil }

local Picker = {}
Picker.__index = Picker

function M.new(opts, defaults)
  return setmetatable(vim.tbl_extend('force', defaults or {}, opts or {}), Picker)
end

function Picker:get_selection() return self.finder.entries[self.row] end

function Picker:get_selection_row() return self.row end

function Picker:set_selection(row)
  self.row = math.max(1, math.min(row, #self.finder.entries))
  M.selected_entry = self:get_selection()
end

function Picker:get_multi_selection()
  local out = {}
  for _, entry in ipairs(self.multi) do
    table.insert(out, entry)
  end
  return out
end

function Picker:toggle_selection(row)
  local entry = self.finder.entries[row]
  for i, chosen in ipairs(self.multi) do
    if chosen == entry then return table.remove(self.multi, i) end
  end
  table.insert(self.multi, entry)
end

function Picker:find()
  self.multi = {}
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
  vim.cmd.startinsert() -- the prompt is typed in
  self:set_selection(1)
  local actions = require('telescope.actions')
  local function map(mode, key, fn)
    vim.keymap.set(mode, key, function() fn(self.prompt_bufnr) end, { buffer = self.prompt_bufnr })
  end
  map({ 'n', 'i' }, '<Tab>', actions.toggle_selection + actions.move_selection_worse)
  map({ 'n', 'i' }, '<Down>', actions.move_selection_next)
  map({ 'n', 'i' }, '<CR>', actions.select_default)
  if self.attach_mappings then self.attach_mappings(self.prompt_bufnr, map) end
end

return M
