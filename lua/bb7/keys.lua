--- Every key bb7 maps in its own buffers (the chat view's panes and its chat list, a reviewed
--- buffer), declared once: name, default, where it applies, mode and description. Data only:
--- `bb7.config` makes a `keys.<name>` option of each (|bb7-config|) without loading any pane;
--- `bb7.chat.keys` maps the chat view's to their actions, `bb7.review` the review's. Each
--- mapping's desc is its description, so which-key, `:map`, the `?` help popup and the help
--- file all say the same. No global mapping by default: a key of `editor` (every buffer) is
--- mapped by `setup()` only when its option names one.
local M = {}
-- Run once at setup: LuaJIT's trace compiler would cost more than it saves on these loops.
if jit then jit.off(true, true) end

local VIEW = { 'conversation', 'input', 'files' }
local EVERYWHERE = { 'conversation', 'input', 'files', 'chats' }

---@class bb7.KeySpec
---@field name string the option name (`keys.<name>`)
---@field default string|false
---@field panes string[] where it applies: chat view panes, `chats`, `review`, or `editor`
---@field mode 'n'|'i'|'x'
---@field desc string what the key does (mapping desc, help popup, help file)
---@field rhs? string what a key of `editor` runs

---@param name string
---@param default string|false
---@param panes string[]
---@param mode 'n'|'i'|'x'
---@param desc string
---@return bb7.KeySpec
local function key(name, default, panes, mode, desc)
  return { name = name, default = default, panes = panes, mode = mode, desc = desc }
end

--- A key of a reviewed buffer: no chat-view pane; `bb7.review` maps it and runs it.
---@param name string
---@param default string
---@param desc string
---@return bb7.KeySpec
local function review(name, default, desc) return key(name, default, { 'review' }, 'n', desc) end

--- A key of every buffer: unmapped unless its option names one; `rhs` is what it runs.
---@param name string
---@param mode 'n'|'x'
---@param rhs string
---@param desc string
---@return bb7.KeySpec
local function editor(name, mode, rhs, desc)
  local spec = key(name, false, { 'editor' }, mode, desc)
  spec.rhs = rhs
  table.insert(M.editor, spec)
  return spec
end

--- The keys of `editor` among `specs`, which `setup()` maps without walking them all.
---@type bb7.KeySpec[]
M.editor = {}

--- In help order.
---@type bb7.KeySpec[]
M.specs = {
  key('send', '<CR>', { 'input' }, 'n', 'send the message (normal mode, input buffer)'),
  key('send_insert', '<C-s>', { 'input' }, 'i', 'send the message from insert mode'),
  key('cancel', '<C-c>', VIEW, 'n', 'cancel the streaming response'),
  key('resend', 'gr', VIEW, 'n', 'send your last message again (after an error or a cancel)'),
  key(
    'dismiss_retry',
    'gR',
    VIEW,
    'n',
    "dismiss the retry banner: the failed edits' errors are not sent"
  ),
  key('help', '?', EVERYWHERE, 'n', 'show the keys of the current bb7 buffer'),
  key('close', 'q', VIEW, 'n', 'close the chat view'),
  key('next_pane', '<Tab>', VIEW, 'n', 'go to the next pane of the chat view'),
  -- BB-7's pane numbers: 1 chats, 2 files, 3 info, 4 the conversation, 5 the input.
  key('pane_chats', 'g1', VIEW, 'n', 'list the chats (pane 1 of BB-7)'),
  key('pane_files', 'g2', VIEW, 'n', 'go to the files panel (pane 2)'),
  key('pane_info', 'g3', VIEW, 'n', "show the chat's project, files, model and totals (pane 3)"),
  key('pane_conversation', 'g4', VIEW, 'n', 'go to the conversation (pane 4)'),
  key('pane_input', 'g5', VIEW, 'n', 'go to the input (pane 5)'),
  key('scroll_down', '<C-d>', { 'input' }, 'n', 'scroll the conversation half a page down'),
  key('scroll_up', '<C-u>', { 'input' }, 'n', 'scroll the conversation half a page up'),
  key(
    'focus_input',
    'i',
    { 'conversation', 'files' },
    'n',
    'go to the input and type (the conversation is read-only)'
  ),
  key('chats', 'gl', VIEW, 'n', 'list the chats (switch, rename, delete, pin, search)'),
  key('new_chat', 'gn', EVERYWHERE, 'n', 'start a new chat'),
  key(
    'new_chat_context',
    'gN',
    { 'conversation', 'input' },
    'n',
    "start a new chat with this chat's context (files afresh, model, effort; no history)"
  ),
  key(
    'usage',
    'gC',
    { 'conversation', 'input' },
    'n',
    'show what today and this chat cost, and the credit left'
  ),
  key('model', 'gm', VIEW, 'n', "choose the chat's model"),
  key('add_file', 'ga', VIEW, 'n', 'pick project files to add to the context'),
  key(
    'prompt',
    'gP',
    { 'conversation', 'input' },
    'n',
    'list every part of the next request with tokens and $ (|:BB7Prompt|)'
  ),
  key(
    'add_requested',
    'gA',
    { 'conversation', 'input' },
    'n',
    'add the files the last answer asks for, read-only, and send them in a new message'
  ),
  key(
    'add_requested_writable',
    'gW',
    { 'conversation', 'input' },
    'n',
    'add the files the last answer asks for, writable, and send them in a new message'
  ),
  key('reasoning', 'ge', VIEW, 'n', "choose the chat's reasoning effort"),
  key(
    'fork',
    'gF',
    { 'conversation' },
    'n',
    'fork the chat from the user message under the cursor'
  ),
  key(
    'edit_message',
    'gE',
    { 'conversation' },
    'n',
    'edit the user message under the cursor (drops what follows)'
  ),
  key(
    'exclude',
    'gX',
    { 'conversation' },
    'n',
    'exclude the message under the cursor from future requests, your message with its answer '
      .. '(it stays here, dimmed); again: include it'
  ),
  key(
    'compact',
    'gK',
    { 'conversation' },
    'n',
    'compact the chat: the model summarizes all but the last 4 turns into one summary'
  ),
  key(
    'next_change',
    '<C-n>',
    VIEW,
    'n',
    'show the diff of the next file with a pending change (files panel order)'
  ),
  key(
    'prev_change',
    '<C-p>',
    VIEW,
    'n',
    'show the diff of the previous file with a pending change'
  ),
  key('next_message', ']]', { 'conversation' }, 'n', 'go to the next message'),
  key('prev_message', '[[', { 'conversation' }, 'n', 'go to the previous message'),
  key('next_user', ']u', { 'conversation' }, 'n', 'go to your next message'),
  key('prev_user', '[u', { 'conversation' }, 'n', 'go to your previous message'),
  key(
    'latest',
    'G',
    { 'conversation' },
    'n',
    'go to the end of the conversation (the newest answer), following it again'
  ),
  key(
    'message_info',
    'K',
    { 'conversation' },
    'n',
    'show when the message under the cursor was sent, its model and effort, tokens, cost, time;'
      .. " on the first line, the chat's project, files, model and totals"
  ),

  key(
    'run_checks',
    false,
    VIEW,
    'n',
    "run the project's checks on the pending change (|:BB7Check|; no key by default: `gT`, "
      .. "the previous tab page, stays Vim's)"
  ),
  key(
    'check_output',
    'gO',
    VIEW,
    'n',
    "show the failing checks' output, their file:line:col in the quickfix list"
  ),
  key(
    'fix_checks',
    'gM',
    VIEW,
    'n',
    "ask the model to make the checks pass (the last run's failures go with it)"
  ),
  key('apply', 'p', { 'files' }, 'n', 'apply the pending output of the file under the cursor'),
  key('apply_all', 'P', { 'files' }, 'n', 'apply every pending output (conflicts are skipped)'),
  key('discard', 'x', { 'files' }, 'n', 'discard the pending output under the cursor'),
  key('diff', 'd', { 'files' }, 'n', 'show the pending change as a diff'),
  key('vimdiff', 'D', { 'files' }, 'n', 'merge the pending change in vimdiff (|:BB7Diff|)'),
  key(
    'review',
    'R',
    { 'files' },
    'n',
    'review the pending change of the file under the cursor inline (|:BB7Review|)'
  ),
  key(
    'merge',
    'M',
    { 'files' },
    'n',
    'merge the pending change under the cursor over your edits (|:BB7Merge|)'
  ),
  key('update', 'u', { 'files' }, 'n', 'update the snapshot from the local file'),
  key('update_all', 'U', { 'files' }, 'n', 'update every snapshot from the local files'),
  key('toggle_readonly', 'r', { 'files' }, 'n', 'toggle read-only for the file under the cursor'),
  key('remove', 'X', { 'files' }, 'n', 'remove the file under the cursor from the context'),
  key('open_file', '<CR>', { 'files' }, 'n', 'open the file under the cursor'),
  key('select_chat', '<CR>', { 'chats' }, 'n', 'switch to the chat under the cursor (chat list)'),
  key('rename_chat', 'r', { 'chats' }, 'n', 'rename the chat under the cursor (chat list)'),
  key('delete_chat', 'd', { 'chats' }, 'n', 'delete the chat under the cursor (chat list)'),
  key('pin_chat', 'p', { 'chats' }, 'n', 'pin or unpin the chat under the cursor (chat list)'),
  key(
    'retitle_chat',
    'R',
    { 'chats' },
    'n',
    'name the chat under the cursor again after its first message (chat list)'
  ),
  key(
    'move_chat',
    'm',
    { 'chats' },
    'n',
    'move the chat under the cursor between the project and global chats'
  ),
  key(
    'search_chats',
    '/',
    { 'chats' },
    'n',
    'search the chats by name and message text (chat list)'
  ),
  -- While reviewing a buffer (|:BB7Review|): `bb7.review` maps these in that buffer only.
  review('review_next', ']h', 'go to the next hunk (review)'),
  review('review_prev', '[h', 'go to the previous hunk (review)'),
  review('review_accept', 'ga', 'accept the hunk under the cursor into the buffer (review)'),
  review(
    'review_amend',
    'gm',
    "edit the hunk under the cursor's new lines, then accept them as edited (review)"
  ),
  review('review_reject', 'gr', 'reject the hunk under the cursor, with a reason (review)'),
  review('review_accept_all', 'gA', 'accept every hunk (review)'),
  review('review_reject_all', 'gR', 'reject every hunk, with a reason (review)'),
  review('review_quit', 'q', 'end the review (review)'),
  -- In any buffer, in Visual mode: `setup()` maps it when set.
  editor(
    'inline_edit',
    'x',
    ':BB7Edit<CR>',
    'edit the selected lines in place: asks what to change (|:BB7Edit|; Visual mode, no key by '
      .. 'default)'
  ),
}

return M
