-- Test stub of snacks.nvim's picker: `picker.pick(opts)` keeps an open picker whose items are
-- `opts.items`; `select(i)` toggles an item's selection as <Tab> does, `confirm()` runs the
-- confirm action as <CR> does, with the picker (`:selected()`, `:current()`, `:close()`).
local Picker = {}
Picker.__index = Picker

function Picker:current() return self.opts.items[self.cursor] end

function Picker:selected(opts)
  local out = vim.list_slice(self.chosen)
  if #out == 0 and opts and opts.fallback then out = { self:current() } end
  return out
end

function Picker:close() self.closed = true end

function Picker:select(i)
  self.cursor = i
  table.insert(self.chosen, self.opts.items[i])
end

function Picker:confirm() self.opts.confirm(self, self:current()) end

local M = { picker = {} }

function M.picker.pick(opts)
  M.picker.last = setmetatable({ opts = opts, cursor = 1, chosen = {} }, Picker)
  return M.picker.last
end

return M
