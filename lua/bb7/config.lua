--- bb7 options: the schema (type, default, description of every option, declared once),
--- the merged configuration, and the one validator that says "`x` should be …".
--- `doc/bb7.txt` is generated from `M.schema` by `scripts/gen_doc.lua`, so they cannot drift.
local M = {}
-- Run once at setup: LuaJIT's trace compiler would cost more than it saves on these loops.
if jit then jit.off(true, true) end

local vocab = require('bb7.vocab')

local function quote_all(values) return "'" .. table.concat(values, "', '") .. "'" end

--- Types: `check(value)` returns true or false; `expect` completes "should be …".
local function one_of(...)
  local values, set = { ... }, {}
  for _, v in ipairs(values) do
    set[v] = true
  end
  return { expect = 'one of ' .. quote_all(values), check = function(v) return set[v] == true end }
end

local function optional(kind)
  return {
    expect = kind.expect .. ' or nil',
    check = function(v) return v == nil or kind.check(v) end,
  }
end

-- What a key looks like, to refuse one typed where a name, command or path belongs: the rule of
-- `looks_like_key` in python/bb7/provider/keys.py (a known prefix, or one long random word).
local KEY_PREFIXES =
  { 'sk%-', 'sk_', 'AKIA', 'ASIA', 'AIza', 'glpat%-', 'gh[pousr]_', 'xox[abprs]%-' }

---@param value string
---@return boolean
local function looks_like_key(value)
  -- Quotes around it, as a shell command or path might have, are no part of a key.
  value = vim.trim(value):gsub('^[\'"`]+', '')
  value = vim.trim((value:gsub('[\'"`]+$', '')))
  for _, prefix in ipairs(KEY_PREFIXES) do
    local rest = value:match('^' .. prefix .. '(%S+)$')
    if rest and #rest >= 12 then return true end
  end
  if #value < 32 or not value:match('^[%w_-]+$') then return false end
  local _, digits = value:gsub('%d', '')
  local _, letters = value:gsub('%a', '')
  return digits >= 4 and letters >= 4
end

local types = {
  string = { expect = 'a string', check = function(v) return type(v) == 'string' and v ~= '' end },
  seconds = {
    expect = 'a number of seconds > 0 or nil',
    check = function(v) return v == nil or (type(v) == 'number' and v > 0) end,
  },
  optional_string = {
    expect = 'a string or nil',
    check = function(v) return v == nil or (type(v) == 'string' and v ~= '') end,
  },
  -- What `bb7.provider.provider.provider_config` takes (the CLI's --base-url): a scheme and a host.
  url = {
    expect = 'an http:// or https:// URL or nil',
    check = function(v)
      return v == nil or (type(v) == 'string' and v:match('^https?://[^/%s]') ~= nil)
    end,
  },
  boolean = { expect = 'a boolean', check = function(v) return type(v) == 'boolean' end },
  count = {
    expect = 'a whole number >= 0',
    check = function(v) return type(v) == 'number' and v >= 0 and v == math.floor(v) end,
  },
  optional_count = {
    expect = 'a whole number >= 0 or nil',
    check = function(v) return v == nil or (type(v) == 'number' and v >= 0 and v == math.floor(v)) end,
  },
  key = {
    expect = 'a key (string) or false to disable it',
    check = function(v) return v == false or (type(v) == 'string' and v ~= '') end,
  },
  sign = {
    expect = 'a table { text = <1 or 2 cells>, hl = <highlight group> }',
    check = function(v)
      if type(v) ~= 'table' or type(v.text) ~= 'string' or type(v.hl) ~= 'string' then
        return false
      end
      for k in pairs(v) do
        if k ~= 'text' and k ~= 'hl' then return false end
      end
      local width = vim.api.nvim_strwidth(v.text)
      return width >= 1 and width <= 2 and v.hl ~= ''
    end,
  },
  string_list = {
    expect = 'a list of strings',
    check = function(v)
      if type(v) ~= 'table' then return false end
      for k, item in pairs(v) do
        if type(k) ~= 'number' or type(item) ~= 'string' then return false end
      end
      return true
    end,
  },
  -- The value is a *source* of the key, never the key: it is never echoed in errors. The
  -- grammar is `bb7.provider.keys.parse_key_spec`'s (a test runs one list of specs through both):
  -- blank (the provider's usual variable), cmd:<command>, file:<path>, env:<name>, or a bare
  -- upper-case name (so a raw key pasted by mistake is refused).
  key_source = {
    expect = "nil, an environment variable name, 'cmd:<command>' or 'file:<path>'",
    secret = true,
    check = function(v)
      if v == nil then return true end
      if type(v) ~= 'string' then return false end
      local spec = vim.trim(v)
      local prefix, rest = spec:match('^(%l+):(.*)$')
      local named = prefix == 'cmd' or prefix == 'file' or prefix == 'env'
      if looks_like_key(named and rest or spec) then return false end
      if prefix == 'cmd' or prefix == 'file' then return vim.trim(rest or '') ~= '' end
      if prefix == 'env' then return vim.trim(rest or ''):match('^[%a_][%w_]*$') ~= nil end
      return spec == '' or spec:match('^[%u_][%u%d_]*$') ~= nil
    end,
  },
}

local function sign(name, text, hl, what)
  return {
    name = 'signs.' .. name,
    parts = { 'signs', name },
    default = { text = text, hl = hl },
    type = types.sign,
    doc = 'Sign for ' .. what .. '.',
  }
end

---@class bb7.Option
---@field name string dotted: `signs.modified` is `signs = { modified = ... }`
---@field default any
---@field type table how its value is checked (one of the types above)
---@field doc string
---@field parts? string[] the name's parts (given with the many made below, so setup() resizes
---  no table to add them; indexed once, below, for the others)

--- The options but the keys, in documentation order. Dotted names are nested tables. `M.schema`
--- is these and a `keys.<name>` option per key (below).
---@type bb7.Option[]
local options = {
  {
    name = 'python',
    type = types.optional_string,
    doc = [[Python interpreter that runs the bb7 host. When nil, bb7 uses
`<plugin>/.venv/bin/python` if it exists (made by `make install` in a
checkout), else the venv that |:BB7Install| and the lazy.nvim `build` create
under `stdpath('data')/bb7/venv`. The interpreter needs pynvim, msgspec, rapidfuzz
and httpx; bb7's own Python code always comes from the plugin checkout.]],
  },
  {
    name = 'transport',
    default = 'job',
    type = one_of('job', 'rplugin'),
    doc = [['job': bb7 starts its own host process on the first bb7 command.
'rplugin': use the shared remote-plugin host instead (run
|:UpdateRemotePlugins| once; `g:python3_host_prog` must have bb7's
dependencies). See |bb7-rplugin|.]],
  },
  {
    name = 'diff_mode',
    default = vocab.default_diff_mode,
    type = one_of(unpack(vocab.diff_modes)),
    doc = [[How the model edits files. With tools: 'search_replace_multi': one
`edit_file` call with many search/replace edits, possibly across files;
'search_replace': one edit per call; 'anchored': edits anchored on the
first and last lines of a region; 'off': whole-file `write_file` only.
Without tools, as blocks in the answer: 'edit_blocks' (EDIT blocks) or
'search_replace_blocks' (SEARCH/REPLACE blocks). A model without tool
support gets text blocks whatever the mode.]],
  },
  {
    name = 'provider.preset',
    type = optional(one_of(unpack(vocab.presets))),
    doc = [[The provider by name: it fills in the base URL, where the key lives
and the provider's quirks (how reasoning effort is sent, longer time limits
for a server on this machine). `provider = 'ollama'` is short for
`provider = { preset = 'ollama' }`. When nil: the preset whose host
`base_url` is on (on this machine, the local preset of its port:
localhost:11434 is 'ollama'), else 'openrouter'. 'anthropic' speaks
Anthropic's own Messages API (see `provider.api`); 'gemini' is Gemini's
OpenAI-compatible endpoint; 'ollama', 'llamacpp', 'lmstudio' and 'vllm'
are servers on this machine at their usual ports (no key; vLLM's
`$VLLM_API_KEY` when set).]],
  },
  {
    name = 'provider.api',
    type = optional(one_of(unpack(vocab.apis))),
    doc = [[The wire protocol: 'openai' (Chat Completions, which most servers
speak) or 'anthropic' (Anthropic's Messages API: native prompt-cache
breakpoints, so a long chat is read from the cache; thinking blocks kept
through a tool turn; Anthropic's own error kinds). When nil: the preset's,
'anthropic' for `provider = 'anthropic'` and 'openai' for every other.
`api = 'openai'` with that preset reaches its OpenAI-compatible endpoint.]],
  },
  {
    name = 'provider.base_url',
    type = types.url,
    doc = [[Base URL of the API (`provider.api` says which protocol it speaks).
When nil, the preset's (OpenRouter's, 'https://openrouter.ai/api/v1',
without a preset). Set it with a preset to reach that kind of server
elsewhere, e.g. Ollama on another machine.]],
  },
  {
    name = 'provider.model',
    type = types.optional_string,
    doc = [[Model id for new chats, e.g. 'anthropic/claude-sonnet-4'. When nil,
the chat's last model is used; pick one with |:BB7Model|.]],
  },
  {
    name = 'provider.api_key',
    type = types.key_source,
    doc = [[Where the API key comes from, never the key itself: the name of an
environment variable ('MY_KEY', or 'env:<name>' for any name),
'cmd:<shell command>' (its output), or 'file:<path>' (its first line).
When nil: the provider's usual variable
(`$OPENROUTER_API_KEY` for OpenRouter, `$OPENAI_API_KEY` for OpenAI, ...),
and no key for a server on this machine. The key is never logged or stored,
nor anything a `cmd:` command prints.]],
  },
  {
    name = 'provider.reasoning_effort',
    type = optional(one_of(unpack(vocab.efforts))),
    doc = [[How hard a reasoning model thinks, for chats that have not chosen
their own: sent as OpenRouter's `reasoning`, OpenAI's `reasoning_effort` or
Anthropic's thinking budget (adaptive thinking at that effort for the Claude
models that take it), as the preset says; 'none' asks for no reasoning. Presets whose servers take no such setting (DeepSeek, Mistral,
llama.cpp) leave it out and say so. When nil, the model's default.
`require('bb7.reasoning').pick()` switches it for the active chat (which
keeps its choice, as `bb7 chat --reasoning` does).]],
  },
  {
    name = 'provider.timeout',
    type = types.seconds,
    doc = [[Seconds one answer may take in all, retries included; then it stops
and keeps what arrived. When nil: 900 (1200 for a server on this
machine).]],
  },
  {
    name = 'provider.idle_timeout',
    type = types.seconds,
    doc = [[Seconds without progress (answer text, reasoning, tool-call
arguments) before an answer is given up; keep-alive comments do not count.
When nil: 180 (300 for a server on this machine, which may read a long
prompt for minutes before its first word; such a server is not asked
again after this limit, as it would be as slow again).]],
  },
  {
    name = 'provider.retries',
    type = types.optional_count,
    doc = [[How many times a request that fails before any output (connection
refused, rate limit, server error, silence) is sent again, with growing
waits; no retry starts after 60 s or past `provider.timeout`. When nil: 3
(1 for a server on this machine).]],
  },
  {
    name = 'provider.cache',
    default = true,
    type = types.boolean,
    doc = [[Mark prompt cache breakpoints for providers that cache only what a
request marks: Anthropic models (through OpenRouter or the 'anthropic'
preset) and Gemini models through OpenRouter. Up to four marks: the system
prompt, the files as first shared, and the conversation up to the previous
and the current turn (Anthropic's own API: the tools, the system prompt, the
files as first shared and the conversation up to this turn), so each turn
pays full price only for what is new. Other providers (OpenAI, DeepSeek,
xAI, Gemini's own endpoint) cache a repeated prefix by themselves: bb7's
prompt grows at its end so they hit too, and OpenAI gets the chat's id as
`prompt_cache_key` so a chat's requests meet the same cache. false sends no
marks and no key.]],
  },
  {
    name = 'provider.privacy.data_collection',
    type = optional(one_of('allow', 'deny')),
    doc = [[OpenRouter only: 'deny' sends requests only to providers that
neither store prompts nor train on them; 'allow' to any. Sent as
OpenRouter's `provider.data_collection`. When nil: your OpenRouter account's
setting.]],
  },
  {
    name = 'provider.privacy.zdr',
    type = optional(types.boolean),
    doc = [[OpenRouter only: true sends requests only to zero-data-retention
endpoints (OpenRouter's `provider.zdr`); fewer models are then available.
When nil: your OpenRouter account's setting.]],
  },
  {
    name = 'context.follow_edits',
    default = 'diff',
    type = one_of('diff', 'full', 'off'),
    doc = [[What the model sees of your edits to a context file or section (in
its buffer, unsaved edits included, else on disk) at your next message:
'diff': the chat's copy is brought up to date and the model gets your
change as a diff against the version it last saw (the whole file again
only when the diffs since it outgrow a quarter of it); 'full': the
whole file again; 'off': nothing until you update it from the files panel
(the file shows `~` meanwhile). A file a checkout has since replaced with a
symlink out of the project, into `.git` or into what `.bb7/ignore` leaves
out, or whose text now looks like a secret, is not read: the send says so
and the model keeps the version it had.]],
  },
  {
    name = 'context.instruction_files',
    default = { 'AGENTS.md' },
    type = types.string_list,
    doc = [[Files a project already keeps for models (relative to its root), read as
project instructions after `.bb7/instructions`, e.g. `{ 'AGENTS.md',
'CLAUDE.md' }`. `{}` reads none. |:BB7EditInstructions| lists the files
that apply. They come with the project, so they are read as context files
are: one a symlink leads out of the project or into `.git`, one
`.bb7/ignore` leaves out, or one that looks like a secret is not used, and
the send says why.]],
  },
  {
    name = 'agents.permissions',
    default = 'ask',
    type = one_of(unpack(vocab.permissions)),
    doc = [[What bb7 answers an agent (|bb7-agents|) that asks before a tool call:
'ask' you, with a one-line question in the chat view answered by a key (`y`
allow once, `a` allow always, `n` reject); 'allow' once, each time; 'reject',
each time. `bb7 agent` asks on its terminal, and rejects without one unless
`--yes`. The agents themselves are `agents.<name> = { cmd = {...} }`
beside it (|bb7-agents|).]],
  },
  {
    name = 'checks.on_answer',
    type = optional(types.boolean),
    doc = [[Run the project's checks (|bb7-checks|) after each answer that leaves
pending outputs. When nil: on when checks are declared (`.bb7/checks.toml`,
or the list in this `checks` table). The checks themselves go in the same
table, one table per check, as in the file: `checks = { on_answer = true,
{ name = 'types', run = { 'mypy', '.' }, files = { '*.py' } } }` adds a
check, or changes the project's check of that `name` for this machine only
(`timeout = 300`; `enabled = false` drops it).]],
  },
  {
    name = 'checks.auto_fix',
    default = 0,
    type = types.count,
    doc = [[How many "make the checks pass" rounds bb7 sends by itself when the
checks fail after an answer, each shown in the conversation; it stops at
the first pass. 0: none (`gM` in the chat view, or `bb7 chat --fix-checks`,
asks once).]],
  },
  {
    name = 'layout',
    default = 'tab',
    type = one_of('tab', 'split'),
    doc = [[Where |:BB7Chat| opens the chat view: its own tab page, or a
vertical split in the current tab.]],
  },
  {
    name = 'picker',
    default = 'auto',
    type = one_of('auto', 'telescope', 'fzf_lua', 'snacks', 'select'),
    doc = [[The picker `ga` in the chat view (and |:BB7Add| there without a
path) lists the project's files in: telescope, fzf-lua and snacks select
several files at once, added together; 'select' is |vim.ui.select()|, one
file. 'auto': the first of telescope, fzf-lua and snacks that is installed,
else 'select'. See |bb7-integrations|.]],
  },
  {
    name = 'titles.enabled',
    default = true,
    type = types.boolean,
    doc = [[Name a chat after its first exchange (a short, cheap request: a few
words back), as long as it has its default name. A failed title request
only goes to the log.]],
  },
  {
    name = 'titles.model',
    type = types.optional_string,
    doc = [[Model that names chats, e.g. a cheap one like 'openai/gpt-4o-mini'.
When nil, the chat's own model does.]],
  },
  {
    name = 'favorite_models',
    default = {},
    type = types.string_list,
    doc = [[Model ids listed first in the model picker (|bb7-chat|), in this
order, e.g. `{ 'anthropic/claude-sonnet-4', 'openai/gpt-5' }`. The picker's
last item marks or unmarks a favourite there and then, kept in
`stdpath('data')/bb7/favorites.json` beside this list.]],
  },
  {
    name = 'signs.enabled',
    default = true,
    type = types.boolean,
    doc = [[Show bb7 signs: the status of a file of the active chat on its
line 1, and marks on the lines a pending change touches.]],
  },
  {
    name = 'signs.priority',
    default = 5,
    type = types.count,
    doc = [[Priority of bb7 signs; the default is below gitsigns (6) so VCS
signs win when both want the same line.]],
  },
  -- Here: the sign of each status (inserted below from lua/bb7/presentation.lua's rows).
  sign('pending_line', '│', 'BB7SignPendingLine', "lines the model's pending change touches"),
  sign('user_line', '┆', 'BB7SignUserLine', 'lines you changed since the snapshot the model saw'),
  {
    name = 'status.debounce_ms',
    default = 200,
    type = types.count,
    doc = [[Delay after the last change in a buffer before its status is
recomputed with the buffer text (unsaved edits count).]],
  },
  {
    name = 'log_level',
    default = 'warn',
    type = one_of('off', 'error', 'warn', 'info', 'debug'),
    doc = [[What goes to the log file `stdpath('log')/bb7.log` (|:BB7Log|), for
both the Lua side and the Python host. `$BB7_LOG_LEVEL` overrides it.]],
  },
  {
    name = 'log_prompts',
    default = false,
    type = types.boolean,
    doc = [[Keep every request bb7 sends the model, its body as it goes over the
wire, and the answer that came back, in `stdpath('log')/bb7-prompts.log`
(`:BB7Log prompts` opens it): to see exactly what the model was told. Off by
default: prompts hold your code. API keys are never written (they travel in
a header, which is not kept, and any text holding one is redacted); the
file is yours alone (mode 600) and starts over past 20 MB.]],
  },
}

-- A `signs.*` option for each status, before the line signs, in the vocabulary's order.
do
  local at = 1
  while options[at].name ~= 'signs.pending_line' do
    at = at + 1
  end
  local rows = require('bb7.presentation')
  for _, facts in ipairs(vocab.statuses) do
    local row = rows[facts.status]
    if row then
      local what = ('`%s` (%s)'):format(facts.status, facts.meaning)
      table.insert(options, at, sign(row.option, facts.status, row.hl, what))
      at = at + 1
    end
  end
end

-- Keys in bb7's own buffers (the chat view, a reviewed buffer); never global mappings.
-- Declared once, with where they apply, in `lua/bb7/keys.lua` (data: no pane is loaded); each
-- is a `keys.<name>` option of type `types.key`. setup() reads the specs themselves: an option
-- table per key is made only for `M.schema`'s readers (the help, the tests).
local key_specs = require('bb7.keys').specs
local key_spec = {} ---@type table<string, bb7.KeySpec>
for _, spec in ipairs(key_specs) do
  key_spec[spec.name] = spec
end

--- Every option, in documentation order: `options`, then one per key.
---@type bb7.Option[]
M.schema = nil
setmetatable(M, {
  __index = function(_, field)
    if field ~= 'schema' then return nil end
    local schema = vim.list_extend({}, options)
    for _, key in ipairs(key_specs) do
      table.insert(schema, {
        name = 'keys.' .. key.name,
        parts = { 'keys', key.name },
        default = key.default,
        type = types.key,
        doc = 'Key to ' .. key.desc .. '.',
      })
    end
    rawset(M, 'schema', schema)
    return schema
  end,
})

-- Index the options once (plain `find`: patterns are slow in LuaJIT and this runs at start-up).
local by_name, groups = {}, { keys = true, signs = true }
for _, option in ipairs(options) do
  by_name[option.name] = option
  if not option.parts then
    option.parts = {}
    local start = 1
    while true do
      local dot = option.name:find('.', start, true)
      table.insert(option.parts, option.name:sub(start, dot and dot - 1 or nil))
      if not dot then break end
      groups[option.name:sub(1, dot - 1)] = true
      start = dot + 1
    end
  end
end

local function path_get(tbl, parts)
  for _, part in ipairs(parts) do
    if type(tbl) ~= 'table' then return nil end
    tbl = tbl[part]
  end
  return tbl
end

local function path_set(tbl, parts, value)
  for i = 1, #parts - 1 do
    tbl[parts[i]] = tbl[parts[i]] or {}
    tbl = tbl[parts[i]]
  end
  tbl[parts[#parts]] = value
end

--- A fresh table of all defaults; with `opts`, the user's values over them (sign tables are
--- merged key by key, so `{ text = '+' }` keeps the default highlight).
---@param opts table?
---@return bb7.Config
function M.defaults(opts)
  local out = {}
  for _, option in ipairs(options) do
    local value = opts and path_get(opts, option.parts)
    local default = option.default
    if type(default) == 'table' and vim.islist(default) then
      value = vim.deepcopy(value == nil and default or value) -- a list is replaced whole
    elseif type(default) == 'table' and (value == nil or type(value) == 'table') then
      local merged = {} -- sign specs: flat tables, merged key by key
      for k, v in pairs(default) do
        merged[k] = v
      end
      for k, v in pairs(value or {}) do
        merged[k] = v
      end
      value = merged
    elseif value == nil then
      value = default
    end
    if value ~= nil then path_set(out, option.parts, value) end
    if option.name == 'agents.permissions' then
      -- Beside it, the agents by name: the documented ones, with setup()'s over them.
      for name, cmd in pairs(vocab.agents) do
        out.agents[name] = { cmd = vim.deepcopy(cmd) }
      end
      for name, def in pairs(opts and type(opts.agents) == 'table' and opts.agents or {}) do
        if name ~= 'permissions' then out.agents[name] = def or nil end
      end
    end
  end
  -- `checks`' list part: the checks of this machine, as given.
  for i, item in ipairs(opts and type(opts.checks) == 'table' and opts.checks or {}) do
    out.checks[i] = vim.deepcopy(item)
  end
  local keys = opts and type(opts.keys) == 'table' and opts.keys or {}
  out.keys = {}
  for _, spec in ipairs(key_specs) do
    local value = keys[spec.name]
    if value == nil then value = spec.default end
    out.keys[spec.name] = value
  end
  return out --[[@as bb7.Config]]
end

local function fail(name, expect, value, secret)
  local got = secret and ('a ' .. type(value)) or vim.inspect(value, { newline = ' ', indent = '' })
  error(string.format('bb7: `%s` should be %s, got %s', name, expect, got), 0)
end

-- `checks`' list part: one table per check (`.bb7/checks.toml`'s fields).
local CHECK_FIELDS = { name = true, run = true, files = true, timeout = true, enabled = true }

local function check_item(i, item)
  local at = ('checks[%d]'):format(i)
  if type(item) ~= 'table' then fail(at, 'a table { name = ..., run = ... }', item) end
  for k, v in pairs(item) do
    if not CHECK_FIELDS[k] then
      fail(at .. '.' .. tostring(k), 'left out (fields: name, run, files, timeout, enabled)', v)
    end
  end
  if not types.string.check(item.name) then fail(at .. '.name', 'a non-empty string', item.name) end
  local run = item.run
  local argv = type(run) == 'table' and #run > 0 and types.string_list.check(run) and run[1] ~= ''
  if run ~= nil and not (types.string.check(run) or argv) then
    fail(at .. '.run', 'an argv list or a shell command string', run)
  end
  if item.files ~= nil and not types.string_list.check(item.files) then
    fail(at .. '.files', types.string_list.expect, item.files)
  end
  if not types.seconds.check(item.timeout) then
    fail(at .. '.timeout', types.seconds.expect, item.timeout)
  end
  if item.enabled ~= nil and type(item.enabled) ~= 'boolean' then
    fail(at .. '.enabled', 'a boolean', item.enabled)
  end
end

--- Walks the user's table: groups must be tables, unknown keys are collected (not fatal, so
--- a config written for a newer bb7 still loads), the options given are collected in `given`.
local function check_shape(opts, prefix, unknown, given)
  for key, value in pairs(opts) do
    local name = prefix .. tostring(key)
    if prefix == 'checks.' and type(key) == 'number' then
      check_item(key, value)
    elseif groups[name] then
      if type(value) ~= 'table' then fail(name, 'a table', value) end
      check_shape(value, name .. '.', unknown, given)
    elseif by_name[name] then
      given[name] = true
    elseif not (prefix == 'keys.' and key_spec[key]) and not vim.startswith(name, 'agents.') then
      table.insert(unknown, name) -- an agent by name is checked by `check_agents`
    end
  end
end

--- The agents `setup()` names beside `agents.permissions`: each `{ cmd = { program, args... } }`,
--- or false to leave a documented one out.
local function check_agents(agents)
  for name, def in pairs(agents or {}) do
    if name ~= 'permissions' then
      local cmd = type(def) == 'table' and def.cmd
      local ok = def == false
        or (
          type(cmd) == 'table'
          and #cmd > 0
          and types.string_list.check(cmd)
          and vim.tbl_count(def) == 1
        )
      if not ok then
        fail('agents.' .. tostring(name), "{ cmd = { 'program', 'arg', ... } } or false", def)
      end
    end
  end
end

--- Validates `opts` and returns the merged configuration plus the sorted unknown option names.
--- Raises "bb7: `x` should be …" (without Lua position noise) on the first bad value.
---@param opts table?
---@return table merged, string[] unknown
function M.resolve(opts)
  if opts == nil then opts = {} end
  if type(opts) ~= 'table' then fail('opts', 'a table', opts) end
  if type(opts.provider) == 'string' then -- `provider = 'ollama'`: a preset by name
    opts = vim.tbl_extend('force', opts, { provider = { preset = opts.provider } })
  end
  local unknown, given = {}, {}
  check_shape(opts, '', unknown, given)
  check_agents(opts.agents)
  table.sort(unknown)
  local merged = M.defaults(opts)
  -- Only the options given (a default passes its check: tests/lua/setup_spec.lua), in schema
  -- order, so the first bad value named is always the same one.
  for _, option in ipairs(options) do
    if given[option.name] then
      local value = path_get(merged, option.parts)
      if not option.type.check(value) then
        fail(option.name, option.type.expect, value, option.type.secret)
      end
    end
  end
  local keys = type(opts.keys) == 'table' and opts.keys or {}
  for _, spec in ipairs(key_specs) do -- the keys' options come last in the schema
    local value = merged.keys[spec.name]
    if keys[spec.name] ~= nil and not types.key.check(value) then
      fail('keys.' .. spec.name, types.key.expect, value)
    end
  end
  return merged, unknown
end

---@class bb7.Config: table
---@field signs table<string, any> `enabled`, `priority` and one { text, hl } per sign
---@field keys table<string, string|false>
---@field agents table<string, any> `permissions`, and `{ cmd = string[] }` per agent by name

--- The configuration in force: `setup()`'s, or the defaults when `setup()` was never called.
---@type bb7.Config?
M.current = nil
M.unknown = {}

---@return bb7.Config
function M.get()
  if M.current == nil then M.current = M.defaults() end
  return M.current
end

return M
