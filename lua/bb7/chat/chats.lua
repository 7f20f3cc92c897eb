--- The chat list: a float over the chat view listing every chat (pinned first, then the most
--- recent; `●` marks the active one, `!` a pinned one, `⊘` one another bb7 holds, read-only
--- here) with keys to switch, start, rename, delete, pin, search, and move between the
--- project and the global chats. A search shows only the chats that match, with an excerpt. Actions get the view's controller.
local M = {}

local ui = require('bb7.chat.ui')

M.ns = vim.api.nvim_create_namespace('bb7_chat_list')

---@class bb7.ChatList
---@field win integer? the float, while open
---@field buf integer? its buffer, once made
---@field items table[] { chat = bb7.ChatSummary, excerpt = string? } per line
---@field query string? the search shown
---@field controller table? the chat view's controller
local H = { win = nil, buf = nil, items = {}, query = nil, controller = nil }

local backend = require('bb7.util').backend

---@return boolean
function M.is_open() return H.win ~= nil and vim.api.nvim_win_is_valid(H.win) end

function M.close()
  if M.is_open() then
    vim.api.nvim_win_close(H.win --[[@as integer]], true)
  end
  H.win = nil
end

local function when(timestamp) return os.date('%Y-%m-%d %H:%M', math.floor(timestamp)) end

--- The date (and scope, and the holder's pid) at the right of a chat's line.
local function stamp(c)
  local held = c.held_by ~= '' and ('held by %s · '):format(c.held_by:match('^pid %d+')) or ''
  return held .. (c.scope == 'global' and 'global · ' or '') .. when(c.updated)
end

-- items: { chat = ChatSummary, excerpt = string? }
local function draw(items)
  H.items = items
  local width = math.max(50, math.floor(vim.o.columns * 0.7))
  local truncate = require('bb7.chat.view').truncate
  local lines = {}
  for _, item in ipairs(items) do
    local c = item.chat
    local held = c.held_by ~= ''
    local mark = (held and '⊘' or c.active and '●' or ' ') .. (c.pinned and '!' or ' ')
    local line = ('%s %s'):format(mark, c.name)
    if item.excerpt and item.excerpt ~= '' and item.excerpt ~= c.name then
      line = line .. ' — ' .. item.excerpt
    end
    -- Cut before the date, a space apart, rather than running into it.
    table.insert(lines, truncate(line, width - vim.api.nvim_strwidth(stamp(c)) - 1))
  end
  if #lines == 0 then
    lines = { H.query and ('  no chat matches "%s"'):format(H.query) or '  no chats yet' }
  end
  local buf = H.buf --[[@as integer]] -- made by `open` before any draw
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  for i, item in ipairs(items) do
    local c = item.chat
    -- A chat another Neovim holds is dimmed (read-only here), even the active one.
    local group = c.held_by ~= '' and 'BB7ChatHeld' or c.active and 'BB7ChatActive' or nil
    if group then vim.api.nvim_buf_set_extmark(buf, M.ns, i - 1, 0, { line_hl_group = group }) end
    vim.api.nvim_buf_set_extmark(buf, M.ns, i - 1, 0, {
      virt_text = { { stamp(c), 'BB7FilesTokens' } },
      virt_text_pos = 'right_align',
    })
  end
  local title = H.query and (' bb7 chats matching "%s" '):format(H.query) or ' bb7 chats '
  if M.is_open() then
    vim.api.nvim_win_set_config(H.win --[[@as integer]], { title = title, title_pos = 'center' })
    return
  end
  H.win = require('bb7.chat.layout').float(buf, {
    title = title,
    width = width,
    height = math.max(5, math.min(#lines, 20)),
    cursorline = true,
  })
  for i, item in ipairs(items) do
    if item.chat.active then vim.api.nvim_win_set_cursor(H.win, { i, 0 }) end
  end
end

local function buffer()
  if H.buf and vim.api.nvim_buf_is_valid(H.buf) then return H.buf end
  H.buf = vim.api.nvim_create_buf(false, true)
  vim.bo[H.buf].filetype = 'bb7_chats'
  vim.b[H.buf].bb7_pane = 'chats'
  vim.bo[H.buf].modifiable = false
  require('bb7.chat.keys').attach(H.buf, 'chats', H.controller or {})
  for _, lhs in ipairs({ 'q', '<Esc>' }) do
    vim.keymap.set('n', lhs, M.close, { buffer = H.buf, desc = 'bb7: close the chat list' })
  end
  return H.buf
end

--- Lists every chat; `controller` is the view's (switching chats redraws it).
---@param controller? table
function M.open(controller)
  H.controller = controller or H.controller
  buffer()
  H.query = nil
  backend().request('chat_list', vim.empty_dict(), function(err, list)
    if err then return backend().report(err) end
    draw(vim.tbl_map(function(c) return { chat = c } end, list))
  end)
end

local function reload()
  if H.query then return M.search(H.query) end
  M.open()
end

local function current()
  if not M.is_open() then return nil end
  return H.items[
    vim.api.nvim_win_get_cursor(H.win --[[@as integer]])[1]
  ]
end

--- Switches the view to the chat under the cursor.
---@param controller table
function M.select(controller)
  local item = current()
  if not item or require('bb7.chat.conversation').busy() then return end
  require('bb7.chat.input').flush()
  backend().request('switch_chat', { chat_id = item.chat.id }, function(err)
    if err then return backend().report(err) end
    M.close()
    controller.show_active()
  end)
end

---@param controller table
function M.rename(controller)
  local item = current()
  if not item then return end
  vim.ui.input({ prompt = 'Rename chat: ', default = item.chat.name }, function(name)
    if not name or vim.trim(name) == '' then return end
    backend().request('rename_chat', { chat_id = item.chat.id, name = name }, function(err)
      if err then return backend().report(err) end
      reload()
      if item.chat.active then controller.refresh() end
    end)
  end)
end

--- Asks the model for a new title of the chat under the cursor (after its first message);
--- the answer comes later (`retitled`).
function M.retitle()
  local item = current()
  if not item then return end
  backend().request('retitle_chat', { chat_id = item.chat.id }, function(err, said)
    if err then return backend().report(err) end
    ui.say(said.message)
  end)
end

--- The host named a chat again: the list and the view show its name.
function M.retitled()
  if M.is_open() then reload() end
  local view = package.loaded['bb7.chat']
  if view and view.is_open() then view.refresh() end
end

---@param controller table
function M.delete(controller)
  local item = current()
  if not item or (item.chat.active and require('bb7.chat.conversation').busy()) then return end
  local question = ('Delete the chat "%s" and its history?'):format(item.chat.name)
  ui.confirm(question, function()
    backend().request('delete_chat', { chat_id = item.chat.id }, function(err, active)
      if err then return backend().report(err) end
      reload()
      if item.chat.active then
        if active then return controller.show_active() end
        controller.new_chat()
      end
    end)
  end)
end

--- Moves the chat under the cursor from the project to the global chats, or back.
---@param controller table
function M.move(controller)
  local item = current()
  if not item or (item.chat.active and require('bb7.chat.conversation').busy()) then return end
  local to = item.chat.scope == 'global' and 'project' or 'global'
  backend().request('move_chat', { chat_id = item.chat.id, scope = to }, function(err, moved)
    if err then return backend().report(err) end
    ui.say(('"%s" is a %s chat now'):format(moved.name, to))
    reload()
    if item.chat.active then controller.refresh() end
  end)
end

function M.pin()
  local item = current()
  if not item then return end
  local args = { chat_id = item.chat.id, pinned = not item.chat.pinned }
  backend().request('pin_chat', args, function(err)
    if err then return backend().report(err) end
    reload()
  end)
end

--- Asks for words (or takes `query`) and lists the chats whose name or messages match.
---@param query? string
function M.search(query)
  local function run(q)
    if not q then return end
    buffer()
    backend().request('search_chats', { query = q }, function(err, hits)
      if err then return backend().report(err) end
      H.query = vim.trim(q) ~= '' and q or nil
      draw(vim.tbl_map(function(hit) return { chat = hit.chat, excerpt = hit.excerpt } end, hits))
    end)
  end
  if query then return run(query) end
  vim.ui.input({ prompt = 'Search chats: ' }, run)
end

return M
