-- Test stub: fzf-lua's entry parsing, for plain `path[:line[:col]]` lines (no icons here).
local M = {}

function M.entry_to_file(entry, opts)
  local file, line = entry:match('^([^:]+):?(%d*)')
  local cwd = opts and (opts.cwd or opts._cwd)
  if cwd and vim.fn.isabsolutepath(file) == 0 then file = vim.fs.joinpath(cwd, file) end
  return { stripped = entry, path = file, line = tonumber(line) or 0 }
end

return M
