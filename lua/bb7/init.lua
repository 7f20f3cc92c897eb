--- bb7: LLM-assisted, non-agentic coding. This is the public Lua API (|bb7-functions|):
--- `setup()`, `status()`, `statusline()`, `send()`. Setup only configures: the Python host
--- starts on the first bb7 command, or when a file of the project is opened.
local M = {}

local H = {}

--- Validates and applies `opts` (see |bb7-config|). Idempotent; starts nothing.
---@param opts? table the options of |bb7-config| (unknown ones are reported and ignored)
function M.setup(opts)
  local config = require('bb7.config')
  local merged, unknown = config.resolve(opts)
  config.current, config.unknown = merged, unknown
  if #unknown > 0 then
    require('bb7.log').notify(
      ('unknown option%s ignored: %s (see :help bb7-config)'):format(
        #unknown == 1 and '' or 's',
        table.concat(unknown, ', ')
      ),
      'warn'
    )
  end

  local group = vim.api.nvim_create_augroup('bb7', { clear = true })
  local highlight = require('bb7.highlight')
  highlight.apply()
  vim.api.nvim_create_autocmd('ColorScheme', {
    group = group,
    desc = 'bb7: define highlight groups again',
    callback = highlight.apply,
  })
  H.status_autocmds(group)
  vim.api.nvim_create_autocmd('DirChanged', {
    group = group,
    desc = 'bb7: serve the project of the new working directory',
    callback = function() H.reopen() end,
  })
  H.map_editor_keys(merged.keys)
  H.reopen() -- a running host gets the new options
  -- nvim-cmp's `@` source for the input, whenever cmp loads: already, or later (lazy.nvim
  -- loads it on its event; its plugin file ends with `User CmpReady`). Never loads cmp.
  if package.loaded.cmp then require('bb7.integrations.cmp').register() end
  vim.api.nvim_create_autocmd('User', {
    group = group,
    pattern = 'CmpReady',
    desc = "bb7: register the chat input's nvim-cmp source",
    callback = function() require('bb7.integrations.cmp').register() end,
  })
  -- Sign options may have changed: redraw the buffers that already show a status.
  local status = package.loaded['bb7.status']
  if status and next(status.files()) then
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      status.render(buf)
    end
  end
end

--- The keys bb7 maps in every buffer (`editor` in lua/bb7/keys.lua): none by default, each
--- only when its option names one; a `setup()` again maps them anew.
---@param keys table<string, string|false>
function H.map_editor_keys(keys)
  for _, old in ipairs(H.mapped or {}) do
    pcall(vim.keymap.del, old[2], old[1])
  end
  H.mapped = {}
  for _, spec in ipairs(require('bb7.keys').editor) do
    local lhs = keys[spec.name]
    if lhs and spec.rhs then
      local desc = 'bb7: ' .. spec.desc:gsub('|([^|%s]+)|', '%1')
      vim.keymap.set(spec.mode, lhs, spec.rhs, { desc = desc, silent = true })
      table.insert(H.mapped, { lhs, spec.mode })
    end
  end
end

function H.reopen()
  local backend = package.loaded['bb7.backend']
  if backend then backend.open() end
end

--- The `.bb7` directory above `path`, if any (a few `stat`s).
---@param path string
---@return string?
local function project_of(path)
  return vim.fs.find('.bb7', { upward = true, path = path, type = 'directory', limit = 1 })[1]
end

--- A file of the working directory's bb7 project opened before any bb7 command (Neovim
--- reopened on it): the host starts, after start-up (which stays as fast as without bb7), and
--- brings every status with it. Once per session; never outside a project.
---@param buf integer
function H.wake(buf)
  if H.woken or vim.bo[buf].buftype ~= '' then return end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' then return end
  H.woken = true
  vim.defer_fn(function()
    if vim.v.exiting ~= vim.NIL then return end -- `nvim file +q`: quitting already
    local backend = package.loaded['bb7.backend']
    if backend and backend.is_ready() then return end
    local project = project_of(vim.fs.dirname(name))
    if project and project == project_of(vim.fn.getcwd()) then
      require('bb7.backend').start()
    else
      H.woken = false -- a later file may be one
    end
  end, 0)
end

--- Keeps statuses fresh. Callbacks load `bb7.status` only when they run, so setup stays cheap;
--- refreshes do nothing until a bb7 command has started the host.
function H.status_autocmds(group)
  local function status() return require('bb7.status') end
  local function autocmd(events, desc, callback)
    vim.api.nvim_create_autocmd(
      events,
      { group = group, desc = 'bb7: ' .. desc, callback = callback }
    )
  end
  -- BufNewFile: a pending new file (A) opened before it exists gets its sign too.
  local opened = { 'BufReadPost', 'BufNewFile', 'BufFilePost' }
  autocmd(opened, 'show the cached status, then refresh it', function(ev)
    status().render(ev.buf)
    status().refresh({ ev.buf })
    H.wake(ev.buf)
  end)
  autocmd(
    { 'BufWritePost', 'FileChangedShellPost' },
    'refresh the status of a written or reloaded file',
    function(ev) status().refresh({ ev.buf }) end
  )
  autocmd(
    { 'TextChanged', 'TextChangedI' },
    'refresh the status with the unsaved buffer text (debounced)',
    function(ev) status().schedule_refresh(ev.buf) end
  )
  autocmd(
    'FocusGained',
    'refresh every status (files may have changed outside Neovim)',
    function() status().refresh(vim.api.nvim_list_bufs(), true) end
  )
end

--- Status of a buffer's file in the active chat: '', 'M', 'A', '!A', '~', '~M', 'R', '~R' or 'S'.
--- Reads the Lua-side cache; never calls the host (safe in statuslines).
---@param bufnr? integer default: the current buffer
---@return string
function M.status(bufnr) return require('bb7.status').get(bufnr) end

--- Statusline component: '' when blank, else 'bb7:' followed by the status ('agent' while an
--- agent's own write of the file waits for review, |bb7-agents|) and the checks' verdict on
--- its pending change (`✓`, `✗2`, `…` running; |bb7-checks|), then `○` while an answer
--- streams or `●` when one ended unseen (the chat view closed).
---@param bufnr? integer default: the current buffer
---@return string
function M.statusline(bufnr)
  local line = require('bb7.status').statusline(bufnr)
  local symbol = require('bb7.activity').symbol()
  if symbol == '' then return line end
  return (line == '' and 'bb7' or line) .. ' ' .. symbol
end

--- The answers' state: 'streaming', 'unread' (one ended while the chat view was closed; opening
--- it reads it) or 'idle'.
---@return 'idle'|'streaming'|'unread'
function M.answer_state() return require('bb7.activity').state() end

--- Sends `text` to the model in the active chat; returns the request id. `opts.model`
--- overrides the chat's model; `opts.fix_checks` sends "make the checks pass" instead of
--- `text` (with the last check run's failures, |bb7-checks|). Progress arrives as events and
--- `User` autocmds.
---@param text string
---@param opts? { model?: string, fix_checks?: boolean, fix_round?: integer }
---@return string request_id
function M.send(text, opts)
  opts = opts or {}
  if type(text) ~= 'string' or (text == '' and not opts.fix_checks) then
    error('bb7: `text` should be a non-empty string', 0)
  end
  local request_id = require('bb7.util').request_id()
  require('bb7.backend').notify('send', {
    request_id = request_id,
    text = text,
    model = opts.model,
    buffers = require('bb7.buffer').for_request(),
    editor = require('bb7.live').state(),
    fix_checks = opts.fix_checks or false,
    fix_round = opts.fix_round or 0,
  })
  return request_id
end

return M
