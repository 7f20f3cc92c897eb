-- Renders doc/bb7.txt from scripts/doc_template.txt and the sources of truth: the option
-- schema (lua/bb7/config.lua), the command and <Plug> specs (lua/bb7/commands.lua) and the
-- highlight groups (lua/bb7/highlight.lua).
--   nvim -l scripts/gen_doc.lua            write doc/bb7.txt
--   nvim -l scripts/gen_doc.lua --check    exit 1 if doc/bb7.txt is out of date
local root =
  vim.fn.fnamemodify((debug.getinfo(1, 'S') --[[@as { source: string }]]).source:sub(2), ':p:h:h')
vim.opt.runtimepath:prepend(root)

local WIDTH = 78

local function tag_line(tag) return string.rep(' ', WIDTH - #tag) .. tag end

local function indent(text, prefix)
  local out = (prefix .. text:gsub('\n', '\n' .. prefix)):gsub('[ \t]+\n', '\n')
  return out
end

-- Reflows prose to the help width; paragraphs are separated by blank lines.
local function wrap(text, width)
  local out = {}
  for _, paragraph in ipairs(vim.split(text, '\n\n', { plain = true })) do
    vim.list_extend(out, require('bb7.chat.layout').wrap(paragraph, width))
    table.insert(out, '')
  end
  table.remove(out)
  return table.concat(out, '\n')
end

local function prose(text) return indent(wrap(text, WIDTH - 4), '    ') end

local function show(value)
  if value == nil then return 'nil' end
  return vim.inspect(value, { newline = ' ', indent = '' })
end

-- One help entry per item: `render(item)` returns its tag, heading line and description.
local function entries(items, render)
  local out = {}
  for _, item in ipairs(items) do
    local tag, heading, body = render(item)
    vim.list_extend(out, { tag_line('*' .. tag .. '*'), heading, prose(body), '' })
  end
  return table.concat(out, '\n')
end

local function options()
  return entries(
    require('bb7.config').schema,
    function(option)
      return 'bb7-option-' .. option.name,
        ('`%s`  (default: %s)'):format(option.name, show(option.default)),
        'Should be ' .. option.type.expect .. '.\n\n' .. option.doc
    end
  )
end

local function defaults()
  local text = "require('bb7').setup(" .. vim.inspect(require('bb7.config').defaults()) .. ')'
  return indent(text, '    ')
end

local function commands()
  return entries(
    require('bb7.commands').specs,
    function(spec) return ':' .. spec.name, spec.usage, spec.doc end
  )
end

local function mappings()
  return entries(require('bb7.commands').plugs, function(plug)
    local desc = plug[4]:gsub('^bb7: ', ''):gsub('^%l', string.upper)
    return plug[1], ('%s  (mode %s)'):format(plug[1], plug[2]), desc .. '.'
  end)
end

local function highlights()
  return entries(
    require('bb7.highlight').groups,
    function(group)
      return group[1], ('%s  (default: links to %s)'):format(group[1], group[2].link), group[3]
    end
  )
end

-- The chat view's keys per pane, from lua/bb7/keys.lua and their options.
local function chat_keys()
  local keys = require('bb7.chat.keys')
  local out = {}
  for _, pane in ipairs({ 'conversation', 'input', 'files', 'chats' }) do
    table.insert(
      out,
      ('%s ~'):format(pane == 'chats' and 'Chat list' or pane:gsub('^%l', string.upper))
    )
    for _, key in ipairs(keys.list(pane)) do
      local mode = key[2] == 'i' and ' (Insert mode)' or ''
      table.insert(out, ('  %-10s %s%s'):format(key[1], key[3], mode))
    end
    for _, key in ipairs(keys.native[pane] or {}) do
      table.insert(out, ('  %-10s %s'):format(key[1], key[2]))
    end
    table.insert(out, '')
  end
  return table.concat(out, '\n')
end

local function read(path)
  local file = assert(io.open(path, 'rb'))
  local text = file:read('*a')
  file:close()
  return text
end

local sections = {
  DEFAULTS = defaults,
  OPTIONS = options,
  COMMANDS = commands,
  MAPPINGS = mappings,
  HIGHLIGHTS = highlights,
  CHATKEYS = chat_keys,
}
local rendered = read(root .. '/scripts/doc_template.txt'):gsub(
  '{{(%u+)}}',
  function(name) return (assert(sections[name], name)():gsub('%s+$', '')) end
)

local target = root .. '/doc/bb7.txt'
if vim.tbl_contains(arg, '--check') then
  if read(target) ~= rendered then
    io.stderr:write('doc/bb7.txt is out of date: run nvim -l scripts/gen_doc.lua\n')
    os.exit(1)
  end
  os.exit(0)
end
vim.fn.mkdir(root .. '/doc', 'p')
local file = assert(io.open(target, 'wb'))
file:write(rendered)
file:close()
