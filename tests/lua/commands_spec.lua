-- Every command and <Plug> mapping is defined with its description, nothing is mapped
-- globally, and usage mistakes are one-line messages said without starting the host.
local spec = require('spec')
local test, eq, starts = spec.test, spec.eq, spec.starts

local COMMANDS = {
  'BB7Add',
  'BB7AddReadonly',
  'BB7Agent',
  'BB7Apply',
  'BB7ApplyAll',
  'BB7Cancel',
  'BB7Chat',
  'BB7Check',
  'BB7Compact',
  'BB7Diff',
  'BB7Discard',
  'BB7Edit',
  'BB7EditInstructions',
  'BB7Init',
  'BB7Install',
  'BB7Log',
  'BB7Merge',
  'BB7Model',
  'BB7NewChat',
  'BB7Paste',
  'BB7PasteImage',
  'BB7Prompt',
  'BB7RefreshModels',
  'BB7Remove',
  'BB7Review',
  'BB7Search',
  'BB7UndoApply',
  'BB7Version',
}

--- The messages running `command` gives.
local function said(command)
  return vim.tbl_map(function(n) return n.msg end, spec.notified(function() vim.cmd(command) end))
end

test('every command is defined with a description', function()
  local commands = vim.api.nvim_get_commands({})
  local names = vim.tbl_filter(function(name) return name:match('^BB7') end, vim.tbl_keys(commands))
  table.sort(names)
  eq(COMMANDS, names)
  for _, name in ipairs(COMMANDS) do
    local command = commands[name]
    starts('bb7: ', command.definition, name)
    -- A free-form name (BB7NewChat), words (BB7Search) or instruction (BB7Edit) complete
    -- nothing.
    local free = { BB7NewChat = true, BB7Search = true, BB7Edit = true }
    if command.nargs ~= '0' and not free[name] then
      eq(true, command.complete ~= nil, name .. ' takes an argument but completes nothing')
    end
  end
  eq(true, commands.BB7Apply.bang)
  eq('.', commands.BB7Add.range)
end)

test('plug mappings have descriptions and nothing is mapped globally', function()
  for _, plug in ipairs(require('bb7.commands').plugs) do
    starts('bb7: ', vim.fn.maparg(plug[1], plug[2], false, true).desc, plug[1])
  end
  require('bb7').setup()
  for _, mode in ipairs({ 'n', 'x', 'i', 'o' }) do
    for _, mapping in ipairs(vim.api.nvim_get_keymap(mode)) do
      if (mapping.desc or ''):match('^bb7') then starts('<Plug>(bb7-', mapping.lhs) end
    end
  end
end)

test('a file command outside a file buffer says what to give', function()
  eq({ 'bb7: no file: give a path, or run the command from a file buffer' }, said('BB7Add'))
  eq({ 'bb7: no file here: :BB7Edit edits the lines of a file' }, said('BB7Edit shorter'))
  eq('stopped', require('bb7.backend').state())
end)

test(':BB7Edit on a blank line without a range says to select the lines', function()
  vim.cmd.edit(vim.fn.tempname() .. '.txt')
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'one', '', 'two' })
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  eq({ 'bb7: no block under the cursor: select the lines' }, said('BB7Edit shorter'))
  eq('stopped', require('bb7.backend').state())
end)

test("the inline edit's key is mapped in Visual mode only when set, and unmapped again", function()
  local function mapped() return vim.fn.maparg('<Space>e', 'x', false, true).rhs end
  require('bb7').setup()
  eq(nil, mapped())
  require('bb7').setup({ keys = { inline_edit = '<Space>e' } })
  eq(':BB7Edit<CR>', mapped())
  starts('bb7: edit the selected lines in place', vim.fn.maparg('<Space>e', 'x', false, true).desc)
  require('bb7').setup()
  eq(nil, mapped())
end)

test(
  'paste from an empty register says what to do',
  function() eq({ 'bb7: register q is empty: copy the model response first' }, said('BB7Paste q')) end
)

test('the log says when logging is off', function()
  vim.env.BB7_LOG_LEVEL = 'off'
  eq({ "bb7: logging is off (log_level = 'off'): nothing new is written here" }, said('BB7Log'))
  eq(2, vim.fn.tabpagenr('$'))
  vim.env.BB7_LOG_LEVEL = nil
end)
