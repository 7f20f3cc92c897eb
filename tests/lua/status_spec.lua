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

-- The host's `status_changed` events, as the plugin takes them (the host's own path to the
-- editor is tests/nvim/test_nvim_status.py's).

--- bb7's signs in the current buffer: { line, text, group } each.
local function signs()
  local marks =
    vim.api.nvim_buf_get_extmarks(0, require('bb7.status').ns, 0, -1, { details = true })
  return vim.tbl_map(function(m) return { m[2] + 1, m[4].sign_text, m[4].sign_hl_group } end, marks)
end

local function status_of(path, status, lines)
  return { 'status_changed', { files = { [path] = { status = status, lines = lines or {} } } } }
end

test(
  'a status event shows in the signs, the buffer variable, the statusline and an autocmd',
  function()
    local project = spec.project()
    require('bb7').setup()
    vim.cmd.edit('a.py')
    local seen = {}
    vim.api.nvim_create_autocmd('User', {
      pattern = 'BB7StatusChanged',
      callback = function(ev) table.insert(seen, ev.data) end,
    })
    spec.host_sends(status_of(project .. '/a.py', 'M', { 2, 3 }))
    eq('M', require('bb7').status())
    eq('M', vim.b.bb7_status)
    eq({
      { 1, 'M ', 'BB7SignModified' },
      { 2, '│ ', 'BB7SignPendingLine' },
      { 3, '│ ', 'BB7SignPendingLine' },
    }, signs())
    eq('bb7:M', vim.api.nvim_eval_statusline('%{v:lua.require("bb7").statusline()}', {}).str)
    eq({ { paths = { project .. '/a.py' } } }, seen)
  end
)

test("an agent's own write waiting for review is marked in the statusline", function()
  local project = spec.project()
  require('bb7').setup()
  vim.cmd.edit('a.py')
  local event = status_of(project .. '/a.py', '')
  event[2].files[project .. '/a.py'].agent = true
  spec.host_sends(event)
  eq('', require('bb7').status())
  eq('bb7:agent', require('bb7').statusline())
  event[2].files[project .. '/a.py'].status = '~' -- the user edited it since
  spec.host_sends(event)
  eq('bb7:~ agent', require('bb7').statusline())
  spec.host_sends(status_of(project .. '/a.py', '')) -- reviewed
  eq('', require('bb7').statusline())
end)

test('a removed file loses its status and signs, and its sign column is left as it was', function()
  local project = spec.project()
  require('bb7').setup()
  vim.cmd.edit('a.py')
  vim.wo.signcolumn = 'auto'
  spec.host_sends(status_of(project .. '/a.py', '~M', { 2 }))
  eq({ { 1, '~M', 'BB7SignConflict' }, { 2, '│ ', 'BB7SignPendingLine' } }, signs())
  spec.host_sends({ 'status_changed', { files = {}, removed = { project .. '/a.py' } } })
  eq('', vim.b.bb7_status)
  eq({}, signs())
  eq('auto', vim.wo.signcolumn)
  eq('', require('bb7').statusline())
end)

test('a full refresh replaces the whole cache', function()
  local project = spec.project()
  require('bb7').setup()
  local full = status_of(project .. '/b.py', 'R')
  full[2].full = true
  spec.host_sends(status_of(project .. '/a.py', 'M'), full)
  eq({ project .. '/b.py' }, vim.tbl_keys(require('bb7.status').files()))
end)

test('a file opened after the event shows its status from the cache', function()
  local project = spec.project()
  require('bb7').setup()
  spec.host_sends(status_of(project .. '/b.py', 'A'))
  vim.cmd.edit('b.py')
  eq({ { 1, 'A ', 'BB7SignAdded' } }, signs())
end)

test('signs follow the options', function()
  local project = spec.project()
  require('bb7').setup({ signs = { priority = 9, conflict = { text = '!!' } } })
  vim.cmd.edit('a.py')
  spec.host_sends(status_of(project .. '/a.py', '~M'))
  local mark =
    vim.api.nvim_buf_get_extmarks(0, require('bb7.status').ns, 0, -1, { details = true })[1][4]
  eq({ '!!', 'BB7SignConflict', 9 }, { mark.sign_text, mark.sign_hl_group, mark.priority })
  require('bb7').setup({ signs = { enabled = false } })
  eq({}, signs())
end)

test('response events become User autocmds', function()
  spec.project()
  require('bb7').setup()
  local seen = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = { 'BB7RequestStarted', 'BB7ResponseDone' },
    callback = function(ev) table.insert(seen, { ev.match, ev.data }) end,
  })
  local done = { request_id = 'r1', ok = false, files = { 'a.py' }, errors = { 'not found' } }
  spec.notified(
    function() spec.host_sends({ 'request_started', { request_id = 'r1' } }, { 'done', done }) end
  )
  eq({ { 'BB7RequestStarted', { request_id = 'r1' } }, { 'BB7ResponseDone', done } }, seen)
  eq('stopped', require('bb7.backend').state())
end)

test('file arguments complete the files of the chat from the cache', function()
  local project = spec.project()
  require('bb7').setup()
  spec.host_sends({
    'status_changed',
    { files = { [project .. '/a.py'] = { status = 'M' }, [project .. '/b.py'] = { status = '' } } },
  })
  local function complete(line) return vim.fn.getcompletion(line, 'cmdline') end
  eq({ 'a.py', 'b.py' }, complete('BB7Remove '))
  eq({ 'a.py' }, complete('BB7Apply ')) -- only files with a pending change
  eq({}, complete('BB7Discard b'))
  eq(true, vim.tbl_contains(complete('BB7Paste '), 'a'))
  eq(true, vim.tbl_contains(complete('BB7Add '), 'a.py'))
end)

test('next pending jumps to the lines a pending change touches', function()
  local project = spec.project()
  require('bb7').setup()
  vim.cmd.edit('a.py')
  spec.host_sends(status_of(project .. '/a.py', 'M', { 3 }))
  vim.cmd('execute "normal \\<Plug>(bb7-next-pending)"')
  eq(3, vim.fn.line('.'))
  vim.cmd('execute "normal \\<Plug>(bb7-prev-pending)"') -- nothing above line 3: stays
  eq(3, vim.fn.line('.'))
end)
