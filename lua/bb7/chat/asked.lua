--- Files the model asked for (`request_files`, or a FILES block): shown under the answer with
--- their tokens; `gA` adds the available ones read-only, `gW` writable, and says so in a new
--- message (the answer that asked stays). Nothing is added without one of these keys, and
--- nothing is sent by itself.
local M = {}

local view = require('bb7.chat.view')
local backend = require('bb7.util').backend

M.ns = vim.api.nvim_create_namespace('bb7_asked')

---@class bb7.Asked
---@field chat string the chat the answer belongs to
---@field why string
---@field files bb7.AskedFile[]

--- The request of the last answer in the shown chat, or nil.
---@type bb7.Asked?
M.request = nil

---@param file bb7.AskedFile
---@return string
local function label(file)
  if file.start_line and file.start_line ~= vim.NIL then
    return ('%s:%d-%d'):format(file.path, file.start_line, file.end_line)
  end
  return file.path
end

--- The lines shown under the answer: `{ text, highlight }` chunks per line.
---@param request bb7.Asked
---@return table[]
function M.lines(request)
  local keys = require('bb7.config').get().keys
  local head = 'The model asks for files' .. (request.why ~= '' and (': ' .. request.why) or '')
  local out = { { { head, 'BB7ChatStatus' } } }
  local any = false
  for _, file in ipairs(request.files) do
    local state = file.available and ('%d tokens'):format(file.tokens)
      or ('not available: ' .. file.reason)
    any = any or file.available
    table.insert(out, { { ('  %s  %s'):format(label(file), state), 'BB7ChatStatus' } })
  end
  if any then
    local how = ('  %s adds them read-only, %s writable, and sends them'):format(
      keys.add_requested or '-',
      keys.add_requested_writable or '-'
    )
    table.insert(out, { { how, 'BB7ChatStatus' } })
  end
  return out
end

--- Draws the request under the last line of the conversation (after each redraw).
function M.draw()
  local buf = view.buf('conversation')
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  local request, chat = M.request, view.state.chat
  if not request or not chat or chat.id ~= request.chat then return end
  local last = vim.api.nvim_buf_line_count(buf) - 1
  local lines = M.lines(request)
  vim.api.nvim_buf_set_extmark(buf, M.ns, last, 0, { virt_lines = lines })
  -- A window that follows the end scrolls the lines into sight (`zb` leaves them below it).
  local w = view.win('conversation')
  if w and vim.api.nvim_win_get_cursor(w)[1] > last then
    vim.api.nvim_win_call(w, function()
      vim.cmd('normal! zb')
      vim.cmd(('exe "normal! %d\\<C-e>"'):format(#lines))
    end)
  end
end

--- Keeps the request of a send's answer (`done`), forgets it when a new send starts.
function M.subscribe()
  local events = require('bb7.events')
  events.on('request_started', function() M.request = nil end)
  events.on('done', function(p)
    local chat = view.state.chat
    local files = p.requested or {}
    M.request = (#files > 0 and chat) and { chat = chat.id, why = p.why or '', files = files }
      or nil
    -- The view may be drawn already (its `done` handler came first).
    if M.request and view.is_open() then M.draw() end
  end)
end

--- Adds the available files of the request (read-only or writable) and tells the model so in
--- a new message: the answer that asked stays in the chat, with the files after it.
---@param controller table
---@param readonly boolean
function M.add(controller, readonly)
  local request, chat = M.request, view.state.chat
  local say = require('bb7.chat.ui').say
  if not request or not chat or chat.id ~= request.chat then
    return say('the last answer asks for no files')
  end
  local todo = vim.tbl_filter(function(f) return f.available end, request.files)
  if #todo == 0 then return say('none of the files asked for can be added', 'warn') end
  local specs = vim.tbl_map(function(f)
    if f.start_line and f.start_line ~= vim.NIL then
      return ('%s:%d-%d'):format(f.file, f.start_line, f.end_line)
    end
    return f.file
  end, todo)
  if require('bb7.chat.conversation').busy() then return end
  M.request = nil
  -- Through `:BB7Add`'s way: a file that looks like a secret is asked about first.
  require('bb7.add').paths(specs, readonly, function(add_err, message)
    if add_err then return backend().report(add_err) end
    if not message then -- the user said no: nothing is sent
      controller.refresh()
      return
    end
    local names = table.concat(vim.tbl_map(label, todo), ', ')
    controller.send_text(('Here are the files you asked for: %s.'):format(names))
  end)
end

return M
