--- snacks.nvim for bb7: the project's files in a snacks picker (`ga` with the `picker` option
--- at 'auto' or 'snacks'), where <Tab> selects several and <CR> adds them all; and
--- `add_selected`, an action for any snacks picker of files. Requires snacks only when called.
-- The plugin is not in bb7's workspace: its modules are neither resolved nor typed here.
---@diagnostic disable: unresolved-require, undefined-field
local M = {}

--- The files of the picker's selection, else of the item under the cursor; closes it.
---@param picker table a snacks picker, as snacks passes it to an action
---@return string[]
local function take(picker)
  local absolute = require('bb7.chat.picker').absolute
  local out = {}
  for _, item in ipairs(picker:selected({ fallback = true })) do
    if type(item.file) == 'string' then table.insert(out, absolute(item.file, item.cwd)) end
  end
  picker:close()
  return out
end

--- Action: adds the selected files to the active chat, e.g. in snacks' picker options
--- `actions = { bb7_add = require('bb7.integrations.snacks').add_selected }` and a key for
--- `'bb7_add'` in `win.input.keys`.
---@param picker table
function M.add_selected(picker) require('bb7.chat.picker').add_paths(take(picker)) end

--- Action: as `add_selected`, read-only.
---@param picker table
function M.add_selected_readonly(picker) require('bb7.chat.picker').add_paths(take(picker), true) end

--- Opens a picker over `files` (relative to `root`); <CR> gives the chosen ones to `on_choice`.
---@param files string[]
---@param root string
---@param on_choice fun(paths: string[])
function M.open(files, root, on_choice)
  local items = {}
  for i, file in ipairs(files) do
    items[i] = { text = file, file = file, cwd = root }
  end
  require('snacks').picker.pick({
    title = 'bb7: add to the chat',
    items = items,
    format = 'file',
    cwd = root,
    confirm = function(picker) on_choice(take(picker)) end,
  })
end

--- Opens a snacks picker over `lines`; <CR> gives the index of the one chosen to `on_choice`.
---@param lines string[]
---@param title string
---@param on_choice fun(index: integer)
function M.choose(lines, title, on_choice)
  local items = {}
  for i, line in ipairs(lines) do
    items[i] = { text = line, index = i }
  end
  require('snacks').picker.pick({
    title = title,
    items = items,
    format = 'text',
    confirm = function(picker, item)
      picker:close()
      if item then on_choice(item.index) end
    end,
  })
end

return M
