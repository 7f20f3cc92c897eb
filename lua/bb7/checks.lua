--- The project's checks from the editor (|bb7-checks|): `:BB7Check` asks the host to run them
--- on the pending change, and the host says when they start and end (`check_started`,
--- `check_done`: `User BB7CheckDone`). The verdict of each pending file comes with its status
--- (`vim.b.bb7_check`, the statusline, the files panel); the conversation shows each run under
--- the answer it checked. The failing output opens in a float, and its `file:line:col` lines
--- go to the quickfix list, a pending file's at its pending text (a scratch buffer
--- `bb7://check/<path>`: the text the checks ran on). The host runs and judges; this module
--- asks and draws. The editor never waits on a check.
local M = {}

local backend = require('bb7.util').backend
local notify = require('bb7.util').notify

-- The last run the host told of, and whether one is running.
local H = { running = false, last = nil }

--- Runs the checks on the active chat's pending change (`path`: that file's alone).
---@param path? string an absolute path
function M.run(path)
  local args = { path = path or '', buffers = require('bb7.buffer').for_request(path) }
  backend().request('check', args, function(err, said)
    if err then return backend().report(err) end
    notify(said.message)
  end)
end

--- Sends "make the checks pass" (the last run's failures go with it): the `round`th bb7
--- sends by itself (`checks.auto_fix`), 0 when the user asks.
---@param round? integer
function M.fix(round)
  local view = package.loaded['bb7.chat'] --[[@as table?]]
  require('bb7').send('', { fix_checks = true, fix_round = round or 0 })
  if view and view.is_open() then view.refresh() end
end

---@return boolean
function M.running() return H.running end

--- The last `check_done` (nil before any).
---@return bb7.CheckDone?
function M.last() return H.last end

-- The events come inside the host's event dispatch, which may run while Lua waits on a request
-- (an apply that ends a running check): what they do asks the host again (the view's redraw,
-- a send), so it waits for the main loop, never nesting a request inside another.

---@param p bb7.CheckStarted
function M.on_started(p)
  H.running = true
  vim.schedule(function()
    local view = package.loaded['bb7.chat'] --[[@as table?]]
    if view ~= nil and view.is_open() then view.refresh() end -- `…` beside the files checked
    vim.cmd('redrawstatus!')
    vim.api.nvim_exec_autocmds('User', { pattern = 'BB7CheckStarted', data = p, modeline = false })
  end)
end

---@param p bb7.CheckDone
function M.on_done(p)
  H.running, H.last = false, p
  vim.schedule(function()
    local view = package.loaded['bb7.chat'] --[[@as table?]]
    if view ~= nil and view.is_open() then
      view.refresh() -- the run is drawn under the answer it checked
    elseif p.summary ~= '' and not p.cancelled then
      local level = p.problem ~= '' and 'error' or (p.state == 'passed' and 'info' or 'warn')
      notify(p.summary, level)
    end
    vim.cmd('redrawstatus!')
    vim.api.nvim_exec_autocmds('User', { pattern = 'BB7CheckDone', data = p, modeline = false })
    if (p.fix_next or 0) > 0 then M.fix(p.fix_next) end
  end)
end

--- The scratch buffer holding a pending file's text, as the checks ran on it.
---@param name string the project path
---@param lines string[]
---@return integer
local function pending_buffer(name, lines)
  local bufname = 'bb7://check/' .. name
  local buf = vim.fn.bufnr(bufname)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, bufname)
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].swapfile = false
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  local filetype = vim.filetype.match({ filename = name, buf = buf })
  if filetype then vim.bo[buf].filetype = filetype end
  return buf
end

--- The quickfix items of a run's places: a pending file's at its pending text.
---@param details bb7.CheckDetails
---@return table[]
local function quickfix_items(details)
  local bufs = {}
  for name, lines in pairs(details.pending or {}) do
    bufs[name] = pending_buffer(name, lines)
  end
  local items = {}
  for _, place in ipairs(details.places or {}) do
    local item = {
      lnum = place.line,
      col = place.col,
      text = ('[%s] %s'):format(place.check, place.text),
      type = 'E',
    }
    if place.pending and bufs[place.name] then
      item.bufnr = bufs[place.name]
    else
      item.filename = place.path
    end
    table.insert(items, item)
  end
  return items
end

--- Shows a run's failures (`message_id`: the chat message keeping it; nil: the last run) in
--- a float, and their `file:line:col` places in the quickfix list.
---@param message_id? integer
function M.show(message_id)
  backend().request('check_output', { message_id = message_id or 0 }, function(err, details)
    if err then return backend().report(err) end
    ---@cast details bb7.CheckDetails
    local items = quickfix_items(details)
    if #items > 0 then
      vim.fn.setqflist({}, ' ', { title = 'bb7: ' .. details.title, items = items })
    end
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, details.lines)
    vim.bo[buf].modifiable = false
    vim.bo[buf].bufhidden = 'wipe'
    local ns = vim.api.nvim_create_namespace('bb7_checks')
    for i, line in ipairs(details.lines) do
      if line:match('^✗') then
        vim.api.nvim_buf_set_extmark(buf, ns, i - 1, 0, { line_hl_group = 'BB7CheckFailed' })
      end
    end
    local layout = require('bb7.chat.layout')
    local win = layout.float(buf, {
      title = ' ' .. details.title .. ' ',
      width = math.max(40, layout.longest(details.lines) + 1),
      height = #details.lines,
    })
    vim.api.nvim_win_set_cursor(win, { #details.lines, 0 }) -- the end: where failures sum up
    vim.keymap.set('n', 'q', function() pcall(vim.api.nvim_win_close, win, true) end, {
      buffer = buf,
      desc = 'bb7: close the checks output',
      nowait = true,
    })
    if #items > 0 then
      notify(
        ('%s in the quickfix list (:copen)'):format(require('bb7.util').plural(#items, 'place'))
      )
    end
  end)
end

return M
