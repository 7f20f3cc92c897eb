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
    -- A free-form name (BB7NewChat) or words (BB7Search) complete nothing.
    if command.nargs ~= '0' and name ~= 'BB7NewChat' and name ~= 'BB7Search' then
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
  eq('stopped', require('bb7.backend').state())
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
