-- Test stub of blink.cmp, written from Saghen/blink.cmp at
-- 73ea297bc665c936b51797d5a55599536ffee0d8: what it does with a source in Insert mode, with its
-- Lua matcher (`fuzzy.implementation = 'lua'`), the default trigger and the `<C-y>` key.
--   * lib/buffer_events.lua: InsertCharPre keeps the character; TextChangedI (fired once the
--     typeahead is empty: typed fast, only the last character counts) hands it on.
--   * completion/trigger/init.lua `on_char_added`: a source's trigger character starts a new
--     context, a keyword character keeps (or starts) one, anything else hides the menu.
--     `is_trigger_character` asks every enabled source (`enabled()`) for its characters.
--   * sources/lib/provider/init.lua `get_completions` and provider/list.lua
--     `is_valid_for_context`: a source is asked again only when its last response was
--     incomplete in the direction the text moved, or the context is new.
--   * fuzzy/lua/keyword.lua `get_keyword_range`: the keyword is `\k*` before the cursor with
--     'iskeyword' set to '@,48-57,_,-,192-255': it stops at `/`, `.` and `@`.
--   * fuzzy/lua/match.lua: the keyword's characters in order in `filterText or label`, case
--     ignored; scored (a match 12, its case 4, first character 12, after a delimiter 4, gaps
--     -5 then -1 per character, exact 4). fuzzy/sort.lua: by score, then sortText
--     (`table.sort`: items that tie stay in no set order; here the source's order stands).
--   * lib/text_edits.lua `get_from_item` (the edit's end moved by how far the cursor went
--     since the source answered) and completion/accept/init.lua: the source's
--     `execute(ctx, item, callback, default_implementation)`, whose default applies the edit.
local M = { context = nil, items = {}, lists = {} }

local H = { id = 0, last_char = '', config = nil, modules = {} }

local KEYWORD_CHARS = '@,48-57,_,-,192-255'
local BEFORE = vim.regex([[\k*$]])
local DELIMITERS = { [' '] = true, ['/'] = true, ['.'] = true, [','] = true, ['_'] = true }
DELIMITERS['-'], DELIMITERS[':'] = true, true

--- 0-based start and end of the keyword before byte column `col` of `line`.
local function keyword_range(line, col)
  local saved = vim.bo.iskeyword
  vim.bo.iskeyword = KEYWORD_CHARS
  local start = BEFORE:match_str(line:sub(1, col)) or col
  vim.bo.iskeyword = saved
  while start < col and line:sub(start + 1, start + 1) == '-' do
    start = start + 1
  end
  return start, col
end

local function is_keyword_char(char)
  if char == '-' then return true end
  local start, stop = keyword_range(char, #char)
  return start ~= stop
end

--- The score of `needle` in `haystack` (nil: no match).
local function match(needle, haystack)
  local score, at = 0, 1
  for i = 1, #needle do
    local want = needle:sub(i, i)
    local from = at
    local found = nil
    while at <= #haystack - #needle + i do
      if haystack:sub(at, at):lower() == want:lower() then
        found = at
        break
      end
      at = at + 1
    end
    if not found then return nil end
    score = score + 12
    if i > 1 and found > from then score = score - 5 - (found - from - 1) end
    if haystack:sub(found, found) == want then score = score + 4 end
    if found == 1 then
      score = score + 12
    elseif DELIMITERS[haystack:sub(found - 1, found - 1)] then
      score = score + 4
    end
    at = found + 1
  end
  if needle == haystack then score = score + 4 end
  return score
end

local function source(id)
  if not H.modules[id] then
    local spec = H.config.sources.providers[id]
    H.modules[id] = require(spec.module).new(spec.opts or {}, spec)
  end
  return H.modules[id]
end

local function enabled_sources()
  local out = {}
  for _, id in ipairs(H.config.sources.default) do
    local module = source(id)
    if module.enabled == nil or module:enabled() then out[id] = module end
  end
  return out
end

local function trigger_characters()
  local chars = {}
  for _, module in pairs(enabled_sources()) do
    if module.get_trigger_characters then
      vim.list_extend(chars, module:get_trigger_characters())
    end
  end
  return chars
end

--- The items of every list, filtered and sorted on the keyword before the cursor.
local function filter()
  local ctx = M.context
  if not ctx then return end
  local start, stop = keyword_range(ctx.line, ctx.cursor[2])
  local keyword = ctx.line:sub(start + 1, stop)
  local matched = {}
  for _, id in ipairs(H.config.sources.default) do
    for _, item in ipairs(M.lists[id] and M.lists[id].items or {}) do
      local score = match(keyword, item.filterText or item.label)
      if score then
        item.score = score
        table.insert(matched, item)
      end
    end
  end
  for i, item in ipairs(matched) do
    item.order = i
  end
  table.sort(matched, function(a, b)
    if a.score ~= b.score then return a.score > b.score end
    if a.sortText and b.sortText and a.sortText ~= b.sortText then
      return a.sortText < b.sortText
    end
    return a.order < b.order
  end)
  M.items = matched
end

--- Whether the list `id` answered for `ctx` may serve the text now typed.
local function still_valid(list, ctx)
  if not list or list.context.id ~= ctx.id or list.pending then return false end
  local old = list.context.line:sub(list.context.bounds.start_col, list.context.cursor[2])
  local new = ctx.line:sub(ctx.bounds.start_col, ctx.cursor[2])
  local before, after = vim.startswith(old, new), vim.startswith(new, old)
  return (before and not list.incomplete_backward)
    or (after and not list.incomplete_forward)
    or (before == after and not (list.incomplete_backward or list.incomplete_forward))
end

function M.hide()
  M.context, M.items = nil, {}
end

--- trigger.show: a context at the cursor, and the sources asked unless their list still holds.
local function show(kind, char)
  if vim.fn.pumvisible() == 1 then return M.hide() end
  if not M.context then H.id = H.id + 1 end
  local cursor = vim.api.nvim_win_get_cursor(0)
  local line = vim.api.nvim_get_current_line()
  local start = keyword_range(line, cursor[2])
  local ctx = {
    id = H.id,
    mode = 'default',
    bufnr = vim.api.nvim_get_current_buf(),
    cursor = cursor,
    line = line,
    bounds = { line_number = cursor[1], start_col = start + 1, length = cursor[2] - start },
    trigger = { kind = kind, character = char },
  }
  M.context = ctx
  for id, module in pairs(enabled_sources()) do
    if not still_valid(M.lists[id], ctx) then
      local list = { context = ctx, items = {}, pending = true }
      M.lists[id] = list
      module:get_completions(ctx, function(response)
        if M.lists[id] ~= list then return end
        list.pending = false
        list.incomplete_forward = response.is_incomplete_forward
        list.incomplete_backward = response.is_incomplete_backward
        for _, item in ipairs(response.items) do
          item.cursor_column = item.cursor_column or ctx.cursor[2]
          item.source_id = id
        end
        list.items = response.items
        filter()
      end)
    end
  end
  filter()
end

local function on_char_added(char)
  local triggers = trigger_characters()
  local blocked = char == ' ' or char == '\t' or char:match('%a')
  if vim.tbl_contains(triggers, char) and not blocked then
    M.context = nil
    show('trigger_character', char)
  elseif is_keyword_char(char) then
    show('keyword')
  else
    M.hide()
  end
end

---@return table[] the menu's items, best first
function M.get_items() return M.items end

---@return boolean
function M.is_menu_visible() return M.context ~= nil and #M.items > 0 end

--- `<C-y>` (keymap preset 'default'): accepts the first item (blink preselects it).
---@return boolean? accepted
function M.select_and_accept()
  local item, ctx = M.items[1], M.context
  if not item or not ctx then return end
  M.hide()
  item = vim.deepcopy(item)
  local edit = item.textEdit
  if not edit then
    local start = keyword_range(ctx.line, ctx.cursor[2])
    local range = { line = ctx.cursor[1] - 1, character = start }
    edit = { newText = item.insertText or item.label, range = { start = range } }
    edit.range['end'] = { line = range.line, character = item.cursor_column }
  end
  local moved = vim.api.nvim_win_get_cursor(0)[2] - item.cursor_column
  edit.range['end'].character = edit.range['end'].character + moved
  local function apply()
    local buf = vim.api.nvim_get_current_buf()
    vim.lsp.util.apply_text_edits({ edit }, buf, 'utf-8')
    local row = edit.range.start.line + 1
    vim.api.nvim_win_set_cursor(0, { row, edit.range.start.character + #edit.newText })
  end
  local module = source(item.source_id)
  if module.execute then
    module:execute(ctx, item, function() end, apply)
  else
    apply()
  end
  return true
end

---@param opts { sources: { default: string[], providers: table<string, table> } }
function M.setup(opts)
  H.config = opts
  local group = vim.api.nvim_create_augroup('blink_cmp_stub', { clear = true })
  vim.api.nvim_create_autocmd('InsertCharPre', {
    group = group,
    callback = function() H.last_char = vim.v.char end,
  })
  vim.api.nvim_create_autocmd('TextChangedI', {
    group = group,
    callback = function()
      if H.last_char == '' then return end
      on_char_added(H.last_char)
      H.last_char = ''
    end,
  })
  vim.api.nvim_create_autocmd('InsertLeave', { group = group, callback = M.hide })
  vim.keymap.set('i', '<C-y>', function()
    if not M.select_and_accept() then vim.api.nvim_feedkeys(vim.keycode('<C-y>'), 'n', false) end
  end)
end

return M
