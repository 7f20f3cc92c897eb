-- Test stub of telescope.actions (telescope.nvim at 7d324792b7943e4aa16ad007212e6acc6f9fe335):
-- an action is a callable object taking the prompt buffer (actions/mt.lua); `a + b` runs
-- both; `:replace(fn)` runs `fn` in its place until the picker closes (`close` clears every
-- replacement). `select_default` edits the selected entry's file (actions/set.lua).
local Action = {}
Action.__index = Action
Action.__call = function(self, prompt_bufnr) return (self.replacement or self.run)(prompt_bufnr) end
Action.__add = function(a, b)
  return setmetatable({
    run = function(bufnr)
      a(bufnr)
      b(bufnr)
    end,
  }, Action)
end
function Action:replace(fn)
  self.replacement = fn
  return self
end

local function action(run) return setmetatable({ run = run }, Action) end
local function picker(bufnr) return require('telescope.pickers').open[bufnr] end

local M = {}

M.move_selection_next = action(function(bufnr)
  local p = picker(bufnr)
  p:set_selection(p:get_selection_row() + 1)
end)

-- In the picker's own order: the next entry is the next worse one.
M.move_selection_worse = M.move_selection_next

M.toggle_selection = action(function(bufnr)
  local p = picker(bufnr)
  p:toggle_selection(p:get_selection_row())
end)

-- The prompt is a 'prompt' buffer: leaving it ends Insert mode.
M.close = action(function(bufnr)
  local p = picker(bufnr)
  vim.cmd.stopinsert()
  require('telescope.pickers').open[bufnr] = nil
  M.select_default.replacement = nil
  vim.api.nvim_win_close(p.prompt_win, true)
  vim.api.nvim_buf_delete(bufnr, { force = true })
end)

M.select_default = action(function(bufnr)
  local entry = picker(bufnr):get_selection()
  M.close(bufnr)
  vim.cmd.edit(vim.fn.fnameescape(entry.path or entry.filename or entry.value))
end)

return M
