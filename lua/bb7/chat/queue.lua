--- A message queued while an answer streams (|bb7-queue|): `<CR>` in the input keeps it here,
--- by chat, and it is sent when that chat's answer ends, after its edits are recorded (so it
--- sees them). `<C-c>` in the input takes it back. It outlives the view (the events that send
--- it are not the view's); an answer that fails keeps it, and says so.
local M = {}

local H = {
  queued = {}, ---@type table<string, string> chat id -> text
  chats = {}, ---@type table<string, string> request id -> chat id
}

---@param chat_id string
---@return string?
function M.get(chat_id) return H.queued[chat_id] end

--- Queues `text` for `chat_id` (after what is queued already).
---@param chat_id string
---@param text string
function M.put(chat_id, text)
  local before = H.queued[chat_id]
  H.queued[chat_id] = before and (before .. '\n\n' .. text) or text
end

--- Takes the queued text of `chat_id` back (nil when none).
---@param chat_id string
---@return string?
function M.take(chat_id)
  local text = H.queued[chat_id]
  H.queued[chat_id] = nil
  return text
end

--- Sends the queued text of `chat_id` now, shown in the view when it shows that chat.
---@param chat_id string
function M.send(chat_id)
  local text = M.take(chat_id)
  if not text then return end
  require('bb7').send(text)
  local view = require('bb7.chat.view')
  if view.is_open() and view.state.chat and view.state.chat.id == chat_id then
    require('bb7.chat.conversation').begin_exchange(text)
    view.winbars()
  end
end

---@param p bb7.RequestStarted
function M.started(p) H.chats[p.request_id] = p.chat_id end

--- A send ended (and the view, when open, is drawn again): the queued message of its chat
--- goes now, unless the answer failed (an error, a cancel): then it waits, and that is said.
---@param p bb7.SendDone
function M.done(p)
  local chat_id = H.chats[p.request_id]
  H.chats[p.request_id] = nil
  if not chat_id or not H.queued[chat_id] then return end
  -- `ok`, or edits refused (no `kind`): the answer is stored with what its edits did.
  if p.ok or (p.kind or '') == '' then return M.send(chat_id) end
  local take = require('bb7.config').get().keys.cancel or ':BB7Cancel'
  require('bb7.log').notify(
    ('answer failed: your queued message waits (<CR> sends it, %s edits it)'):format(take),
    'warn'
  )
end

return M
