-- doc/bb7.txt has a tag for every option, command, Lua function, highlight group, <Plug>
-- mapping and event, and every link to a bb7 tag leads to one (`:helptags` reads them).
local spec = require('spec')
local test, eq = spec.test, spec.eq

--- The tags `:helptags` finds in a copy of doc/, and the help file's text.
---@return table<string, true>, string
local function tags_and_text()
  local doc = vim.fn.tempname()
  vim.fn.mkdir(doc, 'p')
  local lines = vim.fn.readfile(spec.root .. '/doc/bb7.txt')
  vim.fn.writefile(lines, doc .. '/bb7.txt')
  vim.cmd.helptags(vim.fn.fnameescape(doc))
  local tags = {}
  for _, line in ipairs(vim.fn.readfile(doc .. '/tags')) do
    tags[line:match('^[^\t]+')] = true
  end
  return tags, table.concat(lines, '\n')
end

--- The names of `list` that are not in `tags`, sorted.
local function untagged(list, tags)
  local out = vim.tbl_filter(function(name) return not tags[name] end, list)
  table.sort(out)
  return out
end

test('there is a tag for every option, command, function, group, mapping and event', function()
  local tags = tags_and_text()
  local expected = { 'BB7StatusChanged', 'BB7RequestStarted', 'BB7ResponseDone', 'b:bb7_status' }
  for _, option in ipairs(require('bb7.config').schema) do
    table.insert(expected, 'bb7-option-' .. option.name)
  end
  for name in pairs(vim.api.nvim_get_commands({})) do
    if name:match('^BB7') then table.insert(expected, ':' .. name) end
  end
  for name, value in pairs(require('bb7')) do
    if type(value) == 'function' then table.insert(expected, 'bb7.' .. name .. '()') end
  end
  for _, group in ipairs(require('bb7.highlight').groups) do
    table.insert(expected, group[1])
  end
  for _, plug in ipairs(require('bb7.commands').plugs) do
    table.insert(expected, plug[1])
  end
  eq(true, #expected > 60, 'names to look for')
  eq({}, untagged(expected, tags))
end)

test('every link to a bb7 help tag leads somewhere', function()
  local tags, text = tags_and_text()
  local links = {}
  for link in text:gmatch('|([^|%s]+)|') do
    if link:find('bb7') or link:find('BB7') then links[link] = true end
  end
  eq(true, vim.tbl_count(links) > 20, 'links found')
  eq({}, untagged(vim.tbl_keys(links), tags))
end)
