--- Messages for the user (`vim.notify`, prefixed "bb7: ") and the log file
--- `stdpath('log')/bb7.log`, shared with the Python host (which appends its own lines).
local M = {}

local LEVELS = { off = 0, error = 1, warn = 2, info = 3, debug = 4 }
local MAX_BYTES = 1024 * 1024

local H = { file = nil }

---@alias bb7.LogLevel 'off'|'error'|'warn'|'info'|'debug'

---@return string
function M.path() return vim.fn.stdpath('log') .. '/bb7.log' end

--- The prompt log's file (|bb7-option-log_prompts|): every request and answer, raw.
---@return string
function M.prompts_path() return vim.fn.stdpath('log') .. '/bb7-prompts.log' end

--- The level in force: `$BB7_LOG_LEVEL`, else the `log_level` option.
---@return bb7.LogLevel
function M.level()
  local env = vim.env.BB7_LOG_LEVEL
  if env and LEVELS[env:lower()] then return env:lower() end
  return require('bb7.config').get().log_level
end

local function open()
  if H.file then return H.file end
  local path = M.path()
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  -- Keep the log small: start over (keeping one old copy) once it passes 1 MiB.
  local stat = vim.uv.fs_stat(path)
  if stat and stat.size > MAX_BYTES then vim.uv.fs_rename(path, path .. '.old') end
  H.file = io.open(path, 'a')
  return H.file
end

---@param level bb7.LogLevel
---@param text string
local function append(level, text)
  local file = open()
  if not file then return end
  file:write(('%s [lua] %s %s\n'):format(os.date('%Y-%m-%d %H:%M:%S'), level:upper(), text))
  file:flush()
end

--- Appends a line to the log if `level` is enabled; `fmt` is formatted with the rest.
---@param level bb7.LogLevel
---@param fmt string
---@param ... any
function M.write(level, fmt, ...)
  if LEVELS[level] > LEVELS[M.level()] then return end
  append(level, select('#', ...) > 0 and fmt:format(...) or fmt)
end

---@param fmt string
---@param ... any
function M.debug(fmt, ...) M.write('debug', fmt, ...) end
---@param fmt string
---@param ... any
function M.info(fmt, ...) M.write('info', fmt, ...) end
---@param fmt string
---@param ... any
function M.warn(fmt, ...) M.write('warn', fmt, ...) end
---@param fmt string
---@param ... any
function M.error(fmt, ...) M.write('error', fmt, ...) end

local NOTIFY_LEVELS = {
  error = vim.log.levels.ERROR,
  warn = vim.log.levels.WARN,
  info = vim.log.levels.INFO,
}

--- `line` in `room` cells by cutting its longest path from the left (`…/pkg/a.py: merged`), so
--- what the message says around it stays whole; nil when that path cannot give enough.
---@param line string
---@param room integer
---@return string?
local function shorten_path(line, room)
  local from, to, at = 0, -1, 1 -- the longest so far: none (to < from)
  while true do
    local s, e = line:find('%S*/%S*', at)
    if not s or not e then break end
    if e - s > to - from then
      from, to = s, e
    end
    at = e + 1
  end
  if to < from then return nil end
  local path = line:sub(from, to)
  local keep = vim.fn.strchars(path) - (vim.api.nvim_strwidth(line) - room) - 1 ---@type integer
  if keep < 4 then return nil end -- `…/a.py` still names the file
  local tail = vim.fn.strcharpart(path, vim.fn.strchars(path) - keep)
  return line:sub(1, from - 1) .. '…' .. tail .. line:sub(to + 1)
end

--- The longest run of whole sentences `line` starts with that fits `room` cells, or nil.
---@param line string
---@param room integer
---@return string?
local function first_sentences(line, room)
  local found, at = nil, 1
  while true do
    -- A sentence ends before a capital (`:BB7Chat! takes it` goes on).
    local stop = line:find('[.!?] %u', at)
    if not stop or vim.api.nvim_strwidth(line:sub(1, stop)) > room then return found end
    found, at = line:sub(1, stop), stop + 1
  end
end

--- `message` as one line of `room` cells: its first line, cut where it must be; `true`
--- second when something was left out.
---@param message string
---@param room integer
---@return string line
---@return boolean cut
function M.fit(message, room)
  local first = message:match('^[^\n]*') --[[@as string]]
  local rest = message:sub(#first + 2)
  if not rest:find('%S') and vim.api.nvim_strwidth(first) <= room then return first, false end
  -- Lines after the first: said to be in the log. A line too long gives its longest path
  -- away first (the `…` says so; the log has it whole), then its sentences after the first
  -- (messages lead with what to do), and only then its end.
  local more = rest:find('%S') and ' (:BB7Log)' or ''
  if vim.api.nvim_strwidth(first) <= room - #more then return first .. more, true end
  local short = shorten_path(first, room - #more)
  if short then return short .. more, true end
  more = ' (:BB7Log)'
  local sentence = first_sentences(first, room - #more)
  if sentence then return sentence .. more, true end
  -- Whole sentences even without the note: the log has the rest all the same.
  sentence = first_sentences(first, room)
  if sentence then return sentence, true end
  return vim.fn.strcharpart(first, 0, room - #more - 1) .. '…' .. more, true
end

--- `message` as one line of the command area (a longer one stops Neovim at "Press ENTER"):
--- `fit` to the room there after "bb7: "; `true` second when something was left out.
---@param message string
---@return string line
---@return boolean cut
function M.one_line(message)
  -- Without a screen (a headless editor, a script) nothing can wait for Enter.
  if #vim.api.nvim_list_uis() == 0 then return message, false end
  return M.fit(message, math.max(20, vim.v.echospace - #'bb7: '))
end

--- Tell the user in one line; the log gets the whole message (always, when it was cut).
---@param message string
---@param level? 'error'|'warn'|'info' default 'info'
function M.notify(message, level)
  level = level or 'info'
  local line, cut = M.one_line(message)
  -- A cut message promises the rest in :BB7Log: it is written whatever the level (unless off).
  if cut and M.level() ~= 'off' then
    append(level, message)
  else
    M.write(level, '%s', message)
  end
  vim.notify('bb7: ' .. line, NOTIFY_LEVELS[level], { title = 'bb7' })
end

return M
