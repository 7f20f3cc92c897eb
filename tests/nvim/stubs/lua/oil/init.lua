-- Test stub of oil.nvim's public API, written from stevearc/oil.nvim at
-- b91ee5a77a6a9605d9c1aaf4fda74b66082c8297 (lua/oil/init.lua). `open(dir)` shows `dir` in the
-- current window as oil does: a buffer named `oil://<dir>/`, filetype 'oil', one line per
-- entry, `/<id> <name>` (directories end in `/`; no columns configured).
-- `get_current_dir(bufnr)` is the path of the buffer's URL, with its trailing slash;
-- `get_cursor_entry()` the entry of the cursor's line (mutator/parser.lua `parse_line`):
-- `{ name, type, id, parsed_name }`, or for a line typed by the user (no id) `{ name, type,
-- parsed_name }`, and nil on a blank line or outside an oil buffer.
local M = {}

function M.open(dir)
  dir = vim.fn.fnamemodify(dir, ':p')
  local names = {}
  for name, type in vim.fs.dir(dir) do
    table.insert(names, type == 'directory' and (name .. '/') or name)
  end
  table.sort(names)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, 'oil://' .. dir)
  for i, name in ipairs(names) do
    names[i] = ('/%03d %s'):format(i, name)
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, names)
  vim.api.nvim_win_set_buf(0, buf)
  vim.bo[buf].filetype = 'oil'
end

function M.get_current_dir(bufnr) return vim.api.nvim_buf_get_name(bufnr or 0):match('^oil://(.*)$') end

function M.get_cursor_entry()
  if vim.bo.filetype ~= 'oil' then return nil end
  local line = vim.api.nvim_get_current_line()
  local id, rest = line:match('^/(%d+) (.+)$')
  local name = vim.trim(rest or line)
  local dir = name:match('^(.*)/$')
  name = dir or name
  if name == '' then return nil end
  local type = dir and 'directory' or 'file'
  return { name = name, type = type, id = tonumber(id), parsed_name = name }
end

return M
