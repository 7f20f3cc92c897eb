-- bb7 puts text into a buffer as one undoable change of the lines that differ only (so marks
-- and folds elsewhere stay), never over a buffer that changed since the host read it.
local spec = require('spec')
local test, eq = spec.test, spec.eq

--- A scratch buffer holding `lines`, with a mark on each line (to see which lines were set).
local function buffer(lines)
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  local ns = vim.api.nvim_create_namespace('buffer_spec')
  for i = 1, #lines do
    vim.api.nvim_buf_set_extmark(buf, ns, i - 1, 0, { id = i })
  end
  return buf, ns
end

--- The ids of the marks still on a line of their own, in order.
local function kept(buf, ns)
  return vim.tbl_map(function(m) return m[1] end, vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, {}))
end

test('only the lines that differ are set, and the buffer is not written', function()
  local buf, ns = buffer({ 'one', 'two', 'three', 'four', 'five' })
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  eq(
    nil,
    require('bb7.buffer').put(buf, tick, { 'one', 'TWO', 'three', 'four', 'five', 'six' }, true)
  )
  eq(
    { 'one', 'TWO', 'three', 'four', 'five', 'six' },
    vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  )
  eq({ 1, 2, 3, 4, 5 }, kept(buf, ns)) -- line 2's mark moved with its change, none lost
  eq(true, vim.bo[buf].modified)
  eq(true, vim.bo[buf].endofline)
end)

test('lines removed and added at both ends', function()
  local buf = buffer({ 'a', 'b', 'c' })
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  eq(nil, require('bb7.buffer').put(buf, tick, { 'new first', 'b', 'new last' }, false))
  eq({ 'new first', 'b', 'new last' }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  eq({ false, false }, { vim.bo[buf].endofline, vim.bo[buf].fixendofline })
end)

test('a buffer that changed since the text was read is left alone, and said why', function()
  local buf = buffer({ 'one' })
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'typed meanwhile' })
  eq('its buffer changed just now', require('bb7.buffer').put(buf, tick, { 'two' }, true))
  eq({ 'typed meanwhile' }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
end)
