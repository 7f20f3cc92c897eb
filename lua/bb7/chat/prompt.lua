--- The whole prompt in sight (|:BB7Prompt|, `gP` in the chat view): every part of the next
--- request in order (system prompt, instruction files, each file's block or diff, the history,
--- a retry context, your message) with its tokens and price, as the host builds the request.
--- `x` on a file's line drops that file from the chat; `q` closes.
local M = {}

local backend = require('bb7.util').backend

---@type { buf: integer?, win: integer?, parts: bb7.PromptPartRow[] }
local H = { parts = {} }

--- The input's text (the request's last part), '' when the view was never opened.
---@return string
local function typed()
  local buf = require('bb7.chat.view').state.bufs.input
  if not buf or not vim.api.nvim_buf_is_valid(buf) then return '' end
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

---@param found bb7.PromptParts
local function draw(found)
  H.parts = found.parts
  local lines = vim.tbl_map(function(part) return ' ' .. part.line end, found.parts)
  if H.win and vim.api.nvim_win_is_valid(H.win) then
    local buf = assert(H.buf)
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    vim.api.nvim_win_set_config(H.win, { title = ' ' .. found.title .. ' ' })
    return
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'bb7_prompt'
  local layout = require('bb7.chat.layout')
  H.buf = buf
  H.win = layout.float(buf, {
    title = ' ' .. found.title .. ' ',
    width = math.max(50, layout.longest(lines) + 1),
    height = #lines,
    cursorline = true,
  })
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, desc = 'bb7: ' .. desc })
  end
  map('x', M.drop, 'drop the file under the cursor from the chat')
  for _, lhs in ipairs({ 'q', '<Esc>' }) do
    map(lhs, function() pcall(vim.api.nvim_win_close, H.win, true) end, 'close the prompt view')
  end
end

--- Lists the parts of the next request in a float (again, when it is open).
function M.open()
  backend().request('prompt_parts', { text = typed() }, function(err, found)
    if err then return backend().report(err) end
    draw(found)
  end)
end

--- Drops the file of the part under the cursor from the chat, then lists the parts again.
function M.drop()
  local part = H.parts[vim.api.nvim_win_get_cursor(0)[1]]
  if not part or part.path == '' then
    return require('bb7.chat.ui').say('no file on this line: x drops a file', 'warn')
  end
  local args = { path = part.path, buffers = require('bb7.buffer').for_request(part.path) }
  backend().request('remove', args, function(err, value)
    if err then return backend().report(err) end
    if type(value) == 'table' and type(value.message) == 'string' then
      require('bb7.chat.ui').say(value.message)
    end
    local chat = package.loaded['bb7.chat'] --[[@as table?]]
    if chat and chat.is_open() then chat.refresh() end
    M.open()
  end)
end

return M
