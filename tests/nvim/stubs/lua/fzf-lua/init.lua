-- Test stub of fzf-lua, written from ibhagwan/fzf-lua at
-- 9ad7340dcc6d2afc30e64fb4088597c7573ed62c. `fzf_exec(contents, opts)` and `files(opts)` open
-- a picker that stays open until `accept(indices, key)` stands for the user: --multi
-- selected lines `indices`, then `key` (default 'enter'). As core.lua `fzf` does then, the
-- window closes first, and actions.lua `act` calls the key's action with the selected lines
-- and the picker's options: `action(selected, opts)`, or `action.fn(selected, opts)` for a
-- table. `files()` lists the files under `opts.cwd` (the current directory) relative to it,
-- each line led by its icon and utils.nbsp (as with an icon provider installed), with the
-- caller's actions beside the default ones.
local M = { path = require('fzf-lua.path') }

-- utils.lua `nbsp`: U+2002, between an entry's icons and its path.
M.nbsp = '\xe2\x80\x82'

function M.fzf_exec(contents, opts)
  opts = vim.tbl_extend('force', {}, opts or {})
  if type(contents) == 'function' then
    local lines = {}
    contents(function(line)
      if line then table.insert(lines, line) end
    end)
    contents = lines
  end
  M.running = { contents = contents, opts = opts }
end

function M.files(opts)
  opts = vim.tbl_extend('force', {}, opts or {})
  opts.cwd = opts.cwd or vim.uv.cwd()
  local lines = {}
  for name, type in vim.fs.dir(opts.cwd, { depth = math.huge }) do
    if type == 'file' and not name:match('^%.') and not name:match('/%.') then
      table.insert(lines, name)
    end
  end
  table.sort(lines)
  for i, name in ipairs(lines) do
    lines[i] = '*' .. M.nbsp .. name
  end
  opts.actions = vim.tbl_extend('force', { enter = function() end }, opts.actions or {})
  M.fzf_exec(lines, opts)
end

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
