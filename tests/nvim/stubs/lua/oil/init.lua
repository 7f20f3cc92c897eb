-- Test stub of oil.nvim's public API over a real buffer: an oil buffer is named
-- `oil://<dir>/` and lists one entry per line (directories end in `/`).
local M = {}

function M.get_current_dir(bufnr)
  local dir = vim.api.nvim_buf_get_name(bufnr or 0):match('^oil://(.*)$')
  return dir
end

function M.get_cursor_entry()
  if vim.bo.filetype ~= 'oil' then return nil end
  local name = vim.trim(vim.api.nvim_get_current_line())
  if name == '' then return nil end
  local dir = name:match('^(.*)/$')
  return { name = dir or name, type = dir and 'directory' or 'file', parsed_name = dir or name }
end

return M
