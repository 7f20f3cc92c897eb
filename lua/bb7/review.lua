--- `:BB7Review`: the pending change of a buffer drawn in place, hunk by hunk, without touching
--- the buffer's text. The lines a hunk would replace are highlighted as removed, its new lines
--- are virtual lines below them; buffer-local keys move between hunks and accept, amend (edit
--- the new lines in a small buffer first) or reject them (with a reason for the model). The
--- host decides everything (hunks, accept, reject: `bb7.review` in Python) and puts
--- an accepted hunk into the buffer itself; this module only draws and maps keys.
local M = {}

M.ns = vim.api.nvim_create_namespace('bb7_review')

---@class bb7.ReviewHunk
---@field start integer 0-based first local line the hunk replaces
---@field removed integer how many local lines it replaces (0: an insertion before `start`)
---@field added string[] its new lines
---@field overlap boolean the user changed these lines too
---@field applied boolean? an agent's own write: `start`/`removed` its lines in the buffer,
--- `added` the lines from before its turn (which rejecting the hunk puts back)
---@field choice integer? an edit waiting for a choice of place (its id), this hunk one place
---@field place integer? which place (1-based) of the edit's `places`
---@field places integer?

--- sessions: buf -> { path, hunks, mapped }; bars: win -> the 'winbar' the review's replaced
local H = { sessions = {}, bars = {} }

local backend = require('bb7.util').backend
local notify = require('bb7.util').notify
local plural = require('bb7.util').plural

-- The review keys: { option, handler name }; descriptions come from `bb7.keys`.
local KEYS = {
  { 'review_next', 'next' },
  { 'review_prev', 'prev' },
  { 'review_accept', 'accept' },
  { 'review_amend', 'amend' },
  { 'review_reject', 'reject' },
  { 'review_accept_all', 'accept_all' },
  { 'review_reject_all', 'reject_all' },
  { 'review_quit', 'stop' },
}

--- The first and last 0-based rows a hunk occupies (an insertion sits on the row above it).
---@param hunk bb7.ReviewHunk
---@return integer first, integer last
local function rows(hunk)
  if hunk.removed > 0 then return hunk.start, hunk.start + hunk.removed - 1 end
  local row = math.max(hunk.start - 1, 0)
  return row, row
end

--- The index of the hunk under the cursor of `win`, or nil.
---@param hunks bb7.ReviewHunk[]
---@param win integer
---@return integer?
local function hunk_at(hunks, win)
  local row = vim.api.nvim_win_get_cursor(win)[1] - 1
  for i, hunk in ipairs(hunks) do
    local first, last = rows(hunk)
    if row >= first and row <= last then return i end
  end
  return nil
end

--- Lines added above the first line are virtual lines above it, which a window shows only
--- when scrolled up to them (`topfill`): on the first line, scroll them into view.
---@param buf integer
---@param hunk bb7.ReviewHunk?
local function reveal_top(buf, hunk)
  if not hunk or hunk.start ~= 0 or hunk.removed ~= 0 or #hunk.added == 0 then return end
  if vim.api.nvim_buf_line_count(buf) == 1 and vim.fn.getline(1) == '' then return end
  if vim.api.nvim_get_current_buf() ~= buf or vim.api.nvim_win_get_cursor(0)[1] ~= 1 then return end
  vim.fn.winrestview({ topline = 1, topfill = #hunk.added })
end

--- Puts a hunk's `label` after the line `row` of `buf`, or on a line of its own above it when
--- the window showing `buf` has no room after the line: Neovim would cut it at the edge (a
--- 40-column window of the split layout).
---@param buf integer
---@param row integer 0-based
---@param label string
local function put_label(buf, row, label)
  local win = vim.fn.bufwinid(buf)
  local room = vim.o.columns
  if win ~= -1 then
    local info = vim.fn.getwininfo(win)[1]
    room = info.width - info.textoff
  end
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ''
  if vim.fn.strdisplaywidth(line) + 1 + vim.api.nvim_strwidth(label) <= room then
    vim.api.nvim_buf_set_extmark(buf, M.ns, row, 0, {
      virt_text = { { label, 'BB7ReviewHunk' } },
      virt_text_pos = 'eol',
    })
  else
    vim.api.nvim_buf_set_extmark(buf, M.ns, row, 0, {
      virt_lines = { { { label, 'BB7ReviewHunk' } } },
      virt_lines_above = true,
    })
  end
end

--- Highlights, with `group`, the buffer lines a hunk covers (those it replaces, or those an
--- agent wrote): one mark up to `end_row`, where one per line would cost a mark each.
---@param buf integer
---@param hunk bb7.ReviewHunk
---@param count integer the buffer's line count
---@param group string
local function mark_covered(buf, hunk, count, group)
  local last = math.min(hunk.start + hunk.removed, count) - 1
  if last >= hunk.start then
    vim.api.nvim_buf_set_extmark(buf, M.ns, hunk.start, 0, {
      end_row = last,
      line_hl_group = group,
      priority = 200,
    })
  end
end

--- A hunk's other side as virtual lines, padded so their highlight spans the window.
---@param lines string[]
---@param pad string
---@param group string
---@return table[]
local function virtual(lines, pad, group)
  local virt = {}
  for _, line in ipairs(lines) do
    table.insert(virt, { { line .. pad, group } })
  end
  return virt
end

--- Draws a hunk of an agent's own write (already in the buffer): its lines highlighted as
--- added, the lines from before the agent's turn as removed virtual lines above them.
---@param buf integer
---@param hunk bb7.ReviewHunk
---@param index integer
---@param total integer
---@param count integer the buffer's line count
---@param pad string
local function draw_applied(buf, hunk, index, total, count, pad)
  mark_covered(buf, hunk, count, 'BB7ReviewAdd')
  local first = rows(hunk)
  first = math.min(first, count - 1)
  local label = ('bb7 agent hunk %d/%d'):format(index, total)
  if hunk.overlap then label = label .. ': you edited it since' end
  put_label(buf, first, label)
  local virt = virtual(hunk.added, pad, 'BB7ReviewDelete')
  if #virt == 0 then return end
  -- Where the old lines were: above the hunk's first line (below the last line at the end).
  local above = hunk.start < count
  vim.api.nvim_buf_set_extmark(buf, M.ns, above and hunk.start or count - 1, 0, {
    virt_lines = virt,
    virt_lines_above = above,
  })
end

--- Draws a hunk of a pending change: the lines it would replace highlighted as removed, its
--- new lines as added virtual lines below them.
---@param buf integer
---@param hunk bb7.ReviewHunk
---@param i integer
---@param total integer
---@param count integer the buffer's line count
---@param pad string
---@param empty boolean the buffer is one empty line (a new file)
local function draw_pending(buf, hunk, i, total, count, pad, empty)
  mark_covered(buf, hunk, count, 'BB7ReviewDelete')
  local first, last = rows(hunk)
  first, last = math.min(first, count - 1), math.min(last, count - 1)
  local virt = virtual(hunk.added, pad, 'BB7ReviewAdd')
  local above = hunk.removed == 0 and hunk.start == 0
  local label = ('bb7 hunk %d/%d'):format(i, total)
  if (hunk.choice or 0) > 0 then
    label = ('%s: place %d of %d of one edit'):format(label, hunk.place, hunk.places)
  end
  if hunk.overlap then label = label .. ': over your own edit' end
  local onto = empty and above and #virt > 0
  if onto then
    table.remove(virt, 1)
    vim.api.nvim_buf_set_extmark(buf, M.ns, 0, 0, {
      virt_text = { { hunk.added[1], 'BB7ReviewAdd' } },
      virt_text_pos = 'overlay',
      line_hl_group = 'BB7ReviewAdd',
    })
    above = false
  end
  if onto then
    vim.api.nvim_buf_set_extmark(buf, M.ns, first, 0, {
      virt_text = { { label, 'BB7ReviewHunk' } },
      virt_text_pos = 'right_align',
    })
  else
    put_label(buf, first, label)
  end
  if #virt > 0 then
    vim.api.nvim_buf_set_extmark(buf, M.ns, above and first or last, 0, {
      virt_lines = virt,
      virt_lines_above = above,
    })
  end
end

--- Draws `hunks` over `buf` (clearing what was drawn before).
---@param buf integer
---@param hunks bb7.ReviewHunk[]
function M.draw(buf, hunks)
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  -- Virtual lines padded to the window width, so their highlight spans the line as a real
  -- line's does.
  local pad = (' '):rep(vim.o.columns)
  local count = vim.api.nvim_buf_line_count(buf)
  -- An empty buffer (a new file): its one empty line shows the first new line, not a blank
  -- line under the whole file.
  local empty = count == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
  for i, hunk in ipairs(hunks) do
    if hunk.applied then
      draw_applied(buf, hunk, i, #hunks, count, pad)
    else
      draw_pending(buf, hunk, i, #hunks, count, pad, empty)
    end
  end
end

--- Whether `buf` is being reviewed.
---@param buf integer?
---@return boolean
function M.active(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  return H.sessions[buf] ~= nil
end

--- The hunks drawn over `buf` (empty when it is not being reviewed).
---@param buf integer
---@return bb7.ReviewHunk[]
function M.hunks(buf)
  buf = buf == 0 and vim.api.nvim_get_current_buf() or buf
  return H.sessions[buf] and H.sessions[buf].hunks or {}
end

local function unmap(buf, session)
  for _, lhs in ipairs(session.mapped) do
    pcall(vim.keymap.del, 'n', lhs, { buffer = buf })
  end
end

--- The review's keys as bar items, the actions first: `ga accept`, `gr reject`, ... (the
--- configured keys; a key set to false is left out).
---@return string[]
local function key_items()
  local keys = require('bb7.config').get().keys
  local items = {}
  local function add(fmt, ...)
    for _, lhs in ipairs({ ... }) do
      if not lhs then return end
    end
    table.insert(items, fmt:format(...))
  end
  add('%s accept', keys.review_accept)
  add('%s reject', keys.review_reject)
  add('%s amend', keys.review_amend)
  add('%s/%s move', keys.review_next, keys.review_prev)
  add('%s quit', keys.review_quit)
  add('%s/%s all', keys.review_accept_all, keys.review_reject_all)
  return items
end

--- The review's line for a `width`-cell bar: which hunk the cursor is on (`review 2/3`, or
--- `review: 3 hunks` between them), then as many keys as fit whole.
---@param hunks bb7.ReviewHunk[]
---@param index integer? the hunk under the cursor
---@param width integer
---@return string
function M.hint(hunks, index, width)
  local line = index and (' review %d/%d'):format(index, #hunks)
    or (' review: ' .. plural(#hunks, 'hunk'))
  for _, item in ipairs(key_items()) do
    if vim.api.nvim_strwidth(line .. ' · ' .. item) > width then break end
    line = line .. ' · ' .. item
  end
  return line
end

-- The review's bar: window-local 'winbar' set to this expression on the windows that show a
-- reviewed buffer; what it replaced (`H.bars[win]`, '' for the global value) comes back when
-- the review ends, and shows meanwhile in such a window that shows another buffer.
local BAR = "%{%v:lua.require'bb7.review'.bar()%}"

local function local_bar(win)
  return vim.api.nvim_get_option_value('winbar', { scope = 'local', win = win })
end

local function set_bar(win, value)
  vim.api.nvim_set_option_value('winbar', value, { scope = 'local', win = win })
end

--- What the bar of the window being drawn shows (the 'winbar' expression).
---@return string
function M.bar()
  -- In a %{} item the window drawn is the current one (the user's is `g:actual_curwin`).
  local win = vim.g.statusline_winid or vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_win_get_buf(win)
  local session = H.sessions[buf]
  if not session or not session.hunks then
    local saved = H.bars[win]
    return saved and saved ~= '' and saved or vim.go.winbar
  end
  local index = hunk_at(session.hunks, win)
  local line = M.hint(session.hunks, index, vim.api.nvim_win_get_width(win))
  return '%#BB7ReviewHunk#' .. line:gsub('%%', '%%%%') .. '%*'
end

--- Puts the review's bar on the windows showing `buf`, keeping what their bar was.
---@param buf integer
local function show_bar(buf)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local was = local_bar(win)
    if was ~= BAR then
      H.bars[win] = was
      set_bar(win, BAR)
    end
  end
end

--- Gives back their own bar to the windows that show the review's bar and no reviewed buffer
--- (a window split from one inherits the bar: it gets the split one's).
local function restore_bars()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if local_bar(win) == BAR and not H.sessions[vim.api.nvim_win_get_buf(win)] then
      set_bar(win, H.bars[win] or '')
      H.bars[win] = nil
    end
  end
  for win in pairs(H.bars) do
    if not vim.api.nvim_win_is_valid(win) then H.bars[win] = nil end
  end
end

local function shown(path) return vim.fn.fnamemodify(path, ':~:.') end

local function message(path, text) return ('%s: %s'):format(shown(path), text) end

--- Ends the review of `buf` (the current buffer by default): the overlay and keys go.
---@param buf integer?
function M.stop(buf)
  if buf == nil or buf == 0 then buf = vim.api.nvim_get_current_buf() end
  local session = H.sessions[buf]
  if not session then return end
  H.sessions[buf] = nil
  pcall(vim.api.nvim_del_augroup_by_id, session.group)
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
    unmap(buf, session)
  end
  restore_bars()
end

local PENDING = require('bb7.vocab').pending

--- A new status of `buf`'s file: its review ends when nothing is pending any more (applied,
--- discarded or taken elsewhere), instead of showing hunks that are gone. Decided once the
--- host's batch of events is in: the host sends them a moment after its replies, so an apply
--- undone at once arrives as "applied" then "pending" after the review began.
---@param buf integer
---@param status string
function M.on_status(buf, status)
  -- An agent's own write is no pending change: its review ends when its hunks do.
  if not H.sessions[buf] or PENDING[status] or H.sessions[buf].applied then return end
  vim.schedule(function()
    if H.sessions[buf] and not PENDING[require('bb7.status').get(buf)] then M.stop(buf) end
  end)
end

local function map(buf, session)
  local keys = require('bb7.config').get().keys
  local what = {}
  for _, key in ipairs(require('bb7.keys').specs) do
    what[key.name] = key.desc
  end
  for _, key in ipairs(KEYS) do
    local lhs = keys[key[1]]
    if lhs then
      vim.keymap.set('n', lhs, function() M[key[2]](buf) end, {
        buffer = buf,
        desc = 'bb7: ' .. what[key[1]],
        nowait = true,
        silent = true,
      })
      table.insert(session.mapped, lhs)
    end
  end
end

--- Shows `reply` = { path, hunks } (the host's answer) over `buf`, or ends the review and
--- says what is true when no hunk is left.
---@param buf integer
---@param reply { path: string, hunks: bb7.ReviewHunk[], message: string? }
---@param said? string the one message to give instead of the review's own (`:BB7Merge`'s)
function M.show(buf, reply, said)
  if #reply.hunks == 0 then
    M.stop(buf)
    local modified = vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].modified
    local rest = modified and 'nothing pending; the buffer is modified, :w writes it'
      or 'nothing pending'
    return notify(type(reply.message) == 'string' and reply.message or message(reply.path, rest))
  end
  local session = H.sessions[buf]
  if not session then
    session = { path = reply.path, mapped = {} }
    H.sessions[buf] = session
    map(buf, session)
    session.group = vim.api.nvim_create_augroup('bb7_review_' .. buf, { clear = true })
    vim.api.nvim_create_autocmd('BufUnload', {
      group = session.group,
      buffer = buf,
      once = true,
      desc = 'bb7: end the review',
      callback = function() M.stop(buf) end,
    })
    -- The user's own edits move the hunks: draw them again once the typing pauses.
    vim.api.nvim_create_autocmd({ 'TextChanged', 'InsertLeave' }, {
      group = session.group,
      buffer = buf,
      desc = 'bb7: draw the review again after an edit',
      callback = function() M.schedule_redraw(buf) end,
    })
  end
  local first = session.hunks == nil
  session.hunks = reply.hunks
  session.applied = reply.hunks[1].applied
  session.tick = vim.api.nvim_buf_get_changedtick(buf)
  M.draw(buf, reply.hunks)
  if type(reply.message) == 'string' then return notify(reply.message) end
  if first then
    reveal_top(buf, reply.hunks[1])
    show_bar(buf)
    -- The action and the count; the keys are on the bar.
    local edits = {}
    for _, hunk in ipairs(reply.hunks) do
      if (hunk.choice or 0) > 0 then edits[hunk.choice] = true end
    end
    local placing = vim.tbl_count(edits)
    local choose = placing > 0
        and ('; %s to place: accept the place meant'):format(plural(placing, 'edit'))
      or ''
    said = said
      or ('reviewing %s: %s%s'):format(shown(reply.path), plural(#reply.hunks, 'hunk'), choose)
  end
  if said then notify(said) end
end

local function text(buf) return { require('bb7.buffer').text(buf) } end

--- Starts (or, when running, ends) the review of the current buffer's pending change; with
--- `path`, opens that file first.
---@param path string? absolute path
function M.toggle(path)
  if path and path ~= vim.api.nvim_buf_get_name(0) then require('bb7.buffer').edit(path) end
  local buf = vim.api.nvim_get_current_buf()
  if H.sessions[buf] then return M.stop(buf) end
  M.open(buf)
end

--- Asks the host for the hunks of `buf` and draws them; `said` is the one message to give
--- then (instead of the review's own).
---@param buf integer
---@param said string?
function M.open(buf, said)
  local path = vim.api.nvim_buf_get_name(buf)
  backend().request('review', { path = path, buffers = text(buf) }, function(err, reply)
    if err then return backend().report(err) end
    M.show(buf, reply, said)
  end)
end

--- Asks for the hunks of a running review again and draws them. A review that ended meanwhile
--- stays ended, and one whose change went meanwhile (applied, discarded elsewhere) ends.
---@param buf integer
local function redraw(buf)
  local session = H.sessions[buf]
  local args = { path = vim.api.nvim_buf_get_name(buf), buffers = text(buf) }
  backend().request('review', args, function(err, reply)
    if H.sessions[buf] ~= session then return end
    if err and err.kind == 'no_output' then return M.stop(buf) end
    if err then return backend().report(err) end
    M.show(buf, reply)
  end)
end

--- Asks for the hunks again after `status.debounce_ms` when the buffer changed since they
--- were drawn (an accept's own change is already drawn).
---@param buf integer
function M.schedule_redraw(buf)
  local session = H.sessions[buf]
  if not session or vim.api.nvim_buf_get_changedtick(buf) == session.tick then return end
  local delay = require('bb7.config').get().status.debounce_ms
  session.pending = (session.pending or 0) + 1
  local ticket = session.pending
  vim.defer_fn(function()
    local now = H.sessions[buf]
    if now == session and session.pending == ticket and vim.api.nvim_buf_is_loaded(buf) then
      redraw(buf)
    end
  end, delay)
end

--- The index of the hunk under the cursor of the current window, or nil.
---@param session table
---@return integer?
local function under_cursor(session) return hunk_at(session.hunks, 0) end

--- Moves the cursor to the next (1) or previous (-1) hunk, wrapping around.
---@param buf integer
---@param direction integer
function M.jump(buf, direction)
  local session = H.sessions[buf]
  if not session or #session.hunks == 0 then return end
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local starts = {}
  for _, hunk in ipairs(session.hunks) do
    table.insert(starts, (rows(hunk)))
  end
  local target = starts[direction > 0 and 1 or #starts] --[[@as integer]]
  for i = 1, #starts do
    local candidate = starts[direction > 0 and i or #starts + 1 - i] --[[@as integer]]
    if (candidate - row) * direction > 0 then
      target = candidate
      break
    end
  end
  vim.api.nvim_win_set_cursor(0, { target + 1, 0 })
  reveal_top(buf, session.hunks[1])
end

---@param buf integer
function M.next(buf) M.jump(buf, 1) end

---@param buf integer
function M.prev(buf) M.jump(buf, -1) end

--- The hunk under the cursor of `buf`'s review, or nil (said to the user).
---@param session table
---@return bb7.ReviewHunk?
local function hunk_here(session)
  local index = under_cursor(session)
  if index then return session.hunks[index] end
  local key = require('bb7.config').get().keys.review_next or ']h'
  notify(('no hunk under the cursor; %s goes to the next one'):format(key), 'warn')
end

--- Sends `method` for the hunk under the cursor (or `all`), with `extra` args; `on_done`
--- after the reply is drawn.
---@param buf integer
---@param method string
---@param all boolean
---@param extra table?
---@param on_done fun()?
local function act(buf, method, all, extra, on_done)
  local session = H.sessions[buf]
  if not session then return end
  local args =
    vim.tbl_extend('force', { path = session.path, buffers = text(buf), all = all }, extra or {})
  if not all and not args.hunk then
    args.hunk = hunk_here(session)
    if not args.hunk then return end
  end
  backend().request(method, args, function(err, reply)
    if err then
      backend().report(err)
      -- The hunks may have moved (the buffer changed): draw them as they are now.
      if H.sessions[buf] then redraw(buf) end
      return
    end
    if on_done then on_done() end
    M.show(buf, reply)
  end)
end

--- Accepts the hunk under the cursor: its new lines go into the buffer (one undo step,
--- nothing written to disk); the pending change keeps the other hunks.
---@param buf integer
function M.accept(buf) act(buf, 'review_accept', false) end

--- Asks for the reason of a rejection (empty: none; <Esc>: reject nothing), then rejects.
---@param buf integer
---@param all boolean
local function reject(buf, all)
  local session = H.sessions[buf]
  local hunk = session and not all and hunk_here(session)
  if not session or (not all and not hunk) then return end
  local prompt = 'bb7: why reject this hunk? (empty: no reason) '
  if all then
    prompt = 'bb7: why reject every hunk? (empty: no reason) '
  elseif hunk and (hunk.choice or 0) > 0 then
    -- A place of an edit waiting for a choice: rejecting it refuses the edit, every place.
    prompt = 'bb7: why refuse this edit? (empty: no reason) '
  end
  vim.ui.input({ prompt = prompt }, function(reason)
    if reason == nil then return end
    act(buf, 'review_reject', all, { reason = reason })
  end)
end

--- Rejects the hunk under the cursor, for a reason the user may give: it leaves the pending
--- change, and the next request tells the model (with the reason).
---@param buf integer
function M.reject(buf) reject(buf, false) end

---@param buf integer
function M.accept_all(buf) act(buf, 'review_accept', true) end

---@param buf integer
function M.reject_all(buf) reject(buf, true) end

--- Opens the new lines of the hunk under the cursor in a small buffer below; `:w` there
--- accepts the hunk with the lines as edited (the next request tells the model how they
--- differ), `q` there leaves the hunk as it was.
---@param buf integer
function M.amend(buf)
  local session = H.sessions[buf]
  local hunk = session and hunk_here(session)
  if not hunk then return end
  local name = ('[bb7 amend] %s:%d'):format(
    vim.fn.fnamemodify(session.path, ':~:.'),
    hunk.start + 1
  )
  local existing = vim.fn.bufnr(name)
  if existing > 0 then vim.api.nvim_buf_delete(existing, { force = true }) end
  local filetype = vim.bo[buf].filetype
  vim.cmd(('belowright %dnew'):format(math.min(math.max(#hunk.added, 1) + 2, 15)))
  local scratch, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  vim.bo[scratch].buftype = 'acwrite'
  vim.bo[scratch].bufhidden = 'wipe'
  vim.bo[scratch].swapfile = false
  vim.api.nvim_buf_set_name(scratch, name)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, hunk.added)
  vim.bo[scratch].modified = false
  vim.bo[scratch].filetype = filetype
  vim.keymap.set('n', 'q', function() vim.api.nvim_win_close(win, true) end, {
    buffer = scratch,
    desc = 'bb7: leave the hunk as it was',
  })
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    buffer = scratch,
    desc = 'bb7: accept the hunk as amended',
    callback = function()
      local amended = vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
      -- An emptied buffer is no lines (as Vim writes it), not one blank line.
      if #amended == 1 and amended[1] == '' then amended = {} end
      act(buf, 'review_accept', false, { hunk = hunk, amended = amended }, function()
        if vim.api.nvim_win_is_valid(win) then vim.api.nvim_win_close(win, true) end
      end)
    end,
  })
  -- The keys on the small window's own bar (it took the reviewed window's when it split).
  set_bar(win, ' amend: edit these lines · :w accepts them · q leaves the hunk')
  notify(
    ('amending %s line %d: :w accepts, q leaves the hunk'):format(
      shown(session.path),
      hunk.start + 1
    )
  )
end

--- `:BB7Merge`: merges the pending change of the current buffer (or `path`) over the local
--- edits into the buffer, one undo step; overlaps stay pending and open in the review.
---@param path string? absolute path
function M.merge(path)
  if path and path ~= vim.api.nvim_buf_get_name(0) then require('bb7.buffer').edit(path) end
  local buf = vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(buf)
  backend().request('merge', { path = name, buffers = text(buf) }, function(err, reply)
    if err then return backend().report(err) end
    if #reply.overlaps == 0 then return notify(reply.message) end
    -- One message: the merge's, once the review of what is left is drawn.
    M.stop(buf)
    M.open(buf, reply.message)
  end)
end

return M
