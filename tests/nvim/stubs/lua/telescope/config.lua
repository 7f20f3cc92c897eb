-- Test stub of telescope.config `values` (telescope.nvim at
-- 7d324792b7943e4aa16ad007212e6acc6f9fe335): the configured sorters and previewers, which
-- the stub's pickers do not use (its entries stay in the finder's order).
local function none() return {} end
return { values = { file_sorter = none, generic_sorter = none, file_previewer = none } }
