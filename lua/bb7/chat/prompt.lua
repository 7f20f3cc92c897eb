--- The whole prompt in sight (|:BB7Prompt|, `gP` in the chat view): every part of the next
--- request in order (system prompt, instruction files, each file's block or diff, the history
--- one message at a time, a retry context, your message) with its tokens and price, as the
--- host builds the request. `x` on a file's or section's line drops it from the chat; `x` on a
--- message's line excludes it from future requests (your message with its answer; it stays in
--- the chat, dimmed), and on an excluded one includes it again; `q` closes.
local M = {}

local backend = require('bb7.util').backend
local ui = require('bb7.chat.ui')

local NS = vim.api.nvim_create_namespace('bb7_prompt')

---@type { buf: integer?, win: integer?, parts: bb7.PromptPartRow[] }
local H = { parts = {} }

--- The input's text (the request's last part), '' when the view was never opened.
---@return string
local function typed()
  local buf = require('bb7.chat.view').state.bufs.input
  if not buf or not vim.api.nvim_buf_is_valid(buf) then return '' end
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

local function is_open() return H.win ~= nil and vim.api.nvim_win_is_valid(H.win) end

---@param buf integer
local function dim_excluded(buf)
  vim.api.nvim_buf_clear_namespace(buf, NS, 0, -1)
  for i, part in ipairs(H.parts) do
    if part.excluded then
      vim.api.nvim_buf_set_extmark(buf, NS, i - 1, 0, { line_hl_group = 'BB7Excluded' })
    end
  end
end

---@param found bb7.PromptParts
local function draw(found)
  H.parts = found.parts
  local lines = vim.tbl_map(function(part) return ' ' .. part.line end, found.parts)
  local layout = require('bb7.chat.layout')
  local width = math.max(50, layout.longest(lines) + 1)
  if is_open() then
    local buf = assert(H.buf)
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    dim_excluded(buf)
    vim.api.nvim_win_set_config(
      assert(H.win),
      { title = ' ' .. found.title .. ' ', title_pos = 'center' }
    )
    return
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'bb7_prompt'
  H.buf = buf
  dim_excluded(buf)
  H.win = layout.float(buf, {
    title = ' ' .. found.title .. ' ',
    width = width,
    height = #lines,
    cursorline = true,
  })
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, desc = 'bb7: ' .. desc })
  end
  map(
    'x',
    M.act,
    'drop the file or section under the cursor; exclude the message (again: include it)'
  )
  for _, lhs in ipairs({ 'q', '<Esc>' }) do
    map(lhs, function() pcall(vim.api.nvim_win_close, H.win, true) end, 'close the prompt view')
  end
end

--- Lists the parts of the next request in a float (again, when it is open).
function M.open()
  local args = { text = typed(), editor = require('bb7.live').state() }
  backend().request('prompt_parts', args, function(err, found)
    if err then return backend().report(err) end
    draw(found)
  end)
end

--- After a change to the chat: the chat view and the list drawn again.
---@param value any the host's reply (a `Said`)
local function changed(value)
  if type(value) == 'table' and type(value.message) == 'string' then ui.say(value.message) end
  local chat = package.loaded['bb7.chat'] --[[@as table?]]
  if chat and chat.is_open() then chat.refresh() end
  if is_open() then M.open() end
end

--- Excludes message `id` from future requests (your message with its answer), or includes it
--- again when it is excluded; says what the next request saves.
---@param id integer
function M.exclude(id)
  backend().request('exclude_message', { message_id = id }, function(err, value)
    if err then return backend().report(err) end
    changed(value)
  end)
end

--- `x`: drops the file or section of the part under the cursor from the chat, or excludes
--- (includes) its message; then lists the parts again.
function M.act()
  local part = H.parts[vim.api.nvim_win_get_cursor(0)[1]]
  if part and part.message ~= 0 then return M.exclude(part.message) end
  if not part or part.path == '' then
    return ui.say('x works on a file or a message line: move the cursor to one', 'warn')
  end
  local args = {
    path = part.path,
    start_line = part.start_line,
    end_line = part.end_line,
    buffers = require('bb7.buffer').for_request(part.path),
  }
  backend().request('remove', args, function(err, value)
    if err then return backend().report(err) end
    changed(value)
  end)
end

return M
