--- What a spec file (tests/lua/*_spec.lua) is written with: `test(name, fn)` declares a case,
--- and the checks below fail it with what was expected and what came. run.lua runs the cases.
local M = { cases = {}, root = '' } -- root: the repository's (run.lua sets it)

--- Declares a case. It runs with every bb7 module loaded afresh (no options set).
---@param name string
---@param fn fun()
function M.test(name, fn) table.insert(M.cases, { name = name, fn = fn }) end

---@param note? string
local function lead(note) return note and (note .. ': ') or '' end

--- `value` on one line.
local function show(value) return vim.inspect(value, { newline = ' ', indent = '' }) end

--- `got` is `want` (tables compared deeply).
---@param want any
---@param got any
---@param note? string
function M.eq(want, got, note)
  if not vim.deep_equal(want, got) then
    error(('%sexpected %s, got %s'):format(lead(note), show(want), show(got)), 2)
  end
end

--- `text` holds `part` (plain text).
---@param part string
---@param text string
---@param note? string
function M.has(part, text, note)
  if type(text) ~= 'string' or not text:find(part, 1, true) then
    error(('%s%s is not in %s'):format(lead(note), show(part), show(text)), 2)
  end
end

--- `text` starts with `prefix`.
---@param prefix string
---@param text string
---@param note? string
function M.starts(prefix, text, note)
  if type(text) ~= 'string' or text:sub(1, #prefix) ~= prefix then
    error(('%s%s does not start with %s'):format(lead(note), show(text), show(prefix)), 2)
  end
end

--- `text` ends with `suffix`.
---@param suffix string
---@param text string
---@param note? string
function M.ends(suffix, text, note)
  if type(text) ~= 'string' or text:sub(-#suffix) ~= suffix then
    error(('%s%s does not end with %s'):format(lead(note), show(text), show(suffix)), 2)
  end
end

--- `fn(...)` raises an error; its message.
---@param fn function
---@param ... any
---@return string
function M.raises(fn, ...)
  local ok, err = pcall(fn, ...)
  if ok then error('expected an error, got none', 2) end
  return tostring(err)
end

--- A new project directory as the tests' editors get one (a.py and b.py), the current
--- directory from now on, with no buffer left from an earlier case. Its path.
---@return string
function M.project()
  vim.cmd('silent! %bwipeout!')
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  vim.fn.writefile({ 'one = 1', 'two = 2', 'three = 3' }, dir .. '/a.py')
  vim.fn.writefile({ "print('b')" }, dir .. '/b.py')
  vim.fn.chdir(dir)
  return dir
end

--- Hands `events` ({ name, payload } each) to the plugin as the host's batch would come, and
--- has them handled now (`dispatch` leaves that to the main loop).
---@param ... table
function M.host_sends(...) require('bb7.events').handle({ ... }) end

--- The messages `vim.notify` gets while `fn` runs (each `{ msg, level }`), none shown.
---@param fn fun()
---@return { msg: string, level: integer? }[]
function M.notified(fn)
  local notify, got = vim.notify, {}
  vim.notify = function(msg, level) table.insert(got, { msg = msg, level = level }) end
  local ok, err = pcall(fn)
  vim.notify = notify
  if not ok then error(err, 0) end
  return got
end

return M
