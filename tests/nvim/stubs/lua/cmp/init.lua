-- Test stub of nvim-cmp: `register_source(name, source)` keeps the source, as cmp does, for
-- the test to call as cmp would (`is_available`, `complete`, `execute`).
local M = { sources = {} }

function M.register_source(name, source)
  table.insert(M.sources, { name = name, source = source })
  return #M.sources
end

return M
