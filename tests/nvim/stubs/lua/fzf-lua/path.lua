-- Test stub of fzf-lua.path `entry_to_file(entry, opts)` (ibhagwan/fzf-lua at
-- 9ad7340dcc6d2afc30e64fb4088597c7573ed62c): ANSI colours and what comes before the last
-- utils.nbsp (icons) are dropped, `~` becomes $HOME, a relative path is joined to
-- `opts.cwd` (or `opts._cwd`), and `path:line:col` is split (line and col 0 when absent).
local M = {}

function M.entry_to_file(entry, opts)
  opts = opts or {}
  local nbsp = '\xe2\x80\x82'
  local stripped = entry:gsub('\27%[[%d;]*m', '')
  local last = nil
  local at = 1
  while true do
    local s, e = stripped:find(nbsp, at, true)
    if not s then break end
    last, at = e, e + 1
  end
  if last then stripped = stripped:sub(last + 1) end
  stripped = stripped:gsub('^~', vim.env.HOME)
  local cwd = opts.cwd or opts._cwd
  if cwd and #cwd > 0 and vim.fn.isabsolutepath(stripped) == 0 then
    stripped = vim.fs.joinpath(cwd, stripped)
  end
  local file, line, col = stripped:match('^([^:]*):?(%d*):?(%d*)')
  return { stripped = stripped, path = file, line = tonumber(line) or 0, col = tonumber(col) or 0 }
end

return M
