-- Runs the Lua specs without a host or a screen, in one Neovim:
--   nvim --clean -l tests/lua/run.lua tests/lua/config_spec.lua ...
-- The plugin is on 'runtimepath' and its plugin/ file sourced, as a plugin manager does. One
-- line per case (`ok name`, or `FAILED name` and the traceback), then `N passed, N failed`;
-- the exit status is 0 only when something ran and nothing failed.
-- Python filetype plugins probe the python3 provider (~2 s and ~1 s of CPU per run of a spec
-- that edits a.py); no spec needs it.
vim.g.loaded_python3_provider = 0
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local root = vim.fn.fnamemodify(here, ':h:h')
vim.opt.runtimepath:prepend(root)
package.path = here .. '/?.lua;' .. package.path
vim.cmd.runtime('plugin/bb7.lua')

local spec = require('spec')
spec.root = root
local passed, failed = 0, 0

local function unload_bb7()
  for name in pairs(package.loaded) do
    if name == 'bb7' or name:match('^bb7%.') then package.loaded[name] = nil end
  end
end

for _, file in ipairs(arg) do
  spec.cases = {}
  dofile(file)
  for _, case in ipairs(spec.cases) do
    unload_bb7()
    local ok, err = xpcall(case.fn, debug.traceback)
    if ok then
      passed = passed + 1
      io.write(('ok %s\n'):format(case.name))
    else
      failed = failed + 1
      io.write(('FAILED %s\n%s\n'):format(case.name, err))
    end
  end
end
io.write(('%d passed, %d failed\n'):format(passed, failed))
io.stdout:flush()
os.exit((failed == 0 and passed > 0) and 0 or 1)
