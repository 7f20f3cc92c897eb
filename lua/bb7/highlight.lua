--- bb7 highlight groups: defined with `default = true` (a colorscheme or the user wins) and
--- re-applied on `ColorScheme`. The list also feeds the generated help (|bb7-highlights|).
local M = {}

--- { name, definition, description }, in documentation order.
M.groups = {
  { 'BB7SignModified', { link = 'Changed' }, 'Sign of a file with a pending change (`M`).' },
  { 'BB7SignAdded', { link = 'Added' }, 'Sign of a pending new file (`A`).' },
  {
    'BB7SignAddedExists',
    { link = 'DiagnosticWarn' },
    'Sign of a pending new file whose path now exists (`!A`).',
  },
  { 'BB7SignOutOfSync', { link = 'DiagnosticWarn' }, 'Sign of a file changed locally (`~`).' },
  { 'BB7SignConflict', { link = 'DiagnosticError' }, 'Sign of a conflict (`~M`).' },
  { 'BB7SignReadonly', { link = 'Comment' }, 'Sign of a read-only context file (`R`).' },
  { 'BB7SignSection', { link = 'Comment' }, 'Sign of a file with a section in context (`S`).' },
  { 'BB7SignPendingLine', { link = 'Changed' }, 'Sign on lines a pending change touches.' },
}

function M.apply()
  for _, group in ipairs(M.groups) do
    vim.api.nvim_set_hl(0, group[1], vim.tbl_extend('force', group[2], { default = true }))
  end
end

return M
