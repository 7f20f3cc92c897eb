-- Test stub of neo-tree.nvim, written from nvim-neo-tree/neo-tree.nvim at
-- 5e076e5419b95b13c29383e1de29270a50df2d40: `setup({ commands, window = { mappings } })`, and
-- `require('neo-tree.command').execute({ dir })` showing the filesystem source of `dir` (the
-- directory, then its entries: directories first) in the current window. Its mappings are
-- made as ui/renderer.lua `set_buffer_mappings` makes them: a mapping naming a command calls
-- `commands[name](state)` in Normal mode and, when `commands[name .. '_visual']` exists,
-- `commands[name .. '_visual'](state, selected_nodes)` in Visual mode (after <Esc>, the
-- selection's nodes from `state.tree:get_node(line)`). `state.tree` is a NuiTree.
local M = { config = { commands = {}, window = { mappings = {} } } }

function M.setup(config) M.config = vim.tbl_deep_extend('force', M.config, config or {}) end

--- The node of each path (common/file-items.lua `create_item`): id and path the absolute path.
local function item(path, type)
  return { id = path, path = path, name = vim.fs.basename(path), type = type }
end

local function visual_nodes(state)
  local first, last = vim.fn.line("'<"), vim.fn.line("'>")
  local nodes = {}
  for line = math.min(first, last), math.max(first, last) do
    local node = state.tree:get_node(line)
    if node then table.insert(nodes, node) end
  end
  return nodes
end

local function map(state)
  for lhs, name in pairs(M.config.window.mappings) do
    local func, vfunc = M.config.commands[name], M.config.commands[name .. '_visual']
    vim.keymap.set('n', lhs, function() func(state) end, { buffer = state.bufnr, desc = name })
    if vfunc then
      vim.keymap.set('x', lhs, function()
        vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'i', true)
        vim.schedule(function() vfunc(state, visual_nodes(state)) end)
      end, { buffer = state.bufnr, desc = name })
    end
  end
end

--- Shows `dir` (command/init.lua `execute` with `action = 'focus'`); returns the state.
function M.show(dir)
  dir = vim.fs.normalize(vim.fn.fnamemodify(dir, ':p')):gsub('/$', '')
  local children = {}
  for name, type in vim.fs.dir(dir) do
    table.insert(children, item(vim.fs.joinpath(dir, name), type))
  end
  table.sort(children, function(a, b)
    if a.type ~= b.type then return a.type == 'directory' end
    return a.name < b.name
  end)
  local NuiTree = require('nui.tree')
  local nodes = vim.tbl_map(function(child) return NuiTree.Node(child) end, children)
  local state = { name = 'filesystem', path = dir, bufnr = vim.api.nvim_create_buf(false, true) }
  vim.api.nvim_win_set_buf(0, state.bufnr)
  state.winid = vim.api.nvim_get_current_win()
  vim.bo[state.bufnr].filetype = 'neo-tree'
  state.tree = NuiTree({
    bufnr = state.bufnr,
    nodes = { NuiTree.Node(item(dir, 'directory'), nodes) },
    get_node_id = function(node) return node.id end,
  })
  state.tree:render()
  map(state)
  M.state = state
  return state
end

return M
