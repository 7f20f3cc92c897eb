--- Adding context without typing paths: the project's files (git-tracked first, as the host
--- lists them) through |vim.ui.select()|, so telescope, fzf-lua or snacks pickers take over
--- when installed; also the list `@` completes from in the input.
local M = {}

local H = {
  files = nil, ---@type string[]? project-relative paths, last listed
  root = nil, ---@type string?
}

local backend = require('bb7.util').backend

--- The last listed paths ({} before the first list).
---@return string[]
function M.cached() return H.files or {} end

--- Lists the project's files (once per chat view open), then `cb()`.
---@param cb fun()
---@param fresh? boolean list again even if listed already
function M.load(cb, fresh)
  if H.files and not fresh then return cb() end
  backend().request('project_files', vim.empty_dict(), function(err, listed)
    if err then return backend().report(err) end
    H.root, H.files = listed.root, listed.files
    cb()
  end)
end

--- Forgets the list (the view closed: files may come and go meanwhile).
function M.forget() H.files = nil end

--- Adds project file `path` (relative) to the active chat; `redraw()` afterwards.
---@param path string
---@param redraw? fun()
function M.add(path, redraw)
  local abs = vim.fs.joinpath(H.root or vim.fn.getcwd(), path)
  require('bb7.add').paths({ abs }, false, function(err, message)
    if err then return backend().report(err) end
    if message then require('bb7.chat.ui').say(message) end
    if redraw then redraw() end
  end)
end

--- Picks a project file and adds it; `redraw()` afterwards.
---@param redraw? fun()
function M.pick(redraw)
  M.load(function()
    if #H.files == 0 then return require('bb7.chat.ui').say('no project files to add', 'warn') end
    local opts = { prompt = 'bb7: add to the chat', kind = 'bb7.file' }
    require('bb7.chat.ui').select(H.files or {}, opts, function(path)
      if path then M.add(path, redraw) end
    end)
  end, true)
end

return M
