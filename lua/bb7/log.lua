--- Messages for the user (`vim.notify`, prefixed "bb7: ") and the log file
--- `stdpath('log')/bb7.log`, shared with the Python host (which appends its own lines).
local M = {}

local LEVELS = { off = 0, error = 1, warn = 2, info = 3, debug = 4 }
local MAX_BYTES = 1024 * 1024

local H = { file = nil }

---@alias bb7.LogLevel 'off'|'error'|'warn'|'info'|'debug'

---@return string
function M.path() return vim.fn.stdpath('log') .. '/bb7.log' end

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

--- Appends a line to the log if `level` is enabled; `fmt` is formatted with the rest.
---@param level bb7.LogLevel
---@param fmt string
---@param ... any
function M.write(level, fmt, ...)
  if LEVELS[level] > LEVELS[M.level()] then return end
  local file = open()
  if not file then return end
  local text = select('#', ...) > 0 and fmt:format(...) or fmt
  file:write(('%s [lua] %s %s\n'):format(os.date('%Y-%m-%d %H:%M:%S'), level:upper(), text))
  file:flush()
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

--- Tell the user (and the log), in one line.
---@param message string
---@param level? 'error'|'warn'|'info' default 'info'
function M.notify(message, level)
  level = level or 'info'
  M.write(level, '%s', message)
  vim.notify('bb7: ' .. message, NOTIFY_LEVELS[level], { title = 'bb7' })
end

return M
