-- What `@` completes to in the chat view's input, the same for the omnifunc and the nvim-cmp
-- and blink.cmp sources: the live parts (also after a bare `@`), then the project's files; a
-- chosen part is added as a part, a chosen path as a file. The project's files are given here
-- as the host would list them (no host runs).
local spec = require('spec')
local test, eq = spec.test, spec.eq

local FILES = { 'src/diff.py', 'a.py', 'docs/index.md' }

local function listed()
  require('bb7.chat.picker').load = function(cb) cb(FILES, '/project') end
end

--- Records what an accepted item adds instead of asking the host.
local function recording()
  local added = {}
  require('bb7.live').add = function(words) table.insert(added, 'part ' .. words[1]) end
  require('bb7.chat.picker').add = function(path) table.insert(added, 'file ' .. path) end
  return added
end

local function words(items, field)
  return vim.tbl_map(function(item) return item[field or 'word'] end, items)
end

test('a bare @ offers the live parts, then every file', function()
  local input = require('bb7.chat.input')
  eq(
    { 'diagnostics', 'diff', 'terminal', 'src/diff.py', 'a.py', 'docs/index.md' },
    words(input.candidates('', FILES))
  )
  eq({ 'diagnostics', 'diff', 'docs/index.md' }, words(input.candidates('d', FILES)))
  eq({ 'diff', 'src/diff.py' }, words(input.candidates('diff', FILES, true)))
  eq({ bb7_part = 'diff' }, input.candidates('dif', FILES)[1].data)
end)

test('the blink.cmp source offers the live parts and adds the one accepted', function()
  listed()
  local added = recording()
  local blink = require('bb7.integrations.blink')
  local got
  blink.get_completions(nil, { line = 'see @di', cursor = { 1, 7 } }, function(r) got = r end)
  eq({ 'diagnostics', 'diff', 'src/diff.py', 'docs/index.md' }, words(got.items, 'label'))
  eq('bb7 live', got.items[1].labelDetails.description)
  eq(
    { start = { line = 0, character = 5 }, ['end'] = { line = 0, character = 7 } },
    got.items[1].textEdit.range
  )
  blink.execute(nil, nil, got.items[2], function() end, function() end)
  blink.execute(nil, nil, got.items[3], function() end, function() end)
  eq({ 'part diff', 'file src/diff.py' }, added)
end)

test(
  'the nvim-cmp source offers the live parts after a bare @ and adds the one confirmed',
  function()
    listed()
    local added = recording()
    local cmp = require('bb7.integrations.cmp')
    local got
    cmp.complete(nil, { context = { cursor_before_line = 'see @' } }, function(r) got = r end)
    eq(
      { 'diagnostics', 'diff', 'terminal', 'src/diff.py', 'a.py', 'docs/index.md' },
      words(got.items, 'label')
    )
    eq('bb7 live', got.items[3].detail)
    cmp.execute(nil, got.items[3], function() end)
    eq({ 'part terminal' }, added)
  end
)
