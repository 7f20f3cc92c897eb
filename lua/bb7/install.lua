--- Which Python runs the host (`python` option, the plugin's `.venv`, or bb7's own venv) and
--- `:BB7Install`, which makes bb7's own venv under `stdpath('data')/bb7/venv` with a stamp of
--- `pyproject.toml`, so a changed dependency list asks for a re-install.
local M = {}

--- The plugin checkout (the directory holding lua/, plugin/, python/, pyproject.toml).
M.root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')

function M.venv_dir() return vim.fn.stdpath('data') .. '/bb7/venv' end

local function venv_python(dir) return dir .. '/bin/python' end
local function stamp_path(dir) return dir .. '/bb7-install.stamp' end

local function read(path)
  local file = io.open(path, 'rb')
  if not file then return nil end
  local text = file:read('*a')
  file:close()
  return text
end

--- The stamp a venv must carry: the hash of the plugin's dependency declaration.
function M.expected_stamp() return vim.fn.sha256(read(M.root .. '/pyproject.toml') or '') end

--- Returns `python, source`, or `nil, message` saying what to do.
function M.resolve()
  local configured = require('bb7.config').get().python
  if configured then
    if vim.fn.executable(configured) == 1 then return configured, 'the `python` option' end
    return nil,
      ('`python` = %q is not an executable; fix the option or remove it'):format(configured)
  end
  local plugin_venv = venv_python(M.root .. '/.venv')
  if vim.fn.executable(plugin_venv) == 1 then return plugin_venv, 'the plugin venv' end
  local dir = M.venv_dir()
  if vim.fn.executable(venv_python(dir)) == 1 then
    local stamp = read(stamp_path(dir))
    if stamp == nil or vim.trim(stamp) ~= M.expected_stamp() then
      return nil,
        ('the Python environment in %s is out of date (bb7 changed its '):format(dir)
          .. 'dependencies); run :BB7Install'
    end
    return venv_python(dir), 'the bb7 venv (:BB7Install)'
  end
  return nil, 'no Python environment for bb7 yet; run :BB7Install (or set `python` in setup())'
end

local function tail(text, count)
  local lines = vim.split(vim.trim(text or ''), '\n')
  return table.concat(vim.list_slice(lines, math.max(1, #lines - (count or 5) + 1)), '\n')
end

--- Creates the venv if needed and pip-installs the plugin into it, then writes the stamp.
--- `opts.wait`: block until done (for a lazy.nvim `build` function).
--- `opts.on_done(ok, message)`: called at the end (default: notify).
function M.run(opts)
  opts = opts or {}
  local log = require('bb7.log')
  local done = opts.on_done
    or function(ok, message) log.notify(message, ok and 'info' or 'error') end
  local base = vim.fn.exepath('python3')
  if base == '' then base = vim.fn.exepath('python') end
  if base == '' then
    return done(false, 'cannot install: no python3 on $PATH (or set the `python` option)')
  end
  local dir = M.venv_dir()
  local steps = {
    {
      what = 'creating ' .. dir,
      cmd = { base, '-m', 'venv', dir },
      skip = function() return vim.fn.executable(venv_python(dir)) == 1 end,
    },
    {
      what = 'installing bb7 and its dependencies (pip)',
      cmd = { venv_python(dir), '-m', 'pip', 'install', '--quiet', M.root },
    },
  }
  local i = 0
  local function next_step(result)
    if result and result.code ~= 0 then
      return done(false, ('install failed: %s'):format(tail(result.stderr)))
    end
    i = i + 1
    local step = steps[i]
    if step == nil then
      local file = assert(io.open(stamp_path(dir), 'w'))
      file:write(M.expected_stamp())
      file:close()
      -- A running host keeps its old interpreter; the next command starts a fresh one.
      require('bb7.backend').stop()
      return done(true, 'installed into ' .. dir)
    end
    if step.skip and step.skip() then return next_step() end
    log.notify(step.what .. ' ...', 'info')
    if opts.wait then
      next_step(vim.system(step.cmd, { text = true }):wait())
    else
      vim.system(step.cmd, { text = true }, vim.schedule_wrap(next_step))
    end
  end
  next_step()
end

return M
