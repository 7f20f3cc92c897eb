-- Test stub of telescope.finders (telescope.nvim at 7d324792b7943e4aa16ad007212e6acc6f9fe335):
-- `new_table({ results, entry_maker })` makes its entries with `entry_maker`, by default
-- make_entry.gen_from_string (the string is the value, ordinal and display).
local M = {}

function M.new_table(opts)
  local make = opts.entry_maker or require('telescope.make_entry').gen_from_string(opts)
  return { entries = vim.tbl_map(make, opts.results) }
end

return M
