-- Test stub of telescope.make_entry (telescope.nvim at
-- 7d324792b7943e4aa16ad007212e6acc6f9fe335).
local M = {}

--- `gen_from_string`: `{ line }` read as value, ordinal and display.
function M.gen_from_string()
  return function(line) return { value = line, ordinal = line, display = line } end
end

--- `gen_from_file` (find_files' entries): the value is the path as the finder printed it
--- (relative to `cwd`), `cwd` the picker's directory, and `path` (looked up on access) the
--- absolute path when that file is readable, else the value.
function M.gen_from_file(opts)
  local cwd = vim.fn.fnamemodify((opts and opts.cwd) or vim.uv.cwd(), ':p'):gsub('/$', '')
  local mt = {
    __index = function(entry, key)
      if key == 'path' then
        local path = vim.fs.joinpath(entry.cwd, entry.value)
        return vim.uv.fs_access(path, 'R') and path or entry.value
      end
      if key == 'ordinal' or key == 'display' or key == 'filename' then return entry.value end
    end,
  }
  return function(line) return setmetatable({ value = line, cwd = cwd }, mt) end
end

return M
