-- What `:BB7Edit` without a range edits (lua/bb7/inline.lua's `block`): the innermost function
-- around the cursor where the buffer has a tree-sitter parser (Neovim's own Lua and C
-- parsers; their trees differ between versions), else the top-level statement there; the
-- paragraph where there is no parser; nothing on a blank line.
local spec = require('spec')
local test, eq = spec.test, spec.eq

local function buffer(filetype, lines)
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = filetype
  return buf
end

local LUA = {
  'local M = {}', -- 1
  '',
  'function M.add(a, b)', -- 3
  '  local s = a + b',
  '  return s',
  'end', -- 6
  '',
  'local t = {', -- 8
  '  x = 1,',
  '}', -- 10
}

test('in Lua: the function around the cursor, else the statement there', function()
  local block = require('bb7.inline').block
  local buf = buffer('lua', LUA)
  eq({ 3, 6 }, { block(buf, 3) })
  eq({ 3, 6 }, { block(buf, 2) })
  eq({ 8, 10 }, { block(buf, 8) })
  eq({ 1, 1 }, { block(buf, 0) })
  eq({}, { block(buf, 1) })
end)

test('in C: the function around the cursor', function()
  local buf = buffer('c', { '#include <stdio.h>', '', 'int main(void) {', '  return 0;', '}' })
  eq({ 3, 5 }, { require('bb7.inline').block(buf, 3) })
end)

test('without a parser: the paragraph', function()
  local buf = buffer('text', { 'one', 'two', '', 'three', 'four', 'five', '', 'six' })
  local block = require('bb7.inline').block
  eq({ 4, 6 }, { block(buf, 4) })
  eq({ 1, 2 }, { block(buf, 0) })
  eq({ 8, 8 }, { block(buf, 7) })
  eq({}, { block(buf, 2) })
end)
