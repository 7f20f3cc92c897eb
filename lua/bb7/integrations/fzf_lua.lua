--- fzf-lua for bb7: the project's files in an fzf-lua picker (`ga` with the `picker` option
--- at 'auto' or 'fzf_lua'), where <Tab> selects several and <CR> adds them all; and
--- `add_selected`, an action for any fzf-lua picker of files. Requires fzf-lua only when
--- called.
-- The plugin is not in bb7's workspace: its modules are neither resolved nor typed here.
---@diagnostic disable: unresolved-require, undefined-field
local M = {}

--- The files fzf-lua's `selected` entries name (icons and `:line:col` stripped by fzf-lua).
---@param selected string[]
---@param opts table the picker's options, as fzf-lua passes them to an action
---@return string[]
local function files_of(selected, opts)
  local path, absolute = require('fzf-lua.path'), require('bb7.chat.picker').absolute
  local out = {}
  for _, entry in ipairs(selected) do
    local file = path.entry_to_file(entry, opts).path
    if file and file ~= '' then table.insert(out, absolute(file)) end
  end
  return out
end

--- Action: adds the selected files to the active chat, e.g.
--- `actions = { ['ctrl-a'] = require('bb7.integrations.fzf_lua').add_selected }`.
---@param selected string[]
---@param opts table
function M.add_selected(selected, opts)
  require('bb7.chat.picker').add_paths(files_of(selected, opts))
end

--- Action: as `add_selected`, read-only.
---@param selected string[]
---@param opts table
function M.add_selected_readonly(selected, opts)
  require('bb7.chat.picker').add_paths(files_of(selected, opts), true)
end

--- Opens a picker over `files` (relative to `root`); <CR> gives the chosen ones to `on_choice`.
---@param files string[]
---@param root string
---@param on_choice fun(paths: string[])
function M.open(files, root, on_choice)
  require('fzf-lua').fzf_exec(files, {
    prompt = 'bb7 add> ',
    cwd = root,
    previewer = 'builtin',
    fzf_opts = { ['--multi'] = true },
    actions = {
      ['enter'] = function(selected, opts) on_choice(files_of(selected, opts)) end,
    },
  })
end

--- Opens fzf over `lines`; <CR> gives the index of the one chosen to `on_choice`.
---@param lines string[]
---@param title string
---@param on_choice fun(index: integer)
function M.choose(lines, title, on_choice)
  require('fzf-lua').fzf_exec(lines, {
    prompt = title .. '> ',
    actions = {
      ['enter'] = function(selected)
        local index = selected and selected[1] and vim.fn.index(lines, selected[1]) + 1 or 0
        if index > 0 then on_choice(index) end
      end,
    },
  })
end

return M
