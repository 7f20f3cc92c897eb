--- telescope.nvim for bb7: the project's files in a telescope picker (`ga` with the `picker`
--- option at 'auto' or 'telescope'), where <Tab> selects several and <CR> adds them all; and
--- `add_selected`, an action to map in any telescope picker of files. Requires telescope only
--- when called.
-- The plugin is not in bb7's workspace: its modules are neither resolved nor typed here.
---@diagnostic disable: unresolved-require, undefined-field
local M = {}

--- The files of a picker's multi-selection, else of the entry under the cursor; closes it.
---@param prompt_bufnr integer
---@return string[] paths absolute, or relative to the current directory
local function take(prompt_bufnr)
  local state = require('telescope.actions.state')
  local entries = state.get_current_picker(prompt_bufnr):get_multi_selection()
  if #entries == 0 then entries = { state.get_selected_entry() } end
  require('telescope.actions').close(prompt_bufnr)
  local paths, absolute = {}, require('bb7.chat.picker').absolute
  for _, entry in ipairs(entries) do
    local path = entry.path or entry.filename or entry.value
    if type(path) == 'string' then table.insert(paths, absolute(path, entry.cwd)) end
  end
  return paths
end

--- Action: adds the selected files (or the one under the cursor) to the active chat, e.g.
--- `map('i', '<C-a>', require('bb7.integrations.telescope').add_selected)`.
---@param prompt_bufnr integer
function M.add_selected(prompt_bufnr) require('bb7.chat.picker').add_paths(take(prompt_bufnr)) end

--- Action: as `add_selected`, read-only.
---@param prompt_bufnr integer
function M.add_selected_readonly(prompt_bufnr)
  require('bb7.chat.picker').add_paths(take(prompt_bufnr), true)
end

--- Opens a picker over `files` (relative to `root`); <CR> gives the chosen ones to `on_choice`.
---@param files string[]
---@param root string
---@param on_choice fun(paths: string[])
function M.open(files, root, on_choice)
  local conf = require('telescope.config').values
  local finder = require('telescope.finders').new_table({
    results = files,
    entry_maker = function(file)
      local path = vim.fs.joinpath(root, file)
      return { value = file, display = file, ordinal = file, path = path }
    end,
  })
  require('telescope.pickers')
    .new({}, {
      prompt_title = 'bb7: add to the chat (<Tab> selects several)',
      finder = finder,
      sorter = conf.file_sorter({}),
      previewer = conf.file_previewer({}),
      attach_mappings = function(prompt_bufnr)
        require('telescope.actions').select_default:replace(
          function() on_choice(take(prompt_bufnr)) end
        )
        return true
      end,
    })
    :find()
end

--- Opens a picker over `lines`; <CR> gives the index of the one chosen to `on_choice`.
---@param lines string[]
---@param title string
---@param on_choice fun(index: integer)
function M.choose(lines, title, on_choice)
  local conf = require('telescope.config').values
  local finder = require('telescope.finders').new_table({
    results = lines,
    entry_maker = function(line)
      return { value = line, display = line, ordinal = line, index = vim.fn.index(lines, line) + 1 }
    end,
  })
  require('telescope.pickers')
    .new({}, {
      prompt_title = title,
      finder = finder,
      sorter = conf.generic_sorter({}),
      attach_mappings = function(prompt_bufnr)
        require('telescope.actions').select_default:replace(function()
          local entry = require('telescope.actions.state').get_selected_entry()
          require('telescope.actions').close(prompt_bufnr)
          if entry then on_choice(entry.index) end
        end)
        return true
      end,
    })
    :find()
end

return M
