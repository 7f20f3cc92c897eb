-- Test stub: telescope's actions are callable objects taking the prompt buffer; `a + b` runs
-- both, `:replace(fn)` swaps the action's body until the picker closes.
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
  p.row = math.min(p.row + 1, #p.finder.entries)
end)

M.toggle_selection = action(function(bufnr) picker(bufnr):toggle_selection() end)

M.close = action(function(bufnr)
  local p = picker(bufnr)
  require('telescope.pickers').open[bufnr] = nil
  M.select_default.replacement = nil
  vim.api.nvim_win_close(p.prompt_win, true)
  vim.api.nvim_buf_delete(bufnr, { force = true })
end)

M.select_default = action(function(bufnr)
  local entry = picker(bufnr):selection()
  M.close(bufnr)
  vim.cmd.edit(vim.fn.fnameescape(entry.path or entry.value))
end)

return M
