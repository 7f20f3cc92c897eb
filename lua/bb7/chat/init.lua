--- The chat view (|bb7-chat|): `:BB7Chat` calls `toggle()`. It owns the view's buffers and
--- windows and the chat they show, and redraws everything from one host request
--- (`chat_view`): conversation, files panel, draft and retry banner. The panes are
--- `conversation.lua`, `input.lua` and `files.lua`; the chat list, model picker and keys have
--- their own modules. Lua only draws: the host decides what the view contains.
local M = {}

local FILETYPES = { conversation = 'markdown', input = 'markdown', files = 'bb7_files' }
local ORDER = { 'conversation', 'files', 'input' }

local S = {
  bufs = {}, -- pane -> buffer (kept across open/close)
  wins = {}, -- pane -> window while the view is open
  chat = nil, -- the ChatSummary shown
  retry = false,
  subscribed = false,
}

local function backend() return require('bb7.backend') end
local function notify(message, level) require('bb7.log').notify(message, level) end

function M.state() return S end

--- The buffer of `pane`, created on first use (unlisted scratch, keys attached).
function M.buf(pane)
  local buf = S.bufs[pane]
  if buf and vim.api.nvim_buf_is_valid(buf) then return buf end
  buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, '[bb7] ' .. pane)
  vim.b[buf].bb7_pane = pane
  if FILETYPES[pane] == 'markdown' then
    -- Treesitter highlights markdown and the code blocks in it, whatever the user's setup.
    -- Started before the filetype is set, it also spares loading the regex syntax (~20 ms).
    pcall(vim.treesitter.start, buf, 'markdown')
  end
  vim.bo[buf].filetype = FILETYPES[pane]
  if pane ~= 'input' then vim.bo[buf].modifiable = false end
  S.bufs[pane] = buf
  if pane == 'input' then require('bb7.chat.input').setup(buf) end
  return buf
end

--- The window of `pane` while the view is open, else nil.
function M.win(pane)
  local win = S.wins[pane]
  if win and vim.api.nvim_win_is_valid(win) then return win end
  return nil
end

function M.is_open() return M.win('conversation') ~= nil end

--- The buffers a request about `path` (every file of the chat when nil) sends along, so
--- unsaved edits count and applies write through the buffer.
function M.buffers(path) return require('bb7.buffer').for_request(path) end

local function escape(text) return (text:gsub('%%', '%%%%')) end

local function truncate(text, width)
  if vim.api.nvim_strwidth(text) <= width then return text end
  return vim.fn.strcharpart(text, 0, math.max(1, width - 1)) .. '…'
end

--- Window bars: the chat's name and model over the conversation, the token total (the host's
--- text, drawn as is) over the files, the send keys (or the retry note) over the input.
function M.winbars(total_tokens_text)
  local keys = require('bb7.config').get().keys
  local conversation = M.win('conversation')
  if conversation and S.chat then
    local model = S.chat.model
    local streaming = require('bb7.chat.conversation').streaming() and ' ● streaming' or ''
    -- The name gives way first (cut at its end), so the model stays visible.
    local room = vim.api.nvim_win_get_width(conversation)
      - vim.api.nvim_strwidth(model .. streaming)
      - 4
    vim.wo[conversation].winbar = ('%%#BB7ChatTitle# %s%%* · %s%%#BB7ChatStatus#%s'):format(
      escape(truncate(S.chat.name, room)),
      escape(model),
      streaming
    )
  end
  local files = M.win('files')
  if files and total_tokens_text then
    vim.wo[files].winbar = (' Files · ~%s tokens'):format(escape(total_tokens_text))
  end
  local input = M.win('input')
  if input then
    local hint = S.retry and '%#BB7RetryBanner#⚠ next send repairs the failed edits%* · ' or ''
    vim.wo[input].winbar = (' %sMessage · %s send · %s help'):format(
      hint,
      escape(keys.send or ''),
      escape(keys.help or '')
    )
  end
end

--- Draws a `ChatView` from the host. The input gets the chat's draft when another chat was
--- shown, with `opts.draft = 'replace'` (fork, edit), or with `'fill'` when the input is
--- empty (on open: text typed while the host started is kept).
function M.draw(view, opts)
  local changed = S.chat ~= nil and S.chat.id ~= view.chat.id
  S.chat, S.retry = view.chat, view.retry
  require('bb7.chat.conversation').render(view.conversation)
  require('bb7.chat.files').render(view.files)
  local input = require('bb7.chat.input')
  local draft = opts and opts.draft
  if changed or draft == 'replace' or (draft == 'fill' and input.is_empty()) then
    input.set(view.draft)
  end
  M.winbars(view.files.total_tokens_text)
end

--- Fetches the active chat's view from the host and draws it; `cb(err)` afterwards.
function M.refresh(opts, cb)
  local args = { buffers = M.buffers(), create = opts and opts.create or false }
  backend().request('chat_view', args, function(err, view)
    if err then
      if cb then return cb(err) end
      return backend().report(err)
    end
    M.draw(view, opts)
    if cb then cb(nil) end
  end)
end

local function subscribe()
  if S.subscribed then return end
  S.subscribed = true
  require('bb7.chat.conversation').subscribe()
  vim.api.nvim_create_autocmd('User', {
    group = vim.api.nvim_create_augroup('bb7_chat', { clear = true }),
    pattern = 'BB7StatusChanged',
    desc = "bb7: refresh the chat view's files panel",
    callback = function()
      if M.is_open() then require('bb7.chat.files').schedule_refresh() end
    end,
  })
end

local function watch_windows()
  local group = vim.api.nvim_create_augroup('bb7_chat_windows', { clear = true })
  for _, pane in ipairs(ORDER) do
    vim.api.nvim_create_autocmd('WinClosed', {
      group = group,
      pattern = tostring(S.wins[pane]),
      desc = 'bb7: closing one pane closes the chat view',
      callback = function() vim.schedule(M.close) end,
    })
  end
end

--- Opens the view (in the layout of the `layout` option) on the active chat. A host that is
--- not running yet is started first, so Python boots while Neovim builds the windows; the
--- chat is drawn when the host answers.
function M.open()
  if M.is_open() then return M.focus('input') end
  subscribe()
  local function load()
    -- `create`: the project's first chat starts here when it has none.
    M.refresh({ draft = 'fill', create = true }, function(err)
      if err then
        M.close()
        backend().report(err)
      end
    end)
  end
  local ready = backend().is_ready()
  if not ready then load() end
  local bufs = {}
  for _, pane in ipairs(ORDER) do
    bufs[pane] = M.buf(pane)
    require('bb7.chat.keys').attach(bufs[pane], pane)
  end
  S.wins = require('bb7.chat.layout').open(require('bb7.config').get().layout, bufs)
  watch_windows()
  require('bb7.chat.conversation').refold()
  M.focus('input')
  if ready then load() end
end

--- Closes the view; the draft is saved first. Buffers stay for the next open.
function M.close()
  if not next(S.wins) then return end
  require('bb7.chat.input').flush()
  require('bb7.chat.chats').close()
  pcall(vim.api.nvim_del_augroup_by_name, 'bb7_chat_windows')
  local wins = S.wins
  S.wins = {}
  require('bb7.chat.layout').close(wins)
end

--- `:BB7Chat`: opens the view, or closes it when it is shown in the current tab page (shown
--- in another tab, that tab is entered).
function M.toggle()
  local win = M.win('conversation')
  if win then
    if vim.api.nvim_win_get_tabpage(win) == vim.api.nvim_get_current_tabpage() then
      return M.close()
    end
    return M.focus('input')
  end
  M.open()
end

--- Moves the cursor to `pane` (`insert`: and starts Insert mode, for the input).
function M.focus(pane, insert)
  local win = M.win(pane)
  if not win then return end
  vim.api.nvim_set_current_win(win)
  if insert then vim.cmd('startinsert!') end
end

function M.focus_next(pane)
  for i, name in ipairs(ORDER) do
    if name == pane then return M.focus(ORDER[i % #ORDER + 1]) end
  end
end

--- Switches the view to another chat (the host has made it active already).
function M.show_active()
  require('bb7.chat.conversation').reset()
  M.refresh({ draft = 'replace' })
end

--- Starts a new chat and shows it.
function M.new_chat()
  if require('bb7.chat.conversation').busy() then return end
  require('bb7.chat.input').flush()
  backend().request('new_chat', vim.empty_dict(), function(err)
    if err then return backend().report(err) end
    require('bb7.chat.chats').close()
    M.show_active()
    M.focus('input')
  end)
end

--- Cancels the streaming answer (it stays in the chat, marked aborted).
function M.cancel()
  if not require('bb7.chat.conversation').streaming() then return notify('nothing is streaming') end
  backend().notify('cancel', vim.empty_dict())
end

return M
