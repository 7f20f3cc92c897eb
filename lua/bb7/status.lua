--- The Lua-side cache of file statuses, fed only by the host's `status_changed` payloads (its
--- events, and the chat view's redraw at the end of a send; statuses are decided once, in
--- Python). From it: `vim.b.bb7_status` (and `vim.b.bb7_check`, the checks' verdict on a pending
--- change), a sign on line 1
--- and on the lines a pending change touches (own namespace), the statusline component and
--- `User BB7StatusChanged`. Reading a status never calls the host.
local M = {}

M.ns = vim.api.nvim_create_namespace('bb7_status')

--- How each status looks (`signs.*` option, highlight group, question before forcing it).
M.PRESENTATION = require('bb7.presentation')

--- The statuses of `statuses` (default: the vocabulary's) that lack a presentation row, or
--- need force but have no question to ask.
---@param statuses? bb7.StatusFacts[]
---@return string[]
function M.unpresented(statuses)
  local missing = {}
  for _, facts in ipairs(statuses or require('bb7.vocab').statuses) do
    local row = M.PRESENTATION[facts.status]
    if not row or (facts.needs_force and not row.confirm) then
      table.insert(missing, facts.status)
    end
  end
  return missing
end

--- The configured sign (`{ text, hl }`) of a status, nil for none.
---@param status string
---@return table?
function M.sign(status)
  local row = M.PRESENTATION[status]
  return row and require('bb7.config').get().signs[row.option]
end

--- The question to ask before applying a file of this status with force, nil when apply
--- goes ahead without.
---@param status string
---@return string?
function M.confirm(status)
  local facts = require('bb7.vocab').status[status]
  local row = M.PRESENTATION[status]
  return facts and facts.needs_force and row and row.confirm or nil
end

local H = {
  ---@type table<string, bb7.StatusItem> absolute path -> its status, sign lines, choices
  files = {},
  dirty = {}, -- buffers waiting for the debounce timer
  timer = nil,
  quiet = false, -- while bb7 itself writes a buffer (the host sends the new status)
  watchers = {}, -- absolute path of a pending new file (A, !A) -> its directory's uv_fs_event
}

local function bufnr(buf)
  if buf == nil or buf == 0 then return vim.api.nvim_get_current_buf() end
  return buf
end

--- Files of the active chat as last reported by the host: absolute path -> entry.
---@return table<string, table>
function M.files() return H.files end

---@param buf integer?
---@return string
function M.get(buf)
  buf = bufnr(buf)
  if not vim.api.nvim_buf_is_valid(buf) then return '' end
  local entry = H.files[vim.api.nvim_buf_get_name(buf)]
  return entry and entry.status or ''
end

---@param buf integer?
---@return string
function M.statusline(buf)
  local status = M.get(buf)
  -- An agent's own write waiting for review is in sync (blank) as far as pending goes.
  local by_agent = M.by_agent(buf)
  if status == '' and not by_agent then return '' end
  local entry = H.files[vim.api.nvim_buf_get_name(bufnr(buf))]
  local mark = entry and entry.check_mark or ''
  local agent = by_agent and ((status ~= '' and ' ' or '') .. 'agent') or ''
  return 'bb7:'
    .. status
    .. (M.choosing(buf) and ' choose' or '')
    .. agent
    .. (mark ~= '' and (' ' .. mark) or '')
end

--- Whether an agent changed the buffer's file on disk itself and its review is not over
--- (|:BB7Review| shows the change, |:BB7UndoApply| undoes it).
---@param buf integer?
---@return boolean
function M.by_agent(buf)
  buf = bufnr(buf)
  if not vim.api.nvim_buf_is_valid(buf) then return false end
  local entry = H.files[vim.api.nvim_buf_get_name(buf)]
  return entry ~= nil and entry.agent == true
end

--- Whether an edit of the buffer's pending change waits for the user's choice of place.
---@param buf integer?
---@return boolean
function M.choosing(buf)
  buf = bufnr(buf)
  if not vim.api.nvim_buf_is_valid(buf) then return false end
  local entry = H.files[vim.api.nvim_buf_get_name(buf)]
  return entry ~= nil and (entry.choose or 0) > 0
end

--- With `signcolumn` one sign wide (`auto`, `yes`: the defaults) a two-cell sign such as
--- `~M` would touch the code: the windows showing `buf` get `yes:2` for it while it has one
--- (`wide`), and their own value back after.
---@param buf integer
---@param wide boolean
local function fit_signcolumn(buf, wide)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local saved = vim.w[win].bb7_signcolumn
    if wide and saved == nil then
      local value = vim.wo[win].signcolumn
      if value == 'auto' or value == 'yes' then
        vim.w[win].bb7_signcolumn = value
        vim.wo[win][0].signcolumn = 'yes:2'
      end
    elseif not wide and saved ~= nil then
      vim.w[win].bb7_signcolumn = nil
      vim.wo[win][0].signcolumn = saved
    end
  end
end

--- Draws the cached status of one buffer: `vim.b.bb7_status` and signs.
---@param buf integer
function M.render(buf)
  if not vim.api.nvim_buf_is_loaded(buf) then return end
  local entry = H.files[vim.api.nvim_buf_get_name(buf)]
  local status = entry and entry.status or ''
  if entry or vim.b[buf].bb7_status ~= nil then vim.b[buf].bb7_status = status end
  local check = entry and entry.check or ''
  if check ~= '' or vim.b[buf].bb7_check ~= nil then vim.b[buf].bb7_check = check end
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  local signs = require('bb7.config').get().signs
  local sign = signs.enabled and M.sign(status)
  fit_signcolumn(buf, sign and vim.fn.strdisplaywidth(sign.text) > 1 or false)
  if not entry or status == '' or not signs.enabled then return end
  local function mark(line, spec)
    vim.api.nvim_buf_set_extmark(buf, M.ns, line, 0, {
      sign_text = spec.text,
      sign_hl_group = spec.hl,
      priority = signs.priority,
    })
  end
  if M.sign(status) then mark(0, M.sign(status)) end
  -- The model's lines and the user's own edits are marked apart (a line both changed is the
  -- model's: accepting would replace it).
  local count = vim.api.nvim_buf_line_count(buf)
  for _, line in ipairs(entry.user_lines or {}) do
    if line >= 1 and line <= count then mark(line - 1, signs.user_line) end
  end
  for _, line in ipairs(entry.lines or {}) do
    if line >= 1 and line <= count then mark(line - 1, signs.pending_line) end
  end
end

--- Moves the cursor to the next (1) or previous (-1) line a pending change touches.
---@param direction integer
function M.jump(direction)
  local entry = H.files[vim.api.nvim_buf_get_name(0)]
  local current = vim.api.nvim_win_get_cursor(0)[1]
  ---@type integer[]
  local lines = vim.deepcopy(entry and entry.lines or {})
  table.sort(lines, function(a, b) return direction > 0 and a < b or a > b end)
  for _, line in ipairs(lines) do
    if (line - current) * direction > 0 then return vim.api.nvim_win_set_cursor(0, { line, 0 }) end
  end
end

--- Whether a file of this status is a pending new file (A, !A).
---@param status string
---@return boolean
local function is_new_file(status)
  local facts = require('bb7.vocab').status[status]
  return facts ~= nil and facts.new_file
end

--- Nothing in Neovim notices a pending new file made (A becomes !A) or deleted outside it:
--- the directory of each is watched, and a change of that name refreshes the statuses.
local function watch_new_files()
  for path, handle in pairs(H.watchers) do
    local entry = H.files[path]
    if not (entry and is_new_file(entry.status)) then
      handle:close()
      H.watchers[path] = nil
    end
  end
  for path, entry in pairs(H.files) do
    if is_new_file(entry.status) and not H.watchers[path] then
      local handle = vim.uv.new_fs_event()
      local name = vim.fs.basename(path)
      local ok = handle
        and handle:start(vim.fs.dirname(path), {}, function(err, changed)
          if not err and changed == name then vim.schedule(function() M.refresh({}, true) end) end
        end)
      if ok then
        H.watchers[path] = handle
      elseif handle then
        handle:close() -- its directory does not exist yet
      end
    end
  end
end

--- Takes a `status_changed` event from the host into the cache and redraws.
---@param event { files: table?, removed: string[]?, full: boolean? }
function M.on_status_changed(event)
  local changed = {}
  if event.full then
    for path in pairs(H.files) do
      changed[path] = true
    end
    H.files = {}
  end
  for path, file in pairs(event.files or {}) do
    H.files[path] = {
      status = file.status,
      lines = file.lines,
      user_lines = file.user_lines,
      choose = file.choose,
      agent = file.agent,
      check = file.check,
      check_mark = file.check_mark,
    }
    changed[path] = true
  end
  for _, path in ipairs(event.removed or {}) do
    H.files[path] = nil
    changed[path] = true
  end
  watch_new_files()
  local review = package.loaded['bb7.review']
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and changed[vim.api.nvim_buf_get_name(buf)] then
      M.render(buf)
      if review then review.on_status(buf, M.get(buf)) end
    end
  end
  vim.api.nvim_exec_autocmds('User', {
    pattern = 'BB7StatusChanged',
    data = { paths = vim.tbl_keys(changed) },
    modeline = false,
  })
  vim.cmd('redrawstatus!')
end

-- Background refreshes are not commands: a missing backend is logged, not shown.
local function quiet(err)
  if err and err.kind ~= 'not_available' then return require('bb7.backend').report(err) end
  if err then require('bb7.log').debug('statuses: %s', err.message) end
end

--- Runs `fn()` without status refreshes (bb7 writing a buffer; errors pass through).
---@param fn fun()
function M.quietly(fn)
  H.quiet = true
  local ok, err = pcall(fn)
  H.quiet = false
  if not ok then error(err, 0) end
end

--- Asks the host to recompute the statuses of `bufs` (files of the chat only), or of every
--- file when `all`. Does nothing while the host is not running: it never starts it.
---@param bufs integer[]
---@param all boolean?
function M.refresh(bufs, all)
  -- Not loaded: never started (and a file opened at start-up does not load it).
  local backend = package.loaded['bb7.backend']
  if H.quiet or not backend or not backend.is_ready() then return end
  local buffers = {}
  for _, buf in ipairs(bufs) do
    if vim.api.nvim_buf_is_loaded(buf) and H.files[vim.api.nvim_buf_get_name(buf)] then
      table.insert(buffers, require('bb7.buffer').text(buf))
    end
  end
  if #buffers == 0 and not all then return end
  backend.request('statuses', { buffers = buffers, all = all or false }, quiet)
end

--- Refreshes `buf` once it has been left alone for `status.debounce_ms` (TextChanged).
---@param buf integer
function M.schedule_refresh(buf)
  if not H.files[vim.api.nvim_buf_get_name(buf)] then return end
  H.dirty[buf] = true
  H.timer = H.timer or assert(vim.uv.new_timer())
  H.timer:stop()
  H.timer:start(
    require('bb7.config').get().status.debounce_ms,
    0,
    vim.schedule_wrap(function()
      local bufs = vim.tbl_keys(H.dirty)
      H.dirty = {}
      M.refresh(bufs)
    end)
  )
end

return M
