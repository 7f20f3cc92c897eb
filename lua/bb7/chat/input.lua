--- The input pane: where the user writes the next message. `<CR>` (normal mode) or the
--- `send_insert` key sends it; the text is kept as the chat's draft in the host (saved
--- 500 ms after the last change, and at once before the view closes or changes chat).
local M = {}

local DRAFT_DELAY_MS = 500

local H = { timer = nil, saved = nil }

local function chat() return require('bb7.chat') end
local function backend() return require('bb7.backend') end

local function text(buf) return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') end

--- Saves the draft now if it changed since the last save.
function M.flush()
  if H.timer then H.timer:stop() end
  local shown = chat().state().chat
  local buf = chat().state().bufs.input
  if not shown or not buf or not vim.api.nvim_buf_is_valid(buf) then return end
  local draft = text(buf)
  if draft == H.saved then return end
  H.saved = draft
  backend().request('save_draft', { chat_id = shown.id, draft = draft }, function(err)
    if err then backend().report(err) end
  end)
end

function M.setup(buf)
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    buffer = buf,
    desc = 'bb7: save the draft (debounced)',
    callback = function()
      H.timer = H.timer or assert(vim.uv.new_timer())
      H.timer:stop()
      H.timer:start(DRAFT_DELAY_MS, 0, vim.schedule_wrap(M.flush))
    end,
  })
end

function M.is_empty()
  local buf = chat().buf('input')
  return vim.trim(text(buf)) == ''
end

--- Replaces the input with `draft` (a chat's stored draft).
function M.set(draft)
  local buf = chat().buf('input')
  H.saved = draft
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(draft or '', '\n', { plain = true }))
  vim.bo[buf].modified = false
end

--- Sends the input's text in the shown chat.
function M.send()
  local conversation = require('bb7.chat.conversation')
  local buf = chat().buf('input')
  local message = text(buf)
  if vim.trim(message) == '' then
    return require('bb7.log').notify('write a message first', 'warn')
  end
  if conversation.busy() then return end
  require('bb7').send(message)
  conversation.begin_exchange(message)
  M.set('')
  H.saved = nil
  M.flush()
end

return M
