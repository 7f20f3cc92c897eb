--- Whether an answer is streaming, or ended while the chat view was closed and is not read
--- yet: BB-7's `○` and `●` in |bb7.statusline()|, and `User BB7AnswerState` on each change.
--- An answer that ends unseen says so in one line.
local M = {}

local SYMBOLS = { idle = '', streaming = '○', unread = '●' }

---@alias bb7.AnswerState 'idle'|'streaming'|'unread'

local H = {
  state = 'idle', ---@type bb7.AnswerState
  chats = {}, ---@type table<string, string> request id -> chat id
  quiet = {}, ---@type table<string, boolean> sends whose end is read where they were asked
}

---@return bb7.AnswerState
function M.state() return H.state end

--- `○` while streaming, `●` when unread, else ''.
---@return string
function M.symbol() return SYMBOLS[H.state] end

---@param state bb7.AnswerState
function M.set(state)
  if state == H.state then return end
  H.state = state
  vim.api.nvim_exec_autocmds(
    'User',
    { pattern = 'BB7AnswerState', data = { state = state }, modeline = false }
  )
end

--- The chat view opened: an answer that ended unseen is read (a streaming one still streams).
function M.read()
  if H.state == 'unread' then M.set('idle') end
end

--- The send `request_id` ends where it was asked (`:BB7Edit`'s review): never unread, never
--- announced.
---@param request_id string
function M.quiet(request_id) H.quiet[request_id] = true end

---@param p bb7.RequestStarted
function M.started(p)
  H.chats[p.request_id] = p.chat_id
  M.set('streaming')
end

--- "answer ready in <chat>: 2 files changed, :BB7Review" (one: its name; the chat's name from
--- the host).
---@param chat_id string?
---@param files string[]
local function announce(chat_id, files)
  local backend = require('bb7.backend')
  backend.request('chat_list', vim.empty_dict(), function(err, list)
    if err then return end
    local name = 'the active chat'
    for _, chat in ipairs(list) do
      if chat.id == chat_id then name = chat.name end
    end
    local what = #files == 0 and ':BB7Chat shows it'
      or #files == 1 and ('%s changed, :BB7Review'):format(vim.fn.fnamemodify(files[1], ':t'))
      or ('%d files changed, :BB7Review'):format(#files)
    -- A long name gives way, so what to do stays on the line (`bb7: answer ready in : `).
    local room = vim.v.echospace - 23 - vim.api.nvim_strwidth(what)
    name = require('bb7.chat.view').truncate(name, math.max(room, 10))
    require('bb7.log').notify(('answer ready in %s: %s'):format(name, what), 'info')
  end)
end

--- A response ended: unread when the chat view is closed and an answer streamed (and said so
--- when it succeeded).
---@param p bb7.SendDone
---@param shown boolean the chat view is open
function M.done(p, shown)
  local chat_id, quiet = H.chats[p.request_id], H.quiet[p.request_id]
  H.chats[p.request_id], H.quiet[p.request_id] = nil, nil
  -- Nothing to read: the view shows it, the user cancelled it, it is read where it was
  -- asked, or no request was made.
  if shown or quiet or p.kind == 'cancelled' or H.state ~= 'streaming' then return M.set('idle') end
  M.set('unread')
  if p.ok then announce(chat_id, p.files or {}) end
end

return M
