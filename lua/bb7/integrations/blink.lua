--- A blink.cmp source for bb7's input: after `@`, the live parts (`@diagnostics`, `@diff`,
--- `@terminal`) and the project's paths (the list `ga` shows); accepting one adds that part or
--- file to the chat, as the input's omnifunc does. Enabled only in
--- the input buffer. In blink's options: `sources.providers.bb7 = { name = 'bb7', module =
--- 'bb7.integrations.blink' }`, and 'bb7' in `sources.default` (or per filetype: markdown).
-- The plugin calls the source's methods with `:`; they need no state (`_` is the source).
local M = {}

local FILE = vim.lsp.protocol.CompletionItemKind.File
local PART = vim.lsp.protocol.CompletionItemKind.Reference

--- blink calls `new(opts)` once per provider.
---@return table source
function M.new() return setmetatable({}, { __index = M }) end

--- Only in the chat view's input; there its menu stands in for the omnifunc's.
---@return boolean
function M.enabled()
  if vim.b.bb7_pane ~= 'input' then return false end
  vim.b.bb7_completion = 'blink'
  return true
end

---@return string[]
function M.get_trigger_characters() return { '@' } end

--- The live parts whose word starts with what follows the `@` before the cursor, then the
--- project's paths that match it whole (fuzzy, best first), each replacing what was typed
--- after the `@`. blink filters again on its keyword, which
--- stops at `/` and `.` (`file3` of `@pkg42/sub/file3`): only paths that match the whole path
--- may reach it, or it would offer, and accept, `pkg00/sub/file30.txt`. The list is
--- incomplete both ways, so blink asks again as the path grows or shrinks.
---@param _ table the source (unused)
---@param ctx table blink's context (`line`, `cursor` = { row, 0-based byte column })
---@param callback fun(response: table)
function M.get_completions(_, ctx, callback)
  local row, col = ctx.cursor[1], ctx.cursor[2]
  local before = ctx.line:sub(1, col)
  local start = require('bb7.chat.input').path_start(before)
  if not start then return callback({ items = {} }) end
  local typed = before:sub(start + 1)
  require('bb7.chat.picker').load(function(files)
    local range = {
      start = { line = row - 1, character = start },
      ['end'] = { line = row - 1, character = col },
    }
    local items = {}
    for i, item in ipairs(require('bb7.chat.input').candidates(typed, files, true)) do
      local part = item.data.bb7_part ~= nil
      items[i] = {
        label = item.word,
        kind = part and PART or FILE,
        labelDetails = { description = part and 'bb7 live' or 'bb7 add' },
        -- Ties in blink's own score keep this order (its sorts: score, then sortText).
        sortText = ('%06d'):format(i),
        textEdit = { newText = item.word, range = range },
        data = item.data,
      }
    end
    callback({ items = items, is_incomplete_forward = true, is_incomplete_backward = true })
  end)
end

--- After blink inserted the word: adds the file or the live part to the chat.
---@param _ table the source, then blink's context (both unused)
---@param item table
---@param callback fun()
---@param default_implementation fun()
function M.execute(_, _, item, callback, default_implementation)
  default_implementation()
  require('bb7.chat.input').accept(item.data)
  callback()
end

return M
