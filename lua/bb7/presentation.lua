--- How each status of `require('bb7.vocab').statuses` looks (the host decides the rest), as
--- data in its own module: `setup()` makes a `signs.*` option and a highlight group of each
--- row without loading `bb7.status`. A row: its `signs.*` option (the default text is the
--- status), its highlight group and the group that links to by default, and, for a status apply
--- refuses without force, the question asked before forcing it. A status without a row fails
--- tests/host/test_protocol_lua.py.
---@type table<string, { option: string, hl: string, link: string, confirm?: string }>
return {
  M = { option = 'modified', hl = 'BB7SignModified', link = 'Changed' },
  A = { option = 'added', hl = 'BB7SignAdded', link = 'Added' },
  ['!A'] = {
    option = 'added_exists',
    hl = 'BB7SignAddedExists',
    link = 'DiagnosticWarn',
    confirm = "%s now exists locally. Overwrite it with the model's new file?",
  },
  ['~'] = { option = 'out_of_sync', hl = 'BB7SignOutOfSync', link = 'DiagnosticWarn' },
  ['~M'] = {
    option = 'conflict',
    hl = 'BB7SignConflict',
    link = 'DiagnosticError',
    confirm = '%s changed locally since it was added. Apply over your changes?',
  },
  R = { option = 'readonly', hl = 'BB7SignReadonly', link = 'Comment' },
  ['~R'] = {
    option = 'readonly_out_of_sync',
    hl = 'BB7SignReadonlyOutOfSync',
    link = 'DiagnosticWarn',
  },
  S = { option = 'section', hl = 'BB7SignSection', link = 'Comment' },
}
