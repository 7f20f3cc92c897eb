--- Buffers as the host sees them: their text (unsaved edits count, so statuses and applies
--- judge what the user has, not what is on disk), and writing a file through its loaded
--- buffer, so an apply is one undoable change and marks, folds and the view survive.
local M = {}

local function is_file(buf)
  return vim.api.nvim_buf_is_loaded(buf)
    and vim.bo[buf].buftype == ''
    and vim.api.nvim_buf_get_name(buf) ~= ''
end

--- What the host gets of a buffer: `lines` only when it has unsaved changes (else the host
--- reads the file), and `buf`/`changedtick` so it can write through it.
---@param buf integer
---@return table
function M.text(buf)
  return {
    path = vim.api.nvim_buf_get_name(buf),
    buf = buf,
    changedtick = vim.api.nvim_buf_get_changedtick(buf),
    lines = vim.bo[buf].modified and vim.api.nvim_buf_get_lines(buf, 0, -1, false) or nil,
    eol = vim.bo[buf].endofline,
    crlf = vim.bo[buf].fileformat == 'dos',
    bom = vim.bo[buf].bomb,
  }
end

--- The text of the loaded buffer of file `path` when it has unsaved changes, else nil (the
--- disk has it): what an agent reads of a file you are editing.
---@param path string absolute
---@return table?
function M.unsaved(path)
  local buf = vim.fn.bufnr(path)
  if buf < 0 or not is_file(buf) or not vim.bo[buf].modified then return nil end
  return M.text(buf)
end

--- Reloads the loaded buffers of `paths` that have no unsaved changes (a file changed on disk
--- by someone else, an agent): one undo step each, as `:edit` does. Returns the paths whose
--- buffer has unsaved changes and was left alone.
---@param paths string[] absolute
---@return string[]
function M.reload(paths)
  local kept = {}
  for _, path in ipairs(paths) do
    local buf = vim.fn.bufnr(path)
    if buf > 0 and is_file(buf) then
      if vim.bo[buf].modified then
        table.insert(kept, path)
      else
        vim.api.nvim_buf_call(buf, function() vim.cmd('silent! edit') end)
      end
    end
  end
  return kept
end

--- The buffers a request about file `path` needs (every file of the chat when nil): that
--- file's buffer if loaded, and every buffer with unsaved changes.
---@param path string?
---@return table[]
function M.for_request(path)
  local files = path == nil and require('bb7.status').files() or {}
  local out = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if is_file(buf) then
      local name = vim.api.nvim_buf_get_name(buf)
      if vim.bo[buf].modified or name == path or files[name] then table.insert(out, M.text(buf)) end
    end
  end
  return out
end

-- `vim.text.diff` from Neovim 0.12 on, `vim.diff` (its name before) on 0.11.
---@diagnostic disable-next-line: deprecated
local diff = vim.text and vim.text.diff or vim.diff

-- Replaces only the lines that differ (bottom up, so earlier hunks keep their positions).
local function set_changed_lines(buf, old, new)
  local hunks = diff(table.concat(old, '\n') .. '\n', table.concat(new, '\n') .. '\n', {
    result_type = 'indices',
  }) --[[@as integer[][] ]]
  for i = #hunks, 1, -1 do
    local hunk = hunks[i]
    local start_old, count_old, start_new, count_new = hunk[1], hunk[2], hunk[3], hunk[4]
    -- With nothing removed, `start_old` is the line the new lines go after.
    local first = count_old == 0 and start_old or start_old - 1
    local lines = vim.list_slice(new, start_new, start_new + count_new - 1)
    vim.api.nvim_buf_set_lines(buf, first, first + count_old, false, lines)
  end
end

--- A window of the current tab page for code, not a chat view pane: the previous one when it
--- is such, else the first; nil when the tab holds only the view.
---@return integer?
local function code_window()
  local previous = vim.fn.win_getid(vim.fn.winnr('#'))
  if previous ~= 0 and not vim.w[previous].bb7_pane then return previous end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if not vim.w[win].bb7_pane and vim.api.nvim_win_get_config(win).relative == '' then
      return win
    end
  end
  return nil
end

--- Opens file `path` for editing from the current window; from a chat view pane (which keeps
--- its buffer) in the code window beside it (the split layout's), else in a new tab.
---@param path string
function M.edit(path)
  local file = vim.fn.fnameescape(path)
  if not vim.w.bb7_pane then return vim.cmd.edit(file) end
  local win = code_window()
  if not win then return vim.cmd.tabedit(file) end
  vim.api.nvim_set_current_win(win)
  vim.cmd.edit(file)
end

--- Shows `buf` where code goes: the code window beside the chat view, else a new tab (a file
--- opened in a pane, `:edit` typed there, goes there instead).
---@param buf integer
function M.show(buf)
  local win = code_window()
  if not win then return vim.cmd('tab sbuffer ' .. buf) end
  vim.api.nvim_win_set_buf(win, buf)
  vim.api.nvim_set_current_win(win)
end

local first_line = require('bb7.util').first_line

--- Puts `lines` into `buf` as one undoable change, without writing the file (only the lines
--- that differ change, so marks and folds elsewhere stay). `eol`: whether the text ends with a
--- newline. Returns nil, or why nothing changed.
---@param buf integer
---@param changedtick integer the tick the host's text came from
---@param lines string[]
---@param eol boolean
---@return string? problem
function M.put(buf, changedtick, lines, eol)
  if not vim.api.nvim_buf_is_loaded(buf) then return 'its buffer is not loaded any more' end
  if vim.api.nvim_buf_get_changedtick(buf) ~= changedtick then
    return 'its buffer changed just now'
  end
  local old = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local ok, err = pcall(set_changed_lines, buf, old, lines)
  if not ok then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, old)
    return first_line(err)
  end
  vim.bo[buf].endofline = eol
  if not eol then vim.bo[buf].fixendofline = false end
  return nil
end

--- Called by the host (inside its apply request): replaces the text of `buf` with `lines`
--- as one undoable change and writes the file. `eol`: whether the file ends with a newline.
--- Returns nil, or why nothing was written (the buffer is then as it was).
---@param buf integer
---@param changedtick integer
---@param lines string[]
---@param eol boolean
---@return string? problem
function M.replace(buf, changedtick, lines, eol)
  local old_eol, old_fixeol = vim.bo[buf].endofline, vim.bo[buf].fixendofline
  local old = vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local err = M.put(buf, changedtick, lines, eol)
  if err then return err end
  -- The host already knows the new status: no refresh from our own BufWritePost.
  local ok, failed = pcall(require('bb7.status').quietly, function()
    vim.api.nvim_buf_call(buf, function() vim.cmd('silent keepalt write! ++p') end)
  end)
  if ok then return nil end
  vim.bo[buf].endofline, vim.bo[buf].fixendofline = old_eol, old_fixeol
  if not vim.deep_equal(vim.api.nvim_buf_get_lines(buf, 0, -1, false), old) then
    pcall(vim.api.nvim_buf_call, buf, function() vim.cmd('silent undo') end)
    if old and not vim.deep_equal(vim.api.nvim_buf_get_lines(buf, 0, -1, false), old) then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, old)
    end
  end
  return first_line(failed)
end

return M
