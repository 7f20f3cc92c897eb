--- The files panel: the chat's context files and pending new files as a tree (rows from the
--- host, `bb7.chatview.files`), each with its status and token count, and the keys that act on
--- the file under the cursor: apply, discard, diff, vimdiff, update, read-only, remove.
local M = {}

local view = require('bb7.chat.view')
local ui = require('bb7.chat.ui')

M.ns = vim.api.nvim_create_namespace('bb7_chat_files')

local REFRESH_DELAY_MS = 50

local H = { rows = {}, timer = nil }

-- A status has the highlight of its sign, so the panel and the signs agree.
local function status_hl(status)
  local sign = require('bb7.status').sign(status)
  return sign and sign.hl
end

local backend = require('bb7.util').backend
local notify = ui.say

-- The checks' verdict in the panel: passed, failing (failed, timed out, could not run), else
-- running or not run yet.
local function check_hl(state)
  if state == 'passed' then return 'BB7CheckPassed' end
  if state == 'running' or state == 'not_run' then return 'BB7CheckRunning' end
  return 'BB7CheckFailed'
end

--- `row`'s text cut to leave its token count room in a `width`-cell panel: a directory keeps
--- its end (`…/project/`: the folders nearest the files), a file its start.
---@param row table
---@param width? integer
---@return string
local function fit(row, width)
  local mark = (row.check_mark or '') ~= '' and (vim.api.nvim_strwidth(row.check_mark) + 1) or 0
  local room = width and (width - vim.api.nvim_strwidth(row.tokens) - 1 - mark)
  if not room or vim.api.nvim_strwidth(row.text) <= room then return row.text end
  if row.path ~= nil then return view.truncate(row.text, room) end
  local lead = row.text:match('^%s*')
  local label = row.text:sub(#lead + 1)
  local keep = math.max(1, room - #lead - 1)
  return lead .. '…' .. vim.fn.strcharpart(label, vim.fn.strchars(label) - keep)
end

--- The panel's bar counts the files out of view: drawn again when the panel scrolls.
local function watch_scroll()
  if H.watching then return end
  H.watching = true
  vim.api.nvim_create_autocmd({ 'WinScrolled', 'WinResized' }, {
    group = vim.api.nvim_create_augroup('bb7_chat_files', { clear = true }),
    desc = "bb7: count the files out of the files panel's view",
    callback = function()
      local win = view.win('files')
      if win and vim.v.event[tostring(win)] then view.winbars() end
    end,
  })
end

--- Draws a `Panel` from the host.
---@param panel bb7.Panel
function M.render(panel)
  local buf = view.buf('files')
  H.rows = panel.rows
  local files_win = view.win('files')
  local width = files_win and vim.api.nvim_win_get_width(files_win)
  local lines = vim.tbl_map(function(row) return fit(row, width) end, panel.rows)
  if #lines == 0 then lines = { '   no files yet: :BB7Add adds one' } end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  for i, row in ipairs(panel.rows) do
    local hl = row.path == nil and 'BB7FilesDir' or status_hl(row.status)
    local first = row.path == nil and #(row.text:match('^%s*')) or 0
    local last = row.path == nil and #lines[i] or #(row.status or '')
    if hl and last > first then
      vim.api.nvim_buf_set_extmark(buf, M.ns, i - 1, first, { end_col = last, hl_group = hl })
    end
    local right = { { row.tokens, 'BB7FilesTokens' } }
    if (row.check_mark or '') ~= '' then
      -- The checks' verdict on the file's pending change, before its tokens.
      table.insert(right, 1, { row.check_mark .. ' ', check_hl(row.check) })
    end
    vim.api.nvim_buf_set_extmark(buf, M.ns, i - 1, 0, {
      virt_text = right,
      virt_text_pos = 'right_align',
    })
  end
  if #(panel.instructions or {}) > 0 then
    -- Below the rows, not a row: the keys act on files, this is only what the model reads too.
    local text = 'instructions: ' .. table.concat(panel.instructions, ', ')
    vim.api.nvim_buf_set_extmark(buf, M.ns, #lines - 1, 0, {
      virt_lines = { { { text, 'BB7FilesTokens' } } },
    })
  end
  view.state.total_tokens = panel.total_tokens_text
  -- What is drawn now is newer than any status change a scheduled refresh was waiting for.
  if H.timer then H.timer:stop() end
  view.estimate()
  local win = view.win('files')
  if not win then return end
  if require('bb7.config').get().layout == 'split' then
    -- Stacked under the conversation: as tall as the list (its bar, its rows, the
    -- instructions' line; at most 10 rows of files, and a quarter of the screen: at 24 lines
    -- a long list left the conversation 5 rows) and never under 4 rows, so a short list
    -- still reads as a panel; the conversation gets the rest. A longer list scrolls, and
    -- the panel's bar counts the files out of view.
    local most = math.min(10, math.floor(vim.o.lines / 4))
    local rows = math.min(#lines, most) + (#(panel.instructions or {}) > 0 and 1 or 0)
    vim.api.nvim_win_set_height(win, math.max(4, 1 + rows))
  end
  watch_scroll()
  view.winbars()
end

--- How many files of the list are out of the panel's view (scrolled past, or below it).
---@return integer
function M.hidden()
  local win = view.win('files')
  if not win then return 0 end
  local top, bottom = vim.fn.line('w0', win), vim.fn.line('w$', win)
  local count = 0
  for i, row in ipairs(H.rows) do
    if row.path ~= nil and (i < top or i > bottom) then count = count + 1 end
  end
  return count
end

--- Asks the host for the panel again and draws it.
function M.refresh()
  backend().request('file_list', { buffers = view.buffers() }, function(err, panel)
    if err then return backend().report(err) end
    M.render(panel)
  end)
end

--- Refreshes soon, once (statuses often change in bursts).
function M.schedule_refresh()
  H.timer = H.timer or assert(vim.uv.new_timer())
  H.timer:stop()
  H.timer:start(
    REFRESH_DELAY_MS,
    0,
    vim.schedule_wrap(function()
      if view.is_open() then M.refresh() end
    end)
  )
end

--- The file row under the cursor, or nil (with a message) on a directory or empty panel.
local function current()
  local win = view.win('files')
  local row = win and H.rows[vim.api.nvim_win_get_cursor(win)[1]]
  if not row or row.path == nil then
    notify('put the cursor on a file', 'warn')
    return nil
  end
  return row
end

--- After an action: the host's answer (a message, if any), then `redraw()` (the action is an
--- event in the conversation too).
---@param redraw fun()
local function done(redraw)
  return function(err, value)
    if err then return backend().report(err) end
    if type(value) == 'table' and type(value.message) == 'string' then notify(value.message) end
    redraw()
  end
end

--- Sends `method` about the file of `row` (with its buffer), then redraws the view.
local function on_file(method, row, redraw, extra)
  local args = { path = row.abs, buffers = view.buffers(row.abs) }
  backend().request(method, vim.tbl_extend('force', args, extra or {}), done(redraw))
end

--- The lines of a section's row (0, 0 for a whole file), as `update_file` and `remove` name it.
local function lines_of(row)
  return { start_line = row.start_line or 0, end_line = row.end_line or 0 }
end

--- Applies the pending change under the cursor (asks first over local changes).
---@param redraw fun()
function M.apply(redraw)
  local row = current()
  if not row then return end
  if not row.has_output then return notify(row.path .. ' has no pending change') end
  -- Statuses the host refuses to apply over without `force`: ask instead.
  local question = require('bb7.status').confirm(row.status)
  if not question then return on_file('apply', row, redraw, { force = false }) end
  ui.confirm(
    question:format(row.path),
    function() on_file('apply', row, redraw, { force = true }) end
  )
end

---@param redraw fun()
function M.apply_all(redraw)
  backend().request('apply_all', { buffers = view.buffers() }, done(redraw))
end

---@param redraw fun()
function M.discard(redraw)
  local row = current()
  if not row then return end
  if not row.has_output then return notify(row.path .. ' has no pending change') end
  ui.confirm(
    ('Discard the pending change of %s?'):format(row.path),
    function() on_file('discard', row, redraw) end
  )
end

--- The pending change as a unified diff in a float (`q` closes it; the keys `next_change` and
--- `prev_change` go on to the next or previous changed file's diff).
---@param at? table the row to show (default: the one under the cursor)
function M.diff(at)
  local row = at or current()
  if not row then return end
  if not row.has_output then return notify(row.path .. ' has no pending change') end
  local args = { path = row.abs, buffers = view.buffers(row.abs) }
  backend().request('file_diff', args, function(err, text)
    if err then return backend().report(err) end
    local lines = vim.split(text, '\n', { plain = true, trimempty = true })
    if #lines == 0 then lines = { 'no difference' } end
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].filetype = 'diff'
    vim.bo[buf].modifiable = false
    vim.bo[buf].bufhidden = 'wipe'
    local layout = require('bb7.chat.layout')
    local win = layout.float(buf, {
      title = ' ' .. row.path .. ' ',
      width = math.max(40, layout.longest(lines) + 1),
      height = #lines,
    })
    vim.keymap.set('n', 'q', function() pcall(vim.api.nvim_win_close, win, true) end, {
      buffer = buf,
      desc = 'bb7: close the diff',
      nowait = true,
    })
    local keys = require('bb7.config').get().keys
    for name, step in pairs({ next_change = 1, prev_change = -1 }) do
      if keys[name] then
        local desc = ('bb7: the diff of the %s changed file'):format(
          step > 0 and 'next' or 'previous'
        )
        vim.keymap.set('n', keys[name], function()
          pcall(vim.api.nvim_win_close, win, true)
          M.jump(step)
        end, { buffer = buf, desc = desc, nowait = true })
      end
    end
  end)
end

--- Moves the files panel's cursor to the next (`step` 1) or previous (-1) file with a pending
--- change, round the end, and shows that change as a diff: from any pane of the view.
---@param step integer
function M.jump(step)
  local win = view.win('files')
  local here = win and vim.api.nvim_win_get_cursor(win)[1] or 0
  local count = #(H.rows or {})
  for i = 1, count do
    local line = (here - 1 + step * i) % count + 1
    local row = H.rows[line]
    if row and row.has_output then
      if win then vim.api.nvim_win_set_cursor(win, { line, 0 }) end
      return M.diff(row)
    end
  end
  notify('no file has a pending change')
end

function M.vimdiff()
  local row = current()
  if not row then return end
  vim.cmd('BB7Diff ' .. vim.fn.fnameescape(row.abs))
end

--- Opens the file under the cursor, then reviews it inline or merges it (`bb7.review`).
---@param action 'toggle'|'merge'
function M.review(action)
  if not current() then return end
  M.open()
  require('bb7.review')[action]()
end

---@param redraw fun()
function M.update(redraw)
  local row = current()
  if not row then return end
  on_file('update_file', row, redraw, lines_of(row))
end

---@param redraw fun()
function M.update_all(redraw)
  backend().request('update_all', { buffers = view.buffers() }, function(err, value)
    if err then return backend().report(err) end
    local count = #value.problems
    if count > 0 then
      -- One line: the first problem, and how many more (all of them in :BB7Log).
      local more = count > 1 and (' (+%d more, :BB7Log)'):format(count - 1) or ''
      for _, problem in ipairs(value.problems) do
        require('bb7.log').warn('%s', problem)
      end
      notify(value.problems[1] .. more, 'warn')
    end
    if #value.updated == 0 and count == 0 then notify('every file is in sync') end
    redraw()
  end)
end

---@param redraw fun()
function M.toggle_readonly(redraw)
  local row = current()
  if not row then return end
  local facts = require('bb7.vocab').entry_kinds[row.kind]
  if not (facts and facts.toggles) then
    return notify(row.path .. ' stays read-only: a section or an outside file')
  end
  on_file('set_readonly', row, redraw, { readonly = facts.writable })
end

---@param redraw fun()
function M.remove(redraw)
  local row = current()
  if not row then return end
  ui.confirm(
    ("Remove %s from the chat's context?"):format(row.path),
    function() on_file('remove', row, redraw, lines_of(row)) end
  )
end

--- Opens the file: in the window the user came from (split layout) or a new tab.
function M.open()
  local row = current()
  if row then require('bb7.buffer').edit(row.abs) end
end

return M
