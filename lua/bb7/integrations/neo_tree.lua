--- neo-tree.nvim for bb7: commands for neo-tree's `commands` that add the node under the
--- cursor (a file, or a directory with its files, asking first when many) or the visually
--- selected nodes (`add_visual`) to the active chat. Uses only the `state` neo-tree passes.
local M = {}

--- The paths of file and directory nodes (neo-tree also shows messages and other kinds).
---@param nodes table[]
---@return string[]
local function paths_of(nodes)
  local out = {}
  for _, node in ipairs(nodes) do
    if (node.type == 'file' or node.type == 'directory') and type(node.path) == 'string' then
      table.insert(out, node.path)
    end
  end
  return out
end

local function add(nodes, readonly) require('bb7.chat.picker').add_paths(paths_of(nodes), readonly) end

--- The node under the cursor: nui's `tree:get_node()` also returns the node's first and last
--- lines, which are no nodes.
---@param state table
---@return table[]
local function under_cursor(state) return { (state.tree:get_node()) } end

--- Command: adds the node under the cursor, e.g. `commands = { bb7_add = … .add }` and
--- `window = { mappings = { ['<leader>a'] = 'bb7_add' } }`.
---@param state table neo-tree's state of the source
function M.add(state) add(under_cursor(state), false) end

--- Command: adds the visually selected nodes (neo-tree calls `bb7_add_visual` in Visual mode).
---@param _ table neo-tree's state
---@param nodes table[]
function M.add_visual(_, nodes) add(nodes, false) end

--- As `add`, read-only.
---@param state table
function M.add_readonly(state) add(under_cursor(state), true) end

--- As `add_visual`, read-only.
---@param _ table
---@param nodes table[]
function M.add_readonly_visual(_, nodes) add(nodes, true) end

return M
