-- Test stub of fzf-lua, written from ibhagwan/fzf-lua at
-- 9ad7340dcc6d2afc30e64fb4088597c7573ed62c. `fzf_exec(contents, opts)` and `files(opts)` open
-- the picker as fzf.lua `raw_fzf` does: a terminal in a floating window (a job standing for
-- fzf), entered in Terminal mode; `accept(indices, key)` stands for the user selecting lines
-- `indices` (--multi) and pressing `key` (default 'enter'): fzf exits. In the job's
-- `on_exit`, as core.lua `fzf` does, the window closes first, then actions.lua `act` calls
-- the key's action with the selected lines and the picker's options: `action(selected,
-- opts)`, or `action.fn(selected, opts)` for a table, still in Terminal mode (Neovim leaves
-- it once the callback is over). `files()` lists the files under `opts.cwd` (the current
-- directory) relative to it, each line led by its icon and utils.nbsp (as with an icon
-- provider installed), with the caller's actions beside the default ones.
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
  local run = { contents = contents, opts = opts }
  run.win = vim.api.nvim_open_win(vim.api.nvim_create_buf(false, true), true, {
    relative = 'editor',
    row = 1,
    col = 1,
    width = 40,
    height = 5,
  })
  run.job = vim.fn.jobstart({ 'sh', '-c', 'read answer' }, {
    term = true,
    on_exit = function()
      vim.api.nvim_win_close(run.win, true)
      local action = opts.actions[run.key]
      if type(action) == 'table' then action = action.fn end
      action(run.selected, opts)
    end,
  })
  vim.cmd.startinsert()
  M.running = run
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
  run.selected = vim.tbl_map(function(i) return run.contents[i] end, indices)
  run.key = key or 'enter'
  vim.fn.chansend(run.job, '\n')
end

return M
