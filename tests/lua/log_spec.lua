-- A message in one line of the command area (lua/bb7/log.lua's `fit`): a line too long gives
-- its longest path away first, then its sentences after the first, and only then its end; the
-- lines after the first are said to be in :BB7Log.
local spec = require('spec')
local test, eq, starts, ends = spec.test, spec.eq, spec.starts, spec.ends

-- At 80 columns: the command area less 'showcmd' (68 cells), less "bb7: ".
local ROOM = 63
local LONG = 'some/deeply/nested/package/with/a/long/path/module_name.py'

--- The message fitted to ROOM, which must have cut it to within ROOM.
local function cut(message)
  local line, was_cut = require('bb7.log').fit(message, ROOM)
  eq(true, was_cut, line)
  eq(true, vim.api.nvim_strwidth(line) <= ROOM, line)
  return line
end

test(
  'a message that fits is itself',
  function()
    eq(
      { 'applied 1 of 2 pending changes', false },
      { require('bb7.log').fit('applied 1 of 2 pending changes', ROOM) }
    )
  end
)

test('a long path gives way first, from its left', function()
  local merged = cut(LONG .. ': merged; u undoes it, :w writes it')
  starts('…', merged)
  ends('/module_name.py: merged; u undoes it, :w writes it', merged)
  -- The message of a merge taking some hunks: it keeps ":w writes them".
  eq(
    '…/d.py: took some hunks, the rest stays pending; :w writes them',
    cut('src/pkg/d.py: took some hunks, the rest stays pending; :w writes them')
  )
  local undid = cut(('undid the apply of %s; its change is pending again'):format(LONG))
  starts('undid the apply of …', undid)
  ends('py; its change is pending again', undid)
end)

test(
  'with no path to give, the first sentence stays whole and the figures go',
  function()
    eq(
      'Too large to send: drop files or messages, or start a new chat.',
      cut('Too large to send: drop files or messages, or start a new chat. The prompt is 9k')
    )
  end
)

test("a command's ! ends no sentence: the end is cut and what to do leads", function()
  local held =
    'held by pid 42: :BB7Chat! takes it over (read-only here; it runs in a place far away)'
  starts('held by pid 42: :BB7Chat! takes it over (read-only', cut(held))
end)

test(
  'the lines after the first are said to be in the log',
  function()
    eq(
      'context nearly full: drop files or start a new chat (:BB7Log)',
      cut('context nearly full: drop files or start a new chat\nThe prompt is about 1,000 ...')
    )
  end
)

test('without a screen nothing is cut: nothing can wait for Enter', function()
  local message = ('x'):rep(200) .. '\nmore'
  eq({ message, false }, { require('bb7.log').one_line(message) })
end)
