-- Test stub: a static finder; entries as telescope makes them (the default entry maker keeps
-- the string as value, ordinal and display).
local M = {}

function M.new_table(opts)
  local make = opts.entry_maker
    or function(item) return { value = item, ordinal = item, display = item } end
  return { entries = vim.tbl_map(make, opts.results) }
end

return M
