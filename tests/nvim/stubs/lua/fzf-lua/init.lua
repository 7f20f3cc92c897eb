-- Test stub of fzf-lua: `fzf_exec(contents, opts)` keeps the picker open until `accept`
-- stands for the user's keys: it hands the chosen lines to the action of `key` as fzf-lua does,
-- `action(selected, opts)` (an action may be a function or `{ fn = ... }`).
local M = { path = require('fzf-lua.path') }

function M.fzf_exec(contents, opts) M.running = { contents = contents, opts = opts or {} } end

--- The user selects lines `indices` (with --multi) and presses `key` (default 'enter').
function M.accept(indices, key)
  local run = assert(M.running, 'no fzf-lua picker open')
  M.running = nil
  local selected = vim.tbl_map(function(i) return run.contents[i] end, indices)
  local action = run.opts.actions[key or 'enter']
  if type(action) == 'table' then action = action.fn end
  action(selected, run.opts)
end

return M
