--- Messages for the user (`vim.notify`, prefixed "bb7: ") and the log file
--- `stdpath('log')/bb7.log`, shared with the Python host (which appends its own lines).
local M = {}

local LEVELS = { off = 0, error = 1, warn = 2, info = 3, debug = 4 }
local MAX_BYTES = 1024 * 1024

local H = { file = nil }

function M.path() return vim.fn.stdpath('log') .. '/bb7.log' end

--- The level in force: `$BB7_LOG_LEVEL`, else the `log_level` option.
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

function M.write(level, fmt, ...)
  if LEVELS[level] > LEVELS[M.level()] then return end
  local file = open()
  if not file then return end
  local text = select('#', ...) > 0 and fmt:format(...) or fmt
  file:write(('%s [lua] %s %s\n'):format(os.date('%Y-%m-%d %H:%M:%S'), level:upper(), text))
  file:flush()
end

function M.debug(...) M.write('debug', ...) end
function M.info(...) M.write('info', ...) end
function M.warn(...) M.write('warn', ...) end
function M.error(...) M.write('error', ...) end

local NOTIFY_LEVELS = {
  error = vim.log.levels.ERROR,
  warn = vim.log.levels.WARN,
  info = vim.log.levels.INFO,
}

--- Tell the user (and the log). `level` is 'error', 'warn' or 'info'.
function M.notify(message, level)
  level = level or 'info'
  M.write(level, '%s', message)
  vim.notify('bb7: ' .. message, NOTIFY_LEVELS[level], { title = 'bb7' })
end

return M
