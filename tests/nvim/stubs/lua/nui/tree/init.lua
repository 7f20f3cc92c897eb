-- Test stub of nui.nvim's tree, written from MunifTanjim/nui.nvim at
-- de740991c12411b663994b2860f1a4fd0937c130 (lua/nui/tree/init.lua), what neo-tree's `state.tree`
-- is: `Tree:get_node()` (the node on the cursor's line, or of a line number or id) returns
-- the node *and* the first and last lines it takes (`self.nodes.by_id[id],
-- unpack(self._.linenr_by_node_id[id])`): three values.
local Tree = {}
Tree.__index = Tree

local Node = {}
Node.__index = Node

function Node:get_id() return self._id end
function Node:get_depth() return self._depth end
function Node:has_children() return #self._child_ids > 0 end

--- `NuiTree.Node(data, children)`.
local function new_node(data, children)
  local node = setmetatable(vim.deepcopy(data), Node)
  node.__children = children or {}
  return node
end

--- `NuiTree({ bufnr, nodes, get_node_id })`.
local function new_tree(options)
  local self = setmetatable({ bufnr = options.bufnr, nodes = { by_id = {}, root_ids = {} } }, Tree)
  self._ = { node_id_by_linenr = {}, linenr_by_node_id = {} }
  local get_id = options.get_node_id or function(node) return node.id end
  local function add(node, depth)
    node._id, node._depth, node._child_ids = get_id(node), depth, {}
    self.nodes.by_id[node._id] = node
    for _, child in ipairs(node.__children) do
      add(child, depth + 1)
      table.insert(node._child_ids, child._id)
    end
    node.__children = nil
  end
  for _, node in ipairs(options.nodes or {}) do
    add(node, 1)
    table.insert(self.nodes.root_ids, node._id)
  end
  return self
end

--- Draws every node, one line each (children below their parent, indented).
function Tree:render()
  local lines = {}
  local function draw(id)
    local node = self.nodes.by_id[id]
    table.insert(lines, ('  '):rep(node._depth - 1) .. node.name)
    self._.node_id_by_linenr[#lines] = id
    self._.linenr_by_node_id[id] = { #lines, #lines }
    for _, child in ipairs(node._child_ids) do
      draw(child)
    end
  end
  for _, id in ipairs(self.nodes.root_ids) do
    draw(id)
  end
  vim.bo[self.bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(self.bufnr, 0, -1, false, lines)
  vim.bo[self.bufnr].modifiable = false
end

---@param id_or_linenr? string|integer default: the cursor's line in the tree's window
---@return table? node
---@return integer? first_line
---@return integer? last_line
function Tree:get_node(id_or_linenr)
  local id = id_or_linenr
  if type(id) ~= 'string' then
    local win = vim.fn.win_findbuf(self.bufnr)[1]
    id = self._.node_id_by_linenr[id_or_linenr or vim.api.nvim_win_get_cursor(win)[1]]
  end
  return self.nodes.by_id[id], unpack(self._.linenr_by_node_id[id] or {})
end

return setmetatable(
  { Node = new_node },
  { __call = function(_, options) return new_tree(options) end }
)
