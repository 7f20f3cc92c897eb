--- Adding context without typing paths: the project's files (git-tracked first, as the host
--- lists them) in the picker the `picker` option names (telescope, fzf-lua or snacks with
--- multi-select, else |vim.ui.select()|); also the list `@` completes from in the input, and
--- the one way every picker and completion source adds what was chosen.
local M = {}

local H = {
  files = nil, ---@type string[]? project-relative paths, last listed
  root = nil, ---@type string?
  found = {}, ---@type table<string, boolean> picker name -> its plugin loads
}

local backend = require('bb7.util').backend

-- The pickers `picker = 'auto'` tries, in order, with the Lua module of each plugin.
local PLUGINS = { { 'telescope', 'telescope' }, { 'fzf_lua', 'fzf-lua' }, { 'snacks', 'snacks' } }

--- The last listed paths ({} before the first list).
---@return string[]
function M.cached() return H.files or {} end

--- Lists the project's files (once per chat view open), then `cb(files, root)`.
---@param cb fun(files: string[], root: string)
---@param fresh? boolean list again even if listed already
function M.load(cb, fresh)
  if H.files and H.root and not fresh then return cb(H.files, H.root) end
  backend().request('project_files', vim.empty_dict(), function(err, listed)
    if err then return backend().report(err) end
    H.root, H.files = listed.root, listed.files
    cb(listed.files, listed.root)
  end)
end

--- Forgets the list (the view closed: files may come and go meanwhile).
function M.forget() H.files = nil end

--- Adds `paths` in one request; the outcome is said through `say` (run with a function).
---@param paths string[]
---@param readonly boolean
---@param say fun(fn: fun())
local function add(paths, readonly, say)
  local ui = require('bb7.chat.ui')
  if #paths == 0 then
    return say(function() ui.say('nothing selected to add', 'warn') end)
  end
  require('bb7.add').paths(paths, readonly, function(err, message)
    say(function()
      if err then return backend().report(err) end
      if message then ui.say(message) end
    end)
    local chat = package.loaded['bb7.chat']
    if not err and chat and chat.is_open() then chat.refresh() end
  end)
end

--- Adds `paths` (absolute, or relative to the current directory) to the active chat in one
--- request (one confirmation for many); an open chat view is drawn again afterwards. What
--- happened is said once the mode a picker's action runs in has ended (`ui.after_mode`).
---@param paths string[]
---@param readonly? boolean
function M.add_paths(paths, readonly)
  add(paths, readonly == true, require('bb7.chat.ui').after_mode)
end

--- `path` made absolute against `dir` (a picker's own directory) unless it is already.
---@param path string
---@param dir? string default: the current directory
---@return string
function M.absolute(path, dir)
  if vim.fn.isabsolutepath(path) == 1 then return path end
  return vim.fs.joinpath(dir or vim.fn.getcwd(), path)
end

--- Adds project file `path` (relative to the project's root): a completion accepted in the
--- input, whose Insert mode goes on (said at once).
---@param path string
function M.add(path)
  add({ M.absolute(path, H.root) }, false, function(fn) fn() end)
end

--- Whether the plugin of picker `name` loads (asked once; a lazy-loaded plugin loads here).
local function found(name, module)
  if H.found[name] == nil then H.found[name] = pcall(require, module) end
  return H.found[name]
end

--- The picker the `picker` option names: 'auto' is the first of telescope, fzf-lua and snacks
--- that is installed, else 'select' (|vim.ui.select()|), also when the one named is missing.
---@return 'telescope'|'fzf_lua'|'snacks'|'select'
function M.which()
  local choice = require('bb7.config').get().picker
  for _, plugin in ipairs(PLUGINS) do
    if (choice == 'auto' or choice == plugin[1]) and found(plugin[1], plugin[2]) then
      return plugin[1]
    end
  end
  return 'select'
end

--- Lets the user choose one of `lines` in the picker of the `picker` option (|vim.ui.select()|
--- without one); `on_choice(index)` runs with the one chosen.
---@param lines string[]
---@param title string
---@param on_choice fun(index: integer)
function M.choose(lines, title, on_choice)
  local name = M.which()
  if name ~= 'select' then
    return require('bb7.integrations.' .. name).choose(lines, title, on_choice)
  end
  require('bb7.chat.ui').select(lines, { prompt = title, kind = 'bb7.chat' }, function(_, index)
    if index then on_choice(index) end
  end)
end

--- Picks project files and adds them (several at once where the picker multi-selects).
function M.pick()
  M.load(function(files, root)
    if #files == 0 then return require('bb7.chat.ui').say('no project files to add', 'warn') end
    local name, choice = M.which(), require('bb7.config').get().picker
    if name == 'select' and choice ~= 'auto' and choice ~= 'select' then
      local missing = ('picker %s is not installed: using vim.ui.select'):format(choice)
      require('bb7.chat.ui').say(missing, 'warn')
    end
    if name ~= 'select' then
      require('bb7.integrations.' .. name).open(files, root, M.add_paths)
    else
      local opts = { prompt = 'bb7: add to the chat', kind = 'bb7.file' }
      require('bb7.chat.ui').select(files, opts, function(path)
        if path then M.add(path) end
      end)
    end
  end, true)
end

return M
