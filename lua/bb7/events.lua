--- Where host events enter Lua: the host calls `dispatch(batch)` (through `exec_lua`) with
--- batches of `{ name, payload }`, at most ~30 times a second. Built-in events go to their
--- module; anything else (and built-ins too) can be observed with `on()`.
local M = {}

--- Counters for tests and benchmarks: batches received and events in them.
M.stats = { flushes = 0, events = 0 }

local listeners = {}

local function user_event(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, data = data, modeline = false })
end

-- A response ended: statuses again with the buffers as they are now, and a word when it
-- failed, unless the chat view is open: its redraw brings the statuses (computed once, with
-- its files panel), and it shows the failure in the conversation (a long message would stop
-- the user at a hit-enter prompt while typing there).
---@param p bb7.SendDone
local function done(p)
  if p.applied and #p.applied > 0 then
    -- An agent wrote these files itself: their buffers show what is on disk now (one undo
    -- step each); a buffer with unsaved edits is left as it is, and said so.
    local kept = require('bb7.buffer').reload(p.applied)
    if #kept > 0 then
      local names = vim.tbl_map(function(path) return vim.fn.fnamemodify(path, ':~:.') end, kept)
      require('bb7.log').notify(
        ('the agent changed %s on disk; your buffer has unsaved edits'):format(
          table.concat(names, ', ')
        ),
        'warn'
      )
    end
  end
  local view = package.loaded['bb7.chat'] --[[@as table?]]
  local shown = view ~= nil and view.is_open()
  if not shown then require('bb7.status').refresh(vim.api.nvim_list_bufs(), true) end
  -- A send another bb7 ended by taking the chat over: `chat_lost` has said so; an inline
  -- edit's end is said by `bb7.inline`.
  local inline = package.loaded['bb7.inline']
  local said = p.kind == 'lost' or (inline and inline.owns(p.request_id))
  if not p.ok and p.message and p.message ~= '' and not shown and not said then
    local lines = { p.message }
    vim.list_extend(lines, p.errors or {})
    local level = p.kind == 'cancelled' and 'info' or 'error'
    require('bb7.log').notify(table.concat(lines, '\n'), level)
  end
  require('bb7.activity').done(p, shown)
  user_event('BB7ResponseDone', p)
end

local builtin = {
  ready = function(p) require('bb7.backend').on_ready(p) end,
  notify = function(p) require('bb7.log').notify(p.message, p.level) end,
  status_changed = function(p) require('bb7.status').on_status_changed(p) end,
  request_started = function(p)
    require('bb7.activity').started(p)
    user_event('BB7RequestStarted', p)
  end,
  warning = function(p) require('bb7.log').notify(p.event.message, 'warn') end,
  chat_lost = function(p) require('bb7.chat').lost(p) end,
  done = done,
  check_started = function(p) require('bb7.checks').on_started(p) end,
  check_done = function(p) require('bb7.checks').on_done(p) end,
}

--- Calls `fn(payload)` for every event `name`; returns a function that removes the listener.
---@param name bb7.EventName|string
---@param fn fun(payload: any)
---@return fun() remove
function M.on(name, fn)
  listeners[name] = listeners[name] or {}
  table.insert(listeners[name], fn)
  return function()
    for i, f in ipairs(listeners[name]) do
      if f == fn then
        table.remove(listeners[name], i)
        return
      end
    end
  end
end

local function call(name, fn, payload)
  local ok, err = pcall(fn, payload)
  if not ok then
    require('bb7.log').notify(('handling event `%s` failed: %s'):format(name, err), 'error')
  end
end

--- Handles one batch of events now, in order (`dispatch` has it done from the main loop).
---@param batch bb7.Event[]
function M.handle(batch)
  for _, event in ipairs(batch) do
    local name, payload = event[1], event[2]
    if payload == vim.NIL then payload = nil end
    M.stats.events = M.stats.events + 1
    if builtin[name] then call(name, builtin[name], payload) end
    for _, fn in ipairs(listeners[name] or {}) do
      call(name, fn, payload)
    end
  end
end

--- The host's entry point (`exec_lua`): one batch of events, in order. Handled from the main
--- loop, never where the batch arrives: Neovim reads the host's messages while it waits for
--- the answer to a request to it, and a handler's own request then (redrawing the chat view)
--- would be answered after the one waited for; Neovim takes that for a broken peer and
--- closes the channel (the host exits on it).
---@param batch bb7.Event[]
function M.dispatch(batch)
  M.stats.flushes = M.stats.flushes + 1
  vim.schedule(function() M.handle(batch) end)
end

return M
