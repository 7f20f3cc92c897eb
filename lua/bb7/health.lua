--- `:checkhealth bb7`: Neovim, configuration, Python and its packages, a host round trip, the
--- provider preset and whether its server answers `/models`, where the API key comes from
--- (never the key), the project's `.bb7/` and the log.
local M = {}

local DEPENDENCIES = { 'pynvim', 'msgspec', 'rapidfuzz', 'httpx' }

local function check_config(h)
  h.start('bb7: configuration')
  local config = require('bb7.config')
  if config.current == nil then
    h.info('setup() was not called: the defaults are in force')
  else
    h.ok('setup() was called')
  end
  for _, name in ipairs(config.unknown) do
    h.warn(('unknown option `%s` (ignored)'):format(name), 'See :help bb7-config')
  end
end

-- The plugins of |bb7-integrations| (Lua module, name); looking loads a lazy-loaded one.
local INTEGRATIONS = {
  { 'telescope', 'telescope.nvim' },
  { 'fzf-lua', 'fzf-lua' },
  { 'snacks', 'snacks.nvim' },
  { 'oil', 'oil.nvim' },
  { 'neo-tree', 'neo-tree.nvim' },
  { 'blink.cmp', 'blink.cmp' },
  { 'cmp', 'nvim-cmp' },
}

local function check_integrations(h)
  h.start('bb7: integrations')
  local found = {}
  for _, plugin in ipairs(INTEGRATIONS) do
    if package.loaded[plugin[1]] or pcall(require, plugin[1]) then
      table.insert(found, plugin[2])
    end
  end
  h.info('plugins with an integration: ' .. (#found > 0 and table.concat(found, ', ') or 'none'))
  h.info(('`ga` lists files in: %s'):format(require('bb7.chat.picker').which()))
end

--- The agents of `agents` (|bb7-agents|): those whose command is found, and the others.
local function check_agents(h)
  h.start('bb7: agents')
  local commands = require('bb7.agents').commands()
  local found = require('bb7.agents').found()
  local names = vim.tbl_keys(commands)
  table.sort(names)
  for _, name in ipairs(found) do
    h.ok(('%s: %s'):format(name, table.concat(commands[name], ' ')))
  end
  local missing = vim.tbl_filter(function(name) return not vim.tbl_contains(found, name) end, names)
  if #found == 0 then
    h.info('no agent found: :BB7Agent needs one of them on $PATH (see :help bb7-agents)')
  end
  if #missing > 0 then
    local programs = vim.tbl_map(function(name) return commands[name][1] end, missing)
    h.info(('not found: %s'):format(table.concat(programs, ', ')))
  end
  h.info('questions before a tool call: ' .. require('bb7.config').get().agents.permissions)
end

local function check_python(h)
  h.start('bb7: Python')
  local python, source = require('bb7.install').resolve()
  if not python then return h.error(source) end
  h.ok(('%s (from %s)'):format(python, source))
  local script = 'import sys, importlib.metadata as m\nprint(sys.version.split()[0])\n'
    .. 'for d in sys.argv[1:]:\n'
    .. '    try: print(d, m.version(d))\n'
    .. '    except m.PackageNotFoundError: print(d, "-")\n'
  local cmd = vim.list_extend({ python, '-c', script }, DEPENDENCIES)
  local result = vim.system(cmd, { text = true }):wait(10000)
  if result.code ~= 0 then
    return h.error('cannot run Python: ' .. vim.trim(result.stderr or ''))
  end
  local lines = vim.split(vim.trim(result.stdout or ''), '\n')
  h.ok('Python ' .. lines[1])
  for i = 2, #lines do
    local name, version = unpack(vim.split(lines[i], ' '))
    if version == '-' then
      h.error(name .. ' is not installed', 'Run :BB7Install, or install it for ' .. python)
    else
      h.ok(name .. ' ' .. version)
    end
  end
end

local function check_host(h)
  h.start('bb7: host')
  local backend = require('bb7.backend')
  local err = backend.request_sync('ping', vim.empty_dict(), 5000)
  local status = backend.status()
  if err then
    h.error('no answer from the host: ' .. err.message)
  else
    local start = vim.uv.hrtime()
    backend.request_sync('ping', vim.empty_dict(), 5000)
    local round_trip = (vim.uv.hrtime() - start) / 1e6
    local info = status.info --[[@as bb7.Ready]] -- a host that answered is ready
    h.ok(('bb7 %s, protocol %d, pid %d'):format(info.version, info.protocol, info.pid))
    if status.ready_ms then h.info(('cold start: %.0f ms'):format(status.ready_ms)) end
    h.ok(('round trip: %.2f ms'):format(round_trip))
  end
  if #status.stderr > 0 then h.info('host stderr:\n' .. table.concat(status.stderr, '\n')) end
end

--- What the server says about tools (a local server through its own API): models without
--- tools get text edit blocks.
local function check_capabilities(h, info)
  local without = ''
  if info.no_tools > 0 then
    without = (' (text edit blocks: %s%s)'):format(
      table.concat(info.without_tools, ', '),
      info.no_tools > #info.without_tools and ', ...' or ''
    )
  end
  local counts = ('%d with tools, %d without%s'):format(info.tools, info.no_tools, without)
  if info.capabilities_source ~= '' then
    h.ok(('tool support from %s: %s'):format(info.capabilities_source, counts))
  elseif info.tools + info.no_tools > 0 then
    h.ok('tool support from /models: ' .. counts)
  elseif info.models > 0 then
    h.info(
      'tool support unknown: the server does not say (bb7 offers tools and reads edits '
        .. "from an answer's text when a model ignores them)"
    )
  end
end

--- How the provider is spoken to: the API, the prompt cache, OpenRouter's privacy routing.
local function check_settings(h, provider, info)
  local protocol = info.api == 'anthropic' and "Anthropic's Messages API"
    or "OpenAI's Chat Completions"
  h.ok(('api %s: %s'):format(info.api, protocol))
  if provider.cache == false then
    h.info('prompt cache: no breakpoints, no prompt_cache_key (provider.cache = false)')
  elseif info.api == 'anthropic' then
    h.ok('prompt cache: cache_control breakpoints on tools, system, first files, last turn')
  elseif info.cache_key then
    h.ok("prompt cache: prompt_cache_key is the chat's id")
  end
  local privacy = provider.privacy or {}
  local asked = {}
  if privacy.data_collection ~= nil then
    table.insert(asked, ("data_collection = '%s'"):format(privacy.data_collection))
  end
  if privacy.zdr ~= nil then table.insert(asked, 'zdr = ' .. tostring(privacy.zdr)) end
  if #asked == 0 then return end
  local said = 'privacy: ' .. table.concat(asked, ', ')
  if info.routing then
    h.ok(said .. " (OpenRouter's provider routing)")
  else
    h.warn(said .. ' is not sent: only OpenRouter takes it', {
      ('The %s preset routes nothing; use OpenRouter to choose endpoints by policy'):format(
        info.preset
      ),
    })
  end
end

--- The preset in force and its server's answer to `GET /models`, from `bb7.provider.probe` (the
--- Python side owns the preset table). Returns the probe's facts, or nil.
local function check_provider(h)
  h.start('bb7: provider')
  local provider = require('bb7.config').get().provider or {}
  local python = require('bb7.install').resolve()
  if not python then return h.warn('not checked: no Python to run the check') end
  local fields = {
    preset = provider.preset,
    api = provider.api,
    base_url = provider.base_url,
    api_key = provider.api_key,
  }
  -- With the defaults the table is empty, which vim.json.encode writes as `[]`.
  local args = next(fields) and vim.json.encode(fields) or '{}'
  local pythonpath = require('bb7.install').root .. '/python'
  local result = vim
    .system(
      { python, '-m', 'bb7.provider.probe', args },
      { text = true, env = { PYTHONPATH = pythonpath } }
    )
    :wait(15000)
  if result.code ~= 0 then
    -- One line: the probe's own error, or the one a traceback ends with.
    local lines = vim.split(vim.trim(result.stderr or ''), '\n')
    return h.error('cannot check the provider: ' .. vim.trim(lines[#lines]))
  end
  local info = vim.json.decode(result.stdout or '', { luanil = { object = true } })
  local named = provider.preset and 'preset' or 'preset (from the base URL)'
  h.ok(('%s %s: %s, %s'):format(named, info.preset, info.title, info.base_url))
  check_settings(h, provider, info)
  if info.answers then
    h.ok('the server answers /models: ' .. require('bb7.util').plural(info.models, 'model'))
    check_capabilities(h, info)
  else
    h.warn('the server does not answer /models: ' .. info.problem, {
      info['local'] and 'Start the server, or set provider.base_url to where it runs'
        or 'Check the network and provider.base_url',
    })
  end
  return info
end

--- Says where the key comes from and whether it is there, never what it is.
local function check_api_key(h, info)
  h.start('bb7: API key')
  local provider = require('bb7.config').get().provider or {}
  -- Read with the grammar `setup()` checks (config.lua `key_source`): blank is no spec.
  local source = provider.api_key and vim.trim(provider.api_key)
  if source == nil or source == '' then
    if info == nil then
      return h.info("the provider's usual variable, see :help bb7-option-provider.api_key")
    elseif info.key_env == nil then
      return h.ok(
        info['local'] and 'none needed: the provider is a server on this machine'
          or 'none sent: set provider.api_key if the server wants one'
      )
    elseif not info.key_required and (vim.env[info.key_env] or '') == '' then
      return h.ok(('none needed ($%s is sent when set)'):format(info.key_env))
    end
    source = info.key_env
  end
  local command = source:match('^cmd:(.*)')
  local path = source:match('^file:%s*(.*)')
  source = vim.trim(source:match('^env:(.*)') or source)
  if command then
    -- Only the program: an inline argument could be the key itself.
    local program = command:match('%S+') --[[@as string]]
    h.info(('from the output of a command (%s ...); not run here'):format(program))
  elseif path then
    if
      vim.fn.filereadable(vim.fn.expand(path) --[[@as string]]) == 1
    then
      h.ok('from the file ' .. path)
    else
      h.warn('the key file ' .. path .. ' is missing or unreadable')
    end
  elseif (vim.env[source] or '') ~= '' then
    h.ok(('from $%s (set)'):format(source))
  else
    h.warn(('$%s is not set'):format(source), {
      ('Set it (export %s=...), or point `provider.api_key` at a cmd: or file: source'):format(
        source
      ),
      ':BB7Paste works without a key',
    })
  end
end

local function check_project(h)
  h.start('bb7: project state')
  local dir = vim.fn.getcwd() .. '/.bb7'
  if vim.fn.isdirectory(dir) == 0 then
    return h.info(('no .bb7/ in %s: run :BB7Init to use bb7 here'):format(vim.fn.getcwd()))
  end
  local db = dir .. '/bb7.db'
  if vim.fn.filereadable(db) == 0 then
    return h.warn(dir .. ' has no bb7.db', 'Run :BB7Init again')
  end
  local size = vim.fn.getfsize(db)
  local file = io.open(db, 'rb')
  local header = file and file:read(16)
  if file then file:close() end
  -- What bb7 commands would refuse, said here too (the inside of a database is not checked).
  if size == 0 then
    h.error(db .. ' is empty (0 bytes): the chats it held are gone', {
      'Put a backup of it back, or delete it and run :BB7Init to start afresh',
    })
  elseif header ~= 'SQLite format 3\0' then
    h.error(db .. ' is damaged: it is not an SQLite database', {
      'Move it away and run :BB7Init to start afresh',
    })
  else
    h.ok(('%s (%d KiB)'):format(db, math.ceil(size / 1024)))
  end
end

--- The project's checks (|bb7-checks|): each declared check and whether its command is found
--- as a check finds it, and how a check is kept from the project on this machine.
local function check_checks(h)
  h.start('bb7: checks')
  local err, health = require('bb7.backend').request_sync('checks_health', vim.empty_dict(), 15000)
  if err then return h.warn('the host could not say: ' .. err.message) end
  ---@cast health bb7.ChecksHealth
  if health.problem ~= '' then
    h.error(health.problem, 'Fix .bb7/checks.toml (`bb7 check --suggest` prints a start)')
  elseif #health.checks == 0 then
    h.info('no checks declared: `bb7 check --suggest` prints a .bb7/checks.toml to start from')
  end
  for _, found in ipairs(health.checks) do
    local line = ('%s: %s'):format(found.name, found.command)
    if found.problem == '' then
      h.ok(line .. ' (' .. found.found .. ')')
    else
      h.error(line .. ': ' .. found.problem)
    end
  end
  if health.isolation == 'namespace' then
    h.ok('checks run in a user namespace over the project: they cannot write to it')
  elseif health.isolation == 'copy' then
    h.ok(
      'checks run in a copy in the cache directory ('
        .. health.why
        .. '), confined by '
        .. 'Landlock: they write only there, in their TMPDIR, devices and your caches'
    )
  elseif health.isolation == 'unconfined' then
    h.warn(
      'checks run in a copy in the cache directory, unconfined (' .. health.why .. ')',
      'A check can write through its links into ignored directories (.venv, node_modules, '
        .. 'target)'
    )
  else
    h.error(
      'checks are not run: nothing here can keep them from writing into the project ('
        .. health.why
        .. ')',
      {
        'A kernel with user namespaces or Landlock (Linux 5.13+) confines them',
        'BB7_CHECKS_ISOLATION=unconfined runs them in a copy whose links they can write through',
      }
    )
  end
end

function M.check()
  local h = vim.health
  h.start('bb7: Neovim')
  local version = tostring((vim.version --[[@as fun(): vim.Version]])())
  if vim.fn.has('nvim-0.11.4') == 1 then
    h.ok('Neovim ' .. version)
  else
    h.error('Neovim ' .. version .. ': bb7 needs 0.11.4 or newer')
  end
  check_config(h)
  check_integrations(h)
  check_agents(h)
  check_python(h)
  check_host(h)
  check_api_key(h, check_provider(h))
  check_project(h)
  check_checks(h)
  h.start('bb7: log')
  local log = require('bb7.log')
  h.info(('%s (level %s)'):format(log.path(), log.level()))
end

return M
