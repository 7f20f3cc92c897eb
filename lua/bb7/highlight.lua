--- bb7 highlight groups: defined with `default = true` (a colorscheme or the user wins) and
--- re-applied on `ColorScheme`. The list also feeds the generated help (|bb7-highlights|).
local M = {}
-- Run once at setup: LuaJIT's trace compiler would cost more than it saves on these loops.
if jit then jit.off(true, true) end

---@alias bb7.HighlightGroup [string, vim.api.keyset.highlight, string]

--- { name, definition, description }, in documentation order.
---@type bb7.HighlightGroup[]
M.groups = {}

-- The sign group of each status first, from lua/bb7/presentation.lua's rows.
local rows = require('bb7.presentation')
for _, facts in ipairs(require('bb7.vocab').statuses) do
  local row = rows[facts.status]
  if row then
    local what = ('Sign of `%s` (%s).'):format(facts.status, facts.meaning)
    table.insert(M.groups, { row.hl, { link = row.link }, what })
  end
end

vim.list_extend(M.groups, {
  { 'BB7SignPendingLine', { link = 'Changed' }, "Sign on lines the model's change touches." },
  { 'BB7SignUserLine', { link = 'Comment' }, 'Sign on lines you changed since the snapshot.' },
  { 'BB7ReviewDelete', { link = 'DiffDelete' }, 'Lines a hunk would remove (|:BB7Review|).' },
  { 'BB7ReviewAdd', { link = 'DiffAdd' }, 'Lines a hunk would add (|:BB7Review|).' },
  { 'BB7ReviewHunk', { link = 'Comment' }, 'Label of a hunk (|:BB7Review|).' },
  {
    'BB7InlinePreview',
    { link = 'DiffAdd' },
    'The new lines of an answer streaming under the selection (|:BB7Edit|).',
  },
  {
    'BB7InlineNote',
    { link = 'Comment' },
    "The instruction and the model's words under the selection (|:BB7Edit|).",
  },
  { 'BB7DiffOwn', { link = 'DiagnosticHint' }, 'Your own edits in |:BB7Diff|.' },
  { 'BB7ChatTitle', { link = 'Title' }, "Chat name in the chat view's window bar." },
  { 'BB7ChatUser', { link = 'Title' }, 'Heading of your messages (`## You`).' },
  { 'BB7ChatAssistant', { link = 'Function' }, "Heading of the model's answers." },
  { 'BB7ChatReasoning', { link = 'Comment' }, "The model's reasoning (folded)." },
  { 'BB7ChatEvent', { link = 'Special' }, 'File events (`Assistant modified: src/x.py`).' },
  { 'BB7ChatWarning', { link = 'DiagnosticWarn' }, 'Warnings about files in the chat.' },
  { 'BB7ChatError', { link = 'DiagnosticError' }, 'Errors and aborted answers.' },
  { 'BB7ChatStatus', { link = 'Comment' }, 'Progress line while an answer streams.' },
  { 'BB7ChatTool', { link = 'Special' }, "An agent's tool call: kind, title, status." },
  {
    'BB7ChatQuestion',
    { link = 'DiagnosticWarn' },
    'An agent asking before a tool call, and the keys that answer.',
  },
  {
    'BB7Excluded',
    { link = 'Comment' },
    'A message excluded from future requests (conversation, |:BB7Prompt|).',
  },
  {
    'BB7ChatNew',
    { link = 'DiagnosticInfo' },
    "The conversation's bar when new output is below the cursor.",
  },
  { 'BB7RetryBanner', { link = 'DiagnosticWarn' }, "Banner after an answer's edits failed." },
  { 'BB7FilesDir', { link = 'Directory' }, 'Directories in the files panel.' },
  { 'BB7FilesTokens', { link = 'Comment' }, 'Token counts in the files panel.' },
  { 'BB7CheckPassed', { link = 'DiagnosticOk' }, 'Checks that passed (|bb7-checks|).' },
  {
    'BB7CheckFailed',
    { link = 'DiagnosticError' },
    'Checks that failed, timed out or could not run.',
  },
  { 'BB7CheckRunning', { link = 'DiagnosticInfo' }, 'Checks running, or not run yet.' },
  { 'BB7ChatActive', { link = 'Special' }, 'The active chat in the chat list.' },
  { 'BB7ChatHeld', { link = 'Comment' }, 'A chat another Neovim holds, in the chat list.' },
  { 'BB7HelpKey', { link = 'Special' }, "Keys in the chat view's help popup." },
})

--- Defines every group (`default = true`: a colorscheme's own definition wins).
function M.apply()
  for _, group in ipairs(M.groups) do
    ---@type vim.api.keyset.highlight
    local definition = { default = true } -- by hand: vim.tbl_extend costs more than the call
    for k, v in pairs(group[2]) do
      definition[k] = v
    end
    vim.api.nvim_set_hl(0, group[1], definition)
  end
end

return M
