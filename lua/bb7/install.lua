--- Which Python runs the host (`python` option, the plugin's `.venv`, or bb7's own venv) and
--- `:BB7Install`, which makes bb7's own venv under `stdpath('data')/bb7/venv` with a stamp of
--- `pyproject.toml`, so a changed dependency list asks for a re-install. The install uses uv
--- (from $PATH, or bootstrapped into the venv with pip) and falls back to pip: uv takes a
--- couple of seconds where pip takes tens.
local M = {}

--- The plugin checkout (the directory holding lua/, plugin/, python/, pyproject.toml).
M.root =
  vim.fn.fnamemodify((debug.getinfo(1, 'S') --[[@as { source: string }]]).source:sub(2), ':p:h:h:h')

--- Where `:BB7Install` puts bb7's venv.
---@return string
function M.venv_dir() return vim.fn.stdpath('data') .. '/bb7/venv' end

local function venv_bin(dir, name) return dir .. '/bin/' .. name end
local function venv_python(dir) return venv_bin(dir, 'python') end
local function stamp_path(dir) return dir .. '/bb7-install.stamp' end
local function executable(path) return path ~= '' and vim.fn.executable(path) == 1 end

local function read(path)
  local file = io.open(path, 'rb')
  if not file then return nil end
  local text = file:read('*a')
  file:close()
  return text
end

--- The stamp a venv must carry: the hash of the plugin's dependency declaration.
---@return string
function M.expected_stamp() return vim.fn.sha256(read(M.root .. '/pyproject.toml') or '') end

--- The interpreter that runs the host and where it comes from.
---@return string? python the interpreter, or nil when there is none to use
---@return string source where it comes from, or (without `python`) what the user should do
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
    if stamp == nil then
      return nil,
        ('the Python environment in %s is incomplete (its install did not finish); '):format(dir)
          .. 'run :BB7Install'
    end
    if vim.trim(stamp) ~= M.expected_stamp() then
      return nil,
        ('the Python environment in %s is out of date (bb7 changed its '):format(dir)
          .. 'dependencies); run :BB7Install'
    end
    return venv_python(dir), 'the bb7 venv (:BB7Install)'
  end
  return nil, 'no Python environment for bb7 yet; run :BB7Install (or set `python` in setup())'
end

--- The line of a failed step's stderr that says what went wrong (the log gets all of it).
---@param result vim.SystemCompleted
---@return string
local function error_line(result)
  local lines = vim.split(vim.trim(result.stderr or ''), '\n')
  for _, line in ipairs(lines) do
    if line:lower():match('^%s*error') then return vim.trim(line) end
  end
  local last = vim.trim(lines[#lines])
  return last ~= '' and last or ('exit code %d'):format(result.code)
end

--- `python -m pip [global...] install what`, quiet and without pip's check for a newer pip
--- (a network round trip that only costs time here).
---@param python string
---@param what string
---@param global? string[] options before `install`, such as `--python <venv python>`
---@return string[]
local function pip(python, what, global)
  local cmd = vim.list_extend({ python, '-m', 'pip' }, global or {})
  return vim.list_extend(cmd, { 'install', '--quiet', '--disable-pip-version-check', what })
end

---@class bb7.InstallStep
---@field what string one line for the user
---@field cmd fun(): string[], string the command and the tool's name, built when the step runs
---  (an earlier step may have brought uv)
---@field fallback? bb7.InstallStep[] when the step fails, these run instead of failing the install

--- The steps for venv `dir` with interpreter `base`. uv from $PATH makes the venv and installs;
--- without it, the venv is made without pip (ensurepip alone takes seconds) and `base`'s pip
--- puts uv into it; if that fails, the venv gets pip and pip installs.
---@param dir string
---@param base string
---@return bb7.InstallStep[]
local function plan(dir, base)
  local uv = vim.fn.exepath('uv')
  local python = venv_python(dir)
  local steps = {}
  if not executable(python) then
    table.insert(steps, {
      what = 'creating ' .. dir,
      cmd = function()
        if uv ~= '' then return { uv, 'venv', '--quiet', '--python', base, dir }, 'uv' end
        return { base, '-m', 'venv', '--without-pip', dir }, 'venv'
      end,
    })
  end
  local pip_install = {
    what = 'installing bb7 and its dependencies',
    cmd = function() return pip(python, M.root), 'pip' end,
  }
  if uv == '' and not executable(venv_bin(dir, 'uv')) then
    table.insert(steps, {
      what = 'getting uv, the fast installer',
      cmd = function() return pip(base, 'uv', { '--python', python }), 'pip' end,
      fallback = {
        {
          what = 'uv is not available: adding pip to the venv',
          cmd = function() return { python, '-m', 'ensurepip', '--default-pip' }, 'ensurepip' end,
        },
        pip_install,
      },
    })
  end
  table.insert(steps, {
    what = pip_install.what,
    cmd = function()
      local found = uv ~= '' and uv or venv_bin(dir, 'uv')
      -- Bytecode now, as pip writes it: else the first host start compiles every module
      -- (about half a second of the first :BB7Chat a new user opens).
      local args = { 'pip', 'install', '--quiet', '--compile-bytecode', '--python', python }
      return vim.list_extend({ found }, vim.list_extend(args, { M.root })), 'uv'
    end,
  })
  return steps
end

---@class bb7.InstallOpts
---@field wait? boolean block until done (for a lazy.nvim `build` function)
---@field on_done? fun(ok: boolean, message: string) called at the end (default: notify)

--- Creates the venv if needed and installs the plugin into it, then writes the stamp. Says
--- each step in one line as it starts.
---@param opts? bb7.InstallOpts
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
  local steps = plan(dir, base)
  local started = vim.uv.hrtime()
  local i = 0
  local function next_step(result)
    local step = steps[i]
    if result and result.code ~= 0 then
      log.error('%s failed:\n%s', step.what, result.stderr or '')
      if not step.fallback then
        return done(false, ('install failed: %s (see :BB7Log)'):format(error_line(result)))
      end
      -- The fallback replaces the rest of the plan.
      steps = vim.list_extend(vim.list_slice(steps, 1, i), step.fallback)
    end
    i = i + 1
    step = steps[i]
    if step == nil then
      local file = assert(io.open(stamp_path(dir), 'w'))
      file:write(M.expected_stamp())
      file:close()
      -- A running host keeps its old interpreter; the next command starts a fresh one.
      require('bb7.backend').stop()
      local seconds = (vim.uv.hrtime() - started) / 1e9
      return done(true, ('installed into %s in %.1f s'):format(dir, seconds))
    end
    local cmd, tool = step.cmd()
    log.notify(('install %d/%d: %s (%s)'):format(i, #steps, step.what, tool))
    local on_exit = not opts.wait and vim.schedule_wrap(next_step) or nil
    local ok, job = pcall(vim.system, cmd, { text = true }, on_exit)
    if not ok then -- the program could not be started at all
      log.error('%s failed: %s', step.what, job)
      return done(false, ('install failed: cannot run %s (see :BB7Log)'):format(cmd[1]))
    end
    if opts.wait then next_step(job:wait()) end
  end
  next_step()
end

return M
