-- How each status of the vocabulary is presented (lua/bb7/status.lua's table), and which ask
-- before an apply: the same statuses the host refuses without force.
local spec = require('spec')
local test, eq = spec.test, spec.eq

test('every status of the vocabulary has a presentation row', function()
  eq({}, require('bb7.status').unpresented())
  -- A status added to the vocabulary without its row (or its question) is reported.
  local statuses = vim.deepcopy(require('bb7.vocab').statuses)
  table.insert(
    statuses,
    { status = 'D', pending = true, needs_force = true, meaning = 'a pending deletion' }
  )
  eq({ 'D' }, require('bb7.status').unpresented(statuses))
end)

test('apply asks first exactly for the statuses the host refuses without force', function()
  local asks = {}
  for _, facts in ipairs(require('bb7.vocab').statuses) do
    if require('bb7.status').confirm(facts.status) then table.insert(asks, facts.status) end
  end
  table.sort(asks)
  eq({ '!A', '~M' }, asks)
end)

test('reading a status never starts the host', function()
  require('bb7').setup()
  vim.cmd.edit(vim.fn.tempname())
  eq('', require('bb7').status(0))
  eq('', require('bb7').statusline())
  -- As a statusline draws it.
  eq('', vim.api.nvim_eval_statusline('%{v:lua.require("bb7").statusline()}', {}).str)
  eq('stopped', require('bb7.backend').state())
end)
