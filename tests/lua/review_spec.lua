-- The review's bar (lua/bb7/review.lua's `hint`): which hunk the cursor is on, then as many
-- of the configured keys as fit whole in the window's width.
local spec = require('spec')
local test, eq = spec.test, spec.eq

local HUNKS = { {}, {}, {} }

test('the bar names the hunk under the cursor, or counts them between hunks', function()
  require('bb7').setup()
  local hint = require('bb7.review').hint
  eq(' review 2/3', hint(HUNKS, 2, 11))
  eq(' review: 3 hunks', hint(HUNKS, nil, 16))
  eq(' review: 1 hunk', hint({ {} }, nil, 15))
end)

test('keys are added while they fit whole, the actions first', function()
  require('bb7').setup()
  local hint = require('bb7.review').hint
  eq(
    ' review 1/3 · ga accept · gr reject · gm amend · ]h/[h move · q quit · gA/gR all',
    hint(HUNKS, 1, 200)
  )
  -- ' review 1/3 · ga accept · gr reject' is 35 cells.
  eq(' review 1/3 · ga accept · gr reject', hint(HUNKS, 1, 35))
  eq(' review 1/3 · ga accept', hint(HUNKS, 1, 34))
  eq(' review 1/3', hint(HUNKS, 1, 12))
end)

test('a key set to false is left out of the bar', function()
  require('bb7').setup({ keys = { review_amend = false, review_accept_all = false } })
  eq(
    ' review 1/3 · ga accept · gr reject · ]h/[h move · q quit',
    require('bb7.review').hint(HUNKS, 1, 200)
  )
end)
