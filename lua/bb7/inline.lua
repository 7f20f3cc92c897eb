--- `:BB7Edit` (|:BB7Edit|): an edit of some lines in place. The lines (the selection, or the
--- function or block under the cursor) and the instruction go to the project's inline chat
--- (the host's `inline_edit`); the answer streams as a preview under them, virtual lines that
--- leave the buffer alone, and once it ends its change opens in the review (`bb7.review`) in
--- that window. The host decides what is sent and what the change is; this module finds the
--- lines, draws the preview and opens the review.
local M = {}

M.ns = vim.api.nvim_create_namespace('bb7_inline')

-- The newest preview lines shown: a long answer scrolls in place instead of pushing the
-- rest of the file off the screen.
local MAX_LINES = 20

-- Tree-sitter node types (by a word in their name) that make a block of their own: the
-- innermost one around the cursor is the block `:BB7Edit` edits without a range.
local BLOCKS = {
  'function',
  'method',
  'class',
  'struct',
  'impl',
  'interface',
  'enum',
  'trait',
  'module',
  'namespace',
  'constructor',
}

---@class bb7.InlineEdit
---@field id string the send's request id
---@field buf integer
---@field win integer the window it was asked in (the review opens there)
---@field path string
---@field mark integer? the preview's extmark, on the last line edited
---@field row integer 0-based last line edited (where the preview goes first)
---@field instruction string
---@field prose string the model's words so far
---@field code string the text its edits write so far
---@field note string what the header says is happening
---@field dirty boolean? a draw is scheduled

local H = {
  edits = {}, ---@type table<string, bb7.InlineEdit> by request id
  subscribed = false,
}

local backend = require('bb7.util').backend
local notify = require('bb7.util').notify

local function blank(line) return line == nil or line:match('^%s*$') ~= nil end

--- The paragraph around 0-based `row` (lines up to the blank ones around it), 1-based; nil on
--- a blank line.
---@param buf integer
---@param row integer
---@return integer? first, integer? last
local function paragraph(buf, row)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if blank(lines[row + 1]) then return nil end
  local first, last = row + 1, row + 1
  while first > 1 and not blank(lines[first - 1]) do
    first = first - 1
  end
  while last < #lines and not blank(lines[last + 1]) do
    last = last + 1
  end
  return first, last
end

---@param kind string
---@return boolean
local function is_block(kind)
  for _, word in ipairs(BLOCKS) do
    if kind:find(word, 1, true) then return true end
  end
  return false
end

--- The tree-sitter node `:BB7Edit` takes at 0-based `row`: the innermost function-like node
--- there, else the top-level one; nil without a parser or off every node.
---@param buf integer
---@param row integer
---@return TSNode?
local function block_node(buf, row)
  local ok, parser = pcall(vim.treesitter.get_parser, buf, nil, { error = false })
  if not ok or not parser then return nil end
  parser:parse()
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ''
  local col = math.max((line:find('%S') or 1) - 1, 0)
  local node =
    vim.treesitter.get_node({ bufnr = buf, pos = { row, col }, ignore_injections = true })
  local chosen, top
  while node and node:parent() do
    if not chosen and is_block(node:type()) then chosen = node end
    top = node
    node = node:parent()
  end
  return chosen or top
end

--- The 1-based first and last lines of the function or block under 0-based `row`: a
--- tree-sitter node where the buffer has a parser (the innermost function, method, class...
--- around it, else the top-level statement there), else the paragraph; nil on a blank line.
---@param buf integer
---@param row integer
---@return integer? first, integer? last
function M.block(buf, row)
  local node = not blank(vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1])
    and block_node(buf, row)
  if node then
    local first, _, last, last_col = node:range()
    -- A node that ends at the start of a line ends on the line before.
    if last_col == 0 and last > first then last = last - 1 end
    return first + 1, last + 1
  end
  return paragraph(buf, row)
end

--- The preview's lines: the instruction and what is happening, the model's words, then the
--- text its edits write (the newest `MAX_LINES`).
---@param edit bb7.InlineEdit
---@return table[] virt_lines
local function preview_lines(edit)
  local body = {}
  local pad = (' '):rep(vim.o.columns)
  local tab = (' '):rep(vim.bo[edit.buf].tabstop)
  local prose = vim.trim(edit.prose)
  if prose ~= '' then
    for _, line in ipairs(vim.split(prose, '\n', { plain = true })) do
      table.insert(body, { { '  ' .. line, 'BB7InlineNote' } })
    end
  end
  local code = edit.code:gsub('\n$', '')
  if code ~= '' then
    for _, line in ipairs(vim.split(code, '\n', { plain = true })) do
      table.insert(body, { { line:gsub('\t', tab) .. pad, 'BB7InlinePreview' } })
    end
  end
  local hidden = math.max(#body - MAX_LINES, 0)
  local header = ('bb7 edit · %s · %s'):format(edit.instruction, edit.note)
  if hidden > 0 then header = header .. (' · %d lines above'):format(hidden) end
  local lines = { { { header, 'BB7InlineNote' } } }
  for i = hidden + 1, #body do
    table.insert(lines, body[i])
  end
  return lines
end

--- Draws the preview of `edit` under its lines (where its mark has moved to, after edits
--- above it).
---@param edit bb7.InlineEdit
local function draw(edit)
  edit.dirty = false
  if not vim.api.nvim_buf_is_valid(edit.buf) then return end
  local row = edit.row
  if edit.mark then
    row = vim.api.nvim_buf_get_extmark_by_id(edit.buf, M.ns, edit.mark, {})[1] or row
  end
  row = math.min(row, vim.api.nvim_buf_line_count(edit.buf) - 1)
  edit.mark = vim.api.nvim_buf_set_extmark(edit.buf, M.ns, row, 0, {
    id = edit.mark,
    virt_lines = preview_lines(edit),
  })
end

--- Draws once the batch of events being handled is in (one draw for its many chunks).
---@param edit bb7.InlineEdit
local function schedule_draw(edit)
  if edit.dirty then return end
  edit.dirty = true
  vim.schedule(function()
    if H.edits[edit.id] == edit then draw(edit) end
  end)
end

---@param edit bb7.InlineEdit
local function clear(edit)
  H.edits[edit.id] = nil
  if edit.mark and vim.api.nvim_buf_is_valid(edit.buf) then
    vim.api.nvim_buf_del_extmark(edit.buf, M.ns, edit.mark)
  end
end

local function shown(path) return vim.fn.fnamemodify(path, ':~:.') end

--- The answer ended: the preview goes; a change of the file opens in the review in the
--- window the edit was asked in (showing the buffer there again if it moved on).
---@param edit bb7.InlineEdit
---@param done bb7.SendDone
local function finish(edit, done)
  clear(edit)
  if not done.ok then
    if done.kind == 'cancelled' or done.kind == 'lost' then return end
    local why = (done.message or '') ~= '' and done.message or 'no answer'
    return notify(('edit of %s failed: %s'):format(shown(edit.path), why), 'error')
  end
  if not vim.tbl_contains(done.files or {}, edit.path) then
    return notify(('no change to %s: :BB7Chat shows the answer'):format(shown(edit.path)), 'warn')
  end
  if not vim.api.nvim_buf_is_valid(edit.buf) then return end
  local win = edit.win
  if not vim.api.nvim_win_is_valid(win) then win = vim.fn.bufwinid(edit.buf) end
  if win == -1 then
    return notify(('edit of %s ready: :BB7Review there'):format(shown(edit.path)))
  end
  if vim.api.nvim_win_get_buf(win) ~= edit.buf then vim.api.nvim_win_set_buf(win, edit.buf) end
  vim.api.nvim_win_call(win, function() require('bb7.review').open(edit.buf) end)
end

local function subscribe()
  if H.subscribed then return end
  H.subscribed = true
  local events = require('bb7.events')
  events.on('request_started', function(p)
    local edit = H.edits[p.request_id]
    if not edit then return end
    -- A repair's answer writes afresh.
    edit.prose, edit.code = '', ''
    edit.note = p.repair and 'repairing' or 'waiting for the model'
    schedule_draw(edit)
  end)
  events.on('chunk', function(p)
    local edit = H.edits[p.request_id]
    if not edit then return end
    edit.prose = edit.prose .. p.event.text
    edit.note = 'streaming'
    schedule_draw(edit)
  end)
  events.on('inline_text', function(p)
    local edit = H.edits[p.request_id]
    if not edit then return end
    edit.code = edit.code .. p.text
    edit.note = 'writing'
    schedule_draw(edit)
  end)
  events.on('done', function(p)
    local edit = H.edits[p.request_id]
    if edit then finish(edit, p) end
  end)
end

--- Whether the send `request_id` is an inline edit's (its end is this module's to say).
---@param request_id string
---@return boolean
function M.owns(request_id) return H.edits[request_id] ~= nil end

--- The preview of the edit streaming in `buf`: its lines as drawn (header first), or nil.
---@param buf integer
---@return string[]?
function M.preview(buf)
  for _, edit in pairs(H.edits) do
    if edit.buf == buf and edit.mark then
      local mark = vim.api.nvim_buf_get_extmark_by_id(buf, M.ns, edit.mark, { details = true })
      local lines = {}
      for _, chunks in ipairs(mark[3] and mark[3].virt_lines or {}) do
        table.insert(lines, (chunks[1][1]:gsub('%s+$', '')))
      end
      return lines
    end
  end
  return nil
end

--- Sends lines `first` to `last` (1-based) of `buf` with `instruction` to the inline chat
--- and previews the answer under them.
---@param buf integer
---@param first integer
---@param last integer
---@param instruction string
local function start(buf, first, last, instruction)
  subscribe()
  local path = vim.api.nvim_buf_get_name(buf)
  local id = require('bb7.util').request_id()
  local edit = {
    id = id,
    buf = buf,
    win = vim.fn.bufwinid(buf),
    path = path,
    row = last - 1,
    instruction = instruction,
    prose = '',
    code = '',
    note = 'sending',
  }
  if vim.api.nvim_get_current_buf() == buf then edit.win = vim.api.nvim_get_current_win() end
  H.edits[id] = edit
  draw(edit)
  require('bb7.activity').quiet(id)
  local args = {
    request_id = id,
    path = path,
    start_line = first,
    end_line = last,
    instruction = instruction,
    buffers = require('bb7.buffer').for_request(path),
  }
  backend().request('inline_edit', args, function(err, said)
    if err then
      clear(edit)
      return backend().report(err)
    end
    notify(said.message)
    local chat = package.loaded['bb7.chat']
    if chat and chat.is_open() then chat.refresh() end
  end)
end

--- `:BB7Edit`: lines `first` to `last` of `buf` changed as `instruction` says (asked for
--- first when empty).
---@param buf integer
---@param first integer
---@param last integer
---@param instruction string
function M.edit(buf, first, last, instruction)
  if instruction ~= '' then return start(buf, first, last, instruction) end
  local where = first == last and ('line %d'):format(first) or ('lines %d-%d'):format(first, last)
  vim.ui.input({ prompt = ('bb7: how should %s change? '):format(where) }, function(text)
    if text and vim.trim(text) ~= '' and vim.api.nvim_buf_is_valid(buf) then
      start(buf, first, last, vim.trim(text))
    end
  end)
end

return M
