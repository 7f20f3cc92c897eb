--- An nvim-cmp source for bb7's input: after `@`, the live parts (`@diagnostics`, `@diff`,
--- `@terminal`) and the project's paths (the list `ga` shows); confirming one adds that part
--- or file to the chat, as the input's omnifunc does. Available only in
--- the input buffer. Registered as 'bb7' whenever cmp loads (at `setup()` if it is loaded by
--- then, else on cmp's `User CmpReady`: lazy-loaded too); add `{ name = 'bb7' }` to cmp's
--- sources.
-- The plugin calls the source's methods with `:`; they need no state (`_` is the source).
-- The plugin is not in bb7's workspace: its modules are neither resolved nor typed here.
---@diagnostic disable: unresolved-require, undefined-field
local M = {}

local H = { registered = false }

local FILE = vim.lsp.protocol.CompletionItemKind.File
local PART = vim.lsp.protocol.CompletionItemKind.Reference

--- A source object (what `cmp.register_source` takes).
---@return table source
function M.new() return setmetatable({}, { __index = M }) end

--- Registers the source with nvim-cmp once (requires cmp).
function M.register()
  if H.registered then return end
  require('cmp').register_source('bb7', M.new())
  H.registered = true
end

--- Only in the chat view's input; there its menu stands in for the omnifunc's.
---@return boolean
function M.is_available()
  if vim.b.bb7_pane ~= 'input' then return false end
  vim.b.bb7_completion = 'cmp'
  return true
end

--- The name in cmp's debugging output.
---@return string
function M.get_debug_name() return 'bb7' end

---@return string[]
function M.get_trigger_characters() return { '@' } end

--- The path being typed after `@` (the `@` itself stays).
---@return string
function M.get_keyword_pattern() return [[@\zs[^[:space:]@]*]] end

--- The live parts and the project's paths when the cursor follows `@`; cmp filters them.
---@param _ table the source (unused)
---@param params table cmp's `{ context = { cursor_before_line, … }, … }`
---@param callback fun(response: table)
function M.complete(_, params, callback)
  local input = require('bb7.chat.input')
  if not input.path_start(params.context.cursor_before_line) then
    return callback({ items = {}, isIncomplete = false })
  end
  require('bb7.chat.picker').load(function(files)
    local items = {}
    for i, item in ipairs(input.candidates('', files)) do
      local part = item.data.bb7_part ~= nil
      items[i] = {
        label = item.word,
        kind = part and PART or FILE,
        detail = part and 'bb7 live' or 'bb7 add',
        data = item.data,
      }
    end
    callback({ items = items, isIncomplete = false })
  end)
end

--- After cmp inserted the word: adds the file or the live part to the chat.
---@param _ table the source (unused)
---@param item table
---@param callback fun(item: table)
function M.execute(_, item, callback)
  require('bb7.chat.input').accept(item.data)
  callback(item)
end

return M
