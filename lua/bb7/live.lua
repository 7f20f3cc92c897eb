--- Live context parts (|bb7-live-parts|): what the editor knows that the model may read again at
--- each send. This module only reads the editor's state (`vim.diagnostic`, terminal buffers)
--- for the host, which formats, bounds and stores it (python/bb7/live/).
local M = {}

-- What one send reads at most: the host keeps less (its bound is said in the part).
local MAX_DIAGNOSTICS = 2000
local TERMINAL_LINES = 400
local MAX_TERMINALS = 8

--- The words `:BB7Add` and `@` in the input take for a live part.
M.WORDS = { 'diagnostics', 'diff', 'terminal' }

---@return table[]
local function diagnostics()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(nil)) do
    if #out >= MAX_DIAGNOSTICS then break end
    local name = vim.api.nvim_buf_is_valid(d.bufnr) and vim.api.nvim_buf_get_name(d.bufnr) or ''
    if name ~= '' and vim.bo[d.bufnr].buftype == '' then
      local line = vim.api.nvim_buf_get_lines(d.bufnr, d.lnum, d.lnum + 1, false)[1] or ''
      table.insert(out, {
        path = name,
        line = d.lnum + 1,
        col = d.col + 1,
        severity = d.severity or 1,
        message = d.message or '',
        source = d.source or '',
        text = line,
      })
    end
  end
  return out
end

---@return table[]
local function terminals()
  local found = {}
  for _, info in ipairs(vim.fn.getbufinfo()) do
    if vim.bo[info.bufnr].buftype == 'terminal' then table.insert(found, info) end
  end
  -- Most recent first: `:BB7Add terminal` with no name reads the first.
  table.sort(found, function(a, b) return a.lastused > b.lastused end)
  local out = {}
  for i = 1, math.min(#found, MAX_TERMINALS) do
    local buf = found[i].bufnr
    local total = vim.api.nvim_buf_line_count(buf)
    table.insert(out, {
      name = found[i].name,
      buf = buf,
      lines = vim.api.nvim_buf_get_lines(buf, math.max(total - TERMINAL_LINES, 0), -1, false),
      total = total,
      title = vim.b[buf].term_title or '',
    })
  end
  return out
end

--- The editor's state the host reads live parts from (`EditorState` in the protocol).
---@return table
function M.state() return { diagnostics = diagnostics(), terminals = terminals() } end

--- Adds the live part `words` names (`{ 'diff', '--staged' }`) to the active chat.
---@param words string[]
---@param done fun(err: any, said: any)
function M.add(words, done)
  require('bb7.util').backend().request('add_part', { words = words, editor = M.state() }, done)
end

---@param word string
---@return boolean
function M.is_word(word) return vim.tbl_contains(M.WORDS, (word:gsub('^@', ''))) end

return M
