-- The keys bb7 maps in its own buffers are declared once (lua/bb7/keys.lua): each does
-- something where it applies, each pane lists its keys in help order, and one set to false
-- is left out.
local spec = require('spec')
local test, eq = spec.test, spec.eq

test('every key declared for the chat view does something there', function()
  local actions = require('bb7.chat.keys').actions
  local without = {}
  for _, key in ipairs(require('bb7.keys').specs) do
    local elsewhere = key.panes[1] == 'review' or key.panes[1] == 'editor'
    if not elsewhere and not actions[key.name] then table.insert(without, key.name) end
  end
  eq({}, without)
end)

test("a pane's keys are its declared ones in help order, the disabled left out", function()
  local function names(pane)
    local lhs = vim.tbl_map(function(key) return key[1] end, require('bb7.chat.keys').list(pane))
    return table.concat(lhs, ' ')
  end
  require('bb7').setup()
  local input = names('input')
  eq(true, vim.startswith(input, '<CR> <C-s>'), input)
  require('bb7').setup({ keys = { send_insert = false } })
  eq((input:gsub(' <C%-s>', '', 1)), names('input'))
end)
