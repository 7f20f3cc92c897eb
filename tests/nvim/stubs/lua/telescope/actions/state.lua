-- Test stub of telescope.actions.state (telescope.nvim at
-- 7d324792b7943e4aa16ad007212e6acc6f9fe335): `get_current_picker(prompt_bufnr)` is the picker
-- of that prompt, `get_selected_entry()` the global `selected_entry` (the last picker's
-- selection), not the entry of a given prompt.
local M = {}

function M.get_current_picker(prompt_bufnr) return require('telescope.pickers').open[prompt_bufnr] end

function M.get_selected_entry() return require('telescope.pickers').selected_entry end

return M
