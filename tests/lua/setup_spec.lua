-- `setup()`: every option validated with a readable message, merged over the defaults,
-- idempotent, and starting nothing.
local spec = require('spec')
local test, eq, starts = spec.test, spec.eq, spec.starts

--- The error `setup(opts)` raises.
local function refusal(opts) return spec.raises(require('bb7').setup, opts) end

-- Each refusal starts with the option's name and what it should be.
local BAD = {
  {
    { diff_mode = 'bogus' },
    "bb7: `diff_mode` should be one of 'search_replace_multi', 'search_replace', "
      .. "'anchored', 'off', 'edit_blocks', 'search_replace_blocks', got \"bogus\"",
  },
  { { provider = 42 }, 'bb7: `provider` should be a table, got 42' },
  {
    { provider = 'olama' },
    "bb7: `provider.preset` should be one of 'openrouter', 'openai', 'anthropic', 'ollama', ",
  },
  { { provider = { timeout = 0 } }, 'bb7: `provider.timeout` should be a number of seconds > 0' },
  {
    { provider = { base_url = 'localhost:11434/v1' } },
    'bb7: `provider.base_url` should be an http:// or https:// URL or nil',
  },
  { { provider = { retries = 1.5 } }, 'bb7: `provider.retries` should be a whole number >= 0' },
  { { python = 42 }, 'bb7: `python` should be a string or nil, got 42' },
  { { layout = 'float' }, "bb7: `layout` should be one of 'tab', 'split', got \"float\"" },
  { { signs = { priority = -1 } }, 'bb7: `signs.priority` should be a whole number >= 0' },
  {
    { signs = { modified = { text = 'MMM' } } },
    'bb7: `signs.modified` should be a table { text = <1 or 2 cells>, hl = <highlight',
  },
  { { keys = { apply = 1 } }, 'bb7: `keys.apply` should be a key (string) or false' },
  { { status = { debounce_ms = 0.5 } }, 'bb7: `status.debounce_ms` should be a whole number' },
}

for _, case in ipairs(BAD) do
  local opts, message = case[1], case[2]
  test(
    'a bad option is refused with a message naming it: '
      .. vim.inspect(opts, { newline = '', indent = '' }),
    function() starts(message, refusal(opts)) end
  )
end

test('an api key in place of its source is refused without echoing it', function()
  local err
  local said = spec.notified(
    function() err = refusal({ provider = { api_key = 'sk-or-v1-0123456789abcdef' } }) end
  )
  eq(
    "bb7: `provider.api_key` should be nil, an environment variable name, 'cmd:<command>' or "
      .. "'file:<path>', got a string",
    err
  )
  eq({}, said)
end)

-- `resolve` checks only the options given: every default must pass its own check.
test('every default passes its check', function()
  local config = require('bb7.config')
  local defaults = config.defaults()
  for _, option in ipairs(config.schema) do
    local value = defaults
    for _, part in ipairs(option.parts) do
      if type(value) == 'table' then value = value[part] end
    end
    eq({ option.name, true }, { option.name, option.type.check(value) })
  end
end)

test(
  'of several bad options the first in the schema is named',
  function()
    starts(
      'bb7: `diff_mode` should be',
      refusal({ log_level = 'loud', diff_mode = 'x', layout = 1 })
    )
  end
)

test('valid options are merged over the defaults', function()
  require('bb7').setup({
    provider = { api_key = 'cmd:pass show openrouter' },
    keys = { apply = false },
  })
  local config = require('bb7.config').get()
  eq({ api_key = 'cmd:pass show openrouter', cache = true }, config.provider)
  eq(false, config.keys.apply)
  eq('x', config.keys.discard)
  eq({ text = 'M', hl = 'BB7SignModified' }, config.signs.modified)
end)

test('a provider preset by name is short for the preset table', function()
  require('bb7').setup({ provider = 'ollama' })
  -- No retries: the host picks the preset's (once for a server on this machine).
  eq({ preset = 'ollama', cache = true }, require('bb7.config').get().provider)
  require('bb7').setup({
    provider = { preset = 'groq', model = 'openai/gpt-oss-120b', idle_timeout = 30 },
  })
  local provider = require('bb7.config').get().provider
  eq(
    { 'groq', 'openai/gpt-oss-120b', 30 },
    { provider.preset, provider.model, provider.idle_timeout }
  )
end)

test('setup twice replaces the config and keeps one set of autocmds', function()
  local function count() return #vim.api.nvim_get_autocmds({ group = 'bb7' }) end
  require('bb7').setup({ layout = 'split' })
  local first = count()
  require('bb7').setup({ diff_mode = 'off' })
  eq(first, count())
  eq(true, first > 0)
  local config = require('bb7.config').get()
  eq({ 'tab', 'off' }, { config.layout, config.diff_mode })
end)

test('setup starts no process and loads no pane', function()
  require('bb7').setup({})
  eq('stopped', require('bb7.backend').state())
  local jobs = vim.tbl_filter(function(c) return c.stream == 'job' end, vim.api.nvim_list_chans())
  eq({}, jobs)
  -- The options of the chat view's keys come from their declarations, not the view.
  eq(nil, package.loaded['bb7.chat.keys'])
end)

test('unknown options are named in a warning', function()
  local said = spec.notified(
    function() require('bb7').setup({ provider = { modle = 'x' }, colour = 1 }) end
  )
  eq(1, #said)
  starts('bb7: unknown options ignored: colour, provider.modle', said[1].msg)
  eq(vim.log.levels.WARN, said[1].level)
end)

test('highlight groups are defaults that come back after a colorscheme', function()
  vim.cmd('highlight BB7SignAdded guifg=#ff0000')
  require('bb7').setup({})
  local function get(name) return vim.api.nvim_get_hl(0, { name = name }) end
  eq({ fg = 0xff0000 }, get('BB7SignAdded')) -- the user's wins
  eq({ link = 'Changed', default = true }, get('BB7SignModified'))
  vim.cmd('highlight clear')
  vim.cmd('doautocmd ColorScheme')
  eq({ link = 'Added', default = true }, get('BB7SignAdded'))
end)
