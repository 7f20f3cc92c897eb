-- Test stub of telescope.nvim, written from nvim-telescope/telescope.nvim at
-- 7d324792b7943e4aa16ad007212e6acc6f9fe335: what bb7's integration and a user's mapping touch.
-- A picker is a prompt buffer in a window listing its finder's entries in order (no sorting:
-- the first is selected); its default mappings (mappings.lua) are `<Tab>` =
-- `toggle_selection + move_selection_worse`, `<Down>` = `move_selection_next`, `<CR>` =
-- `select_default`, then `attach_mappings(prompt_bufnr, map)` adds the picker's own.
return {}
