-- Test stub of telescope.nvim: only what bb7's integration and a user's mapping touch
-- (pickers.new():find(), finders.new_table, config.values, actions, actions.state), behaving
-- as telescope does: a prompt buffer with its mappings, <Tab> toggles the multi-selection and
-- moves on, <CR> runs `select_default` (or what replaced it), get_multi_selection() lists the
-- toggled entries.
return {}
