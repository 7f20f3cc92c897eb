--- The chat view (|bb7-chat|): `:BB7Chat` calls `toggle()`. This is its controller: it opens
--- and closes the windows, redraws everything from one host request (`chat_view`) and runs
--- what the keys ask for. The state (buffers, windows, the chat shown) lives in
--- `bb7.chat.view`; the panes (`conversation.lua`, `input.lua`, `files.lua`, the chat list,
--- the model and file pickers) read it there and get this controller as an argument when
--- they must redraw. Lua only draws: the host decides what the view contains.
local M = {}

local view = require('bb7.chat.view')
local ui = require('bb7.chat.ui')

local ORDER = { 'conversation', 'files', 'input' }

local H = { subscribed = false, width = 0 }

local backend = require('bb7.util').backend

--- The buffer of `pane`, created and set up (keys, input autocmds) on first use. A draw may
--- have created it first, through `view.buf()` (a host that answers within the call, the
--- remote plugin, draws before the windows are built): it is set up here all the same.
---@param pane bb7.Pane
---@return integer
function M.buf(pane)
  local buf = view.buf(pane)
  if not vim.b[buf].bb7_set_up then
    vim.b[buf].bb7_set_up = true
    require('bb7.chat.keys').attach(buf, pane, M)
    if pane == 'input' then require('bb7.chat.input').setup(buf) end
    if pane == 'conversation' then require('bb7.chat.conversation').setup(buf) end
  end
  return buf
end

M.win = view.win
M.is_open = view.is_open
M.focus = view.focus
M.buffers = view.buffers

--- The view's state (see `bb7.chat.view`).
---@return bb7.ViewState
function M.state() return view.state end

---@param pane bb7.Pane
function M.focus_next(pane)
  for i, name in ipairs(ORDER) do
    if name == pane then
      return view.focus(ORDER[i % #ORDER + 1] --[[@as bb7.Pane]])
    end
  end
end

--- Draws a `ChatView` from the host. The input gets the chat's draft when another chat was
--- shown, with `opts.draft = 'replace'` (fork, edit), or with `'fill'` when the input is
--- empty (on open: text typed while the host started is kept).
---@param chat_view bb7.ChatView
---@param opts? { draft?: 'replace'|'fill' }
function M.draw(chat_view, opts)
  local S = view.state
  local changed = S.chat ~= nil and S.chat.id ~= chat_view.chat.id
  S.chat, S.retry, S.resend = chat_view.chat, chat_view.retry, chat_view.resend or false
  S.usage = chat_view.conversation.usage or ''
  local has_files = false
  for _, row in ipairs(chat_view.files.rows) do
    has_files = has_files or row.path ~= nil
  end
  require('bb7.chat.conversation').render(chat_view.conversation, has_files)
  require('bb7.chat.asked').draw()
  require('bb7.chat.files').render(chat_view.files)
  local input = require('bb7.chat.input')
  local draft = opts and opts.draft
  if changed or draft == 'replace' or (draft == 'fill' and input.is_empty()) then
    input.set(chat_view.draft)
  end
  view.winbars()
end

--- Fetches the active chat's view from the host and draws it; `cb(err)` afterwards. With
--- `statuses`, the status cache is refreshed from the same request (the end of a send).
---@param opts? { draft?: 'replace'|'fill', create?: boolean, statuses?: boolean }
---@param cb? fun(err: table?)
function M.refresh(opts, cb)
  H.width = view.text_width('conversation')
  local args = {
    buffers = view.buffers(),
    create = opts and opts.create or false,
    statuses = opts and opts.statuses or false,
    width = H.width,
  }
  backend().request('chat_view', args, function(err, chat_view)
    if err then
      if cb then return cb(err) end
      return backend().report(err)
    end
    if chat_view.statuses then require('bb7.status').on_status_changed(chat_view.statuses) end
    M.draw(chat_view, opts)
    if chat_view.hint and chat_view.hint ~= '' then ui.say(chat_view.hint) end
    if cb then cb(nil) end
  end)
end

local function subscribe()
  if H.subscribed then return end
  H.subscribed = true
  require('bb7.chat.conversation').subscribe(M)
  require('bb7.chat.asked').subscribe()
  vim.api.nvim_create_autocmd('User', {
    group = vim.api.nvim_create_augroup('bb7_chat', { clear = true }),
    pattern = 'BB7StatusChanged',
    desc = "bb7: refresh the chat view's files panel",
    callback = function()
      if view.is_open() then require('bb7.chat.files').schedule_refresh() end
    end,
  })
end

local function watch_windows()
  local group = vim.api.nvim_create_augroup('bb7_chat_windows', { clear = true })
  -- The host fits the usage lines to the conversation's width: drawn again when it changes.
  vim.api.nvim_create_autocmd('WinResized', {
    group = group,
    desc = "bb7: fit the conversation to its pane's new width",
    callback = function()
      local width = view.text_width('conversation')
      if width ~= H.width and not view.streaming() then M.refresh() end
    end,
  })
  -- A buffer opened in a pane (`:edit` typed there, a picker's file) goes to the code window;
  -- the pane gets its own back.
  vim.api.nvim_create_autocmd('BufWinEnter', {
    group = group,
    desc = 'bb7: open files beside the chat view, not in its panes',
    callback = function(ev)
      local win = vim.api.nvim_get_current_win()
      local pane = vim.w[win].bb7_pane
      local own = pane and view.state.bufs[pane]
      if not own or own == ev.buf or view.state.wins[pane] ~= win then return end
      vim.schedule(function()
        if not vim.api.nvim_win_is_valid(win) or not vim.api.nvim_buf_is_valid(own) then return end
        vim.api.nvim_win_set_buf(win, own)
        if vim.api.nvim_buf_is_valid(ev.buf) then require('bb7.buffer').show(ev.buf) end
      end)
    end,
  })
  for _, pane in ipairs(ORDER) do
    vim.api.nvim_create_autocmd('WinClosed', {
      group = group,
      pattern = tostring(view.state.wins[pane]),
      desc = 'bb7: closing one pane closes the chat view',
      callback = function() vim.schedule(M.close) end,
    })
  end
end

--- Opens the view (in the layout of the `layout` option) on the active chat. A host that is
--- not running yet is started first, so Python boots while Neovim builds the windows; the
--- chat is drawn when the host answers.
function M.open()
  if view.is_open() then return view.focus('input') end
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
  -- The remote plugin starts and answers within the call: asked before the windows exist,
  -- it would draw into none (no bars); it is asked once they are built.
  local early = not backend().is_ready() and not backend().answers_at_once()
  if early then load() end
  local bufs = {}
  for _, pane in ipairs(ORDER) do
    bufs[pane] = M.buf(pane)
  end
  view.state.wins = require('bb7.chat.layout').open(require('bb7.config').get().layout, bufs)
  watch_windows()
  local conversation = require('bb7.chat.conversation')
  conversation.refold()
  -- Opening shows the end, with what came while the view was closed.
  conversation.to_end()
  conversation.follow_next()
  require('bb7.activity').read() -- an answer that ended unseen is seen now
  view.focus('input')
  if not early then load() end
end

--- Closes the view; the draft is saved first. Buffers stay for the next open.
function M.close()
  if not next(view.state.wins) then return end
  require('bb7.chat.input').flush()
  require('bb7.chat.chats').close()
  require('bb7.chat.picker').forget()
  pcall(vim.api.nvim_del_augroup_by_name, 'bb7_chat_windows')
  local wins = view.state.wins
  view.state.wins = {}
  require('bb7.chat.layout').close(wins)
end

--- `:BB7Chat`: opens the view, or closes it when it is shown in the current tab page (shown
--- in another tab, that tab is entered).
function M.toggle()
  local win = view.win('conversation')
  if win then
    if vim.api.nvim_win_get_tabpage(win) == vim.api.nvim_get_current_tabpage() then
      return M.close()
    end
    return view.focus('input')
  end
  M.open()
end

--- Switches the view to another chat (the host has made it active already).
function M.show_active()
  require('bb7.chat.conversation').stop_live()
  M.refresh({ draft = 'replace' })
end

--- `:BB7Chat!`: takes the active chat from the bb7 that holds it (at once when that process
--- is gone, after a question while it runs: its sending stops) and shows it.
function M.take()
  local function taken(err, chat)
    if err then return backend().report(err) end
    if chat.held_by ~= '' then
      local question = 'Take the chat over from %s (still running; its sending stops)?'
      return ui.confirm(
        question:format(chat.held_by:match('^pid %d+') or chat.held_by),
        function() backend().request('take_chat', { force = true }, taken) end
      )
    end
    -- Said once the view is drawn, after the command: requests are answered within it, and
    -- a message given before the redraw's own requests could end up stacked with other output.
    local function say()
      ui.say(('took over "%s"'):format(chat.name))
      require('bb7.chat.input').flush(true)
    end
    if not view.is_open() then
      M.open()
      return vim.schedule(say)
    end
    M.refresh(nil, function(refresh_err)
      if refresh_err then return backend().report(refresh_err) end
      vim.schedule(say)
    end)
  end
  backend().request('take_chat', { force = false }, taken)
end

--- Another bb7 took this host's chat over (the `chat_lost` event): an answer streaming here
--- has ended, the view turns read-only in place (the input's banner names the holder), the
--- typed text stays in the input as the chat's draft, and one line says how to take it back.
---@param lost bb7.ChatLost
function M.lost(lost)
  local S = view.state
  if S.chat and S.chat.id == lost.chat_id then
    require('bb7.chat.conversation').stop_live()
    S.chat.held_by = lost.held_by
    view.winbars()
    if view.is_open() then M.refresh() end
  end
  local pid = lost.held_by:match('^pid %d+') or lost.held_by
  local said = ('%s took "%s" over: :BB7Chat! takes it back'):format(pid, lost.name)
  if vim.api.nvim_strwidth(said) > vim.v.echospace - #'bb7: ' then
    said = ('%s took the chat over: :BB7Chat! takes it back'):format(pid)
  end
  ui.say(said, 'warn')
end

--- Starts a new chat and shows it; with `same_context`, the new chat gets the active chat's
--- context (its files read afresh), model and effort, and none of its history.
---@param same_context? boolean
function M.new_chat(same_context)
  if require('bb7.chat.conversation').busy() then return end
  require('bb7.chat.input').flush()
  backend().request('new_chat', { same_context = same_context or false }, function(err, said)
    if err then return backend().report(err) end
    if same_context and said then ui.say(said.message) end
    require('bb7.chat.chats').close()
    M.show_active()
    view.focus('input')
  end)
end

--- `:BB7Agent [name]`: the view on a chat with that agent (the active chat when it is that
--- agent's, else a new one; without `name`, the active chat's agent or the first one found).
---@param name string?
function M.agent(name)
  if require('bb7.chat.conversation').busy() then return end
  require('bb7.chat.input').flush()
  backend().request('agent_chat', { name = name or '' }, function(err, said)
    if err then return backend().report(err) end
    require('bb7.chat.chats').close()
    if view.is_open() then
      M.show_active()
      view.focus('input')
    else
      M.open()
    end
    if said and said.message then ui.say(said.message) end
  end)
end

--- Sends the input's text.
function M.send() require('bb7.chat.input').send() end

--- Sends `text` as the next message (the input and its draft stay as they are).
---@param text string
function M.send_text(text) require('bb7.chat.input').send(text) end

--- Cancels the streaming answer (it stays in the chat, marked aborted).
function M.cancel()
  if not view.streaming() then return ui.say('nothing is streaming') end
  backend().notify('cancel', vim.empty_dict())
end

--- Sends the last user message again, after a provider error or a cancel: the chat is cut
--- before it (the failed or partial answer goes) and it is sent as it was.
function M.resend()
  local conversation = require('bb7.chat.conversation')
  if conversation.busy() then return end
  local last = conversation.last_user_message()
  if not last then return ui.say('nothing to send again: this chat has no message yet', 'warn') end
  conversation.restore(M, 'edit_message', last[2], function(err)
    if err then return backend().report(err) end
    if not require('bb7.chat.input').is_empty() then M.send() end
  end)
end

--- Drops the retry state (the failed edits' errors will not go with the next message).
function M.dismiss_retry()
  if not view.state.retry then return ui.say('no failed edits to dismiss') end
  backend().request('dismiss_retry', vim.empty_dict(), function(err)
    if err then return backend().report(err) end
    M.refresh()
  end)
end

--- Picks project files (in the `picker` option's picker) and adds them to the chat.
function M.pick_file() require('bb7.chat.picker').pick() end

return M
