--- The agents of |bb7-agents| as the options name them: their commands, the ones found on
--- this machine (`:BB7Agent` completion, `:checkhealth bb7`), and what the host gets of them.
local M = {}

--- Agent name -> its command (`agents.<name>.cmd`: the documented defaults with `setup()`'s
--- over them).
---@return table<string, string[]>
function M.commands()
  local out = {}
  for name, def in pairs(require('bb7.config').get().agents) do
    if name ~= 'permissions' and type(def) == 'table' then out[name] = def.cmd end
  end
  return out
end

--- The names of the agents whose program is found (on $PATH, or at the path given), sorted.
---@return string[]
function M.found()
  local names = {}
  for name, cmd in pairs(M.commands()) do
    if vim.fn.executable(cmd[1]) == 1 then table.insert(names, name) end
  end
  table.sort(names)
  return names
end

--- The `agents` settings the host gets (`bb7.host.protocol.AgentSettings`).
---@return table
function M.settings()
  local commands = M.commands()
  return {
    permissions = require('bb7.config').get().agents.permissions,
    commands = next(commands) and commands or vim.empty_dict(),
  }
end

return M
