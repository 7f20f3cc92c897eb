--- Every bb7 command and `<Plug>` mapping, declared once: `plugin/bb7.lua` defines them from
--- `M.specs`/`M.plugs` and `scripts/gen_doc.lua` documents them. A command only gathers its
--- arguments and sends them to the host; the host decides. Nothing heavy is required at load.
local M = {}

local backend = require('bb7.util').backend
local function buffers(path) return require('bb7.buffer').for_request(path) end
local notify = require('bb7.util').notify

-- A mistake in how a command was called: shown as a message, not a Lua error.
local Usage = {}
local function usage(message) error(setmetatable({ message = message }, Usage), 0) end

--- Shows errors; shows `value.message` when the host sends one back. An open chat view is
--- drawn again (with `refresh`'s options): the command is an event in its conversation.
---@param err? bb7.Problem
---@param value any
---@param refresh? { create?: boolean }
local function answer(err, value, refresh)
  if err then return backend().report(err) end
  if type(value) == 'table' and type(value.message) == 'string' then notify(value.message) end
  local view = package.loaded['bb7.chat']
  if view and view.is_open() then view.refresh(refresh) end
end

--- The absolute path an optional `[path]` argument names (default: the current buffer's file).
local function target(opts)
  local arg = opts.fargs[1]
  local path = arg and vim.fn.expand(arg) --[[@as string]] or vim.api.nvim_buf_get_name(0)
  if path == '' then usage('no file: give a path, or run the command from a file buffer') end
  return vim.fn.fnamemodify(path, ':p')
end

local function path_request(method)
  return function(opts)
    local path = target(opts)
    backend().request(method, { path = path, buffers = buffers(path) }, answer)
  end
end

--- What `:BB7Add`'s arguments name, as the host takes them (`PATH[:START-END]`, directories,
--- globs): `buffers` and `quickfix [sections]` are gathered here (`true` third: what cannot
--- be added is skipped), the rest goes as typed (`%`, `~` and `$VAR` expanded; wildcards are
--- the host's).
local function add_specs(opts)
  local args, add = opts.fargs, require('bb7.add')
  if args[1] == 'buffers' and #args == 1 then
    return add.buffers(), 'no listed file buffers', true
  end
  if args[1] == 'quickfix' and (#args == 1 or (#args == 2 and args[2] == 'sections')) then
    return add.quickfix(args[2] == 'sections'), 'the quickfix list names no readable file', true
  end
  if opts.range > 0 then
    if #args > 1 then usage('a range takes one file') end
    return { ('%s:%d-%d'):format(target(opts), opts.line1, opts.line2) }
  end
  if #args == 0 then return { target(opts) } end
  return vim.tbl_map(function(arg) return vim.fn.expandcmd(arg) end, args)
end

local function add(readonly)
  return function(opts)
    -- In the chat view, no path means: pick one of the project's files.
    if not opts.fargs[1] and opts.range == 0 and vim.b.bb7_pane then
      return require('bb7.chat').pick_file()
    end
    local live = require('bb7.live')
    if opts.fargs[1] and opts.range == 0 and live.is_word(opts.fargs[1]) then
      if readonly then usage('a live part is always read-only: use :BB7Add') end
      return live.add(opts.fargs, function(err, said) answer(err, said) end)
    end
    local specs, none, gathered = add_specs(opts)
    if #specs == 0 then usage(none) end
    local function done(err, message) answer(err, message and { message = message }) end
    require('bb7.add').paths(specs, readonly, done, gathered)
  end
end

-- What may follow a live part's word in `:BB7Add`.
local PART_ARGS = { diagnostics = { 'all' }, diff = { '--staged' } }

--- Completion of `:BB7Add`: files, and the words `buffers`, `quickfix` and the live parts
--- first.
local function add_complete(lead, line)
  local words = vim.split(line, '%s+', { trimempty = true })
  local first = #words == 1 or (#words == 2 and lead ~= '')
  local out = {}
  local offered = first and { 'buffers', 'quickfix', unpack(require('bb7.live').WORDS) } or {}
  if not first and #words <= 3 then offered = PART_ARGS[words[2]] or {} end
  for _, word in ipairs(offered) do
    if vim.startswith(word, lead) then table.insert(out, word) end
  end
  if words[2] == 'quickfix' and #words <= 3 and vim.startswith('sections', lead) then
    table.insert(out, 'sections')
  end
  return vim.list_extend(out, vim.fn.getcompletion(lead, 'file'))
end

local PENDING = require('bb7.vocab').pending

--- Completion of files in the active chat (from the status cache, never the host).
local function context_files(filter)
  return function(lead)
    local out = {}
    for path, entry in pairs(require('bb7.status').files()) do
      local rel = vim.fn.fnamemodify(path, ':.')
      if (not filter or filter[entry.status]) and vim.startswith(rel, lead) then
        table.insert(out, rel)
      end
    end
    table.sort(out)
    return out
  end
end

local function registers(lead)
  local out = {}
  for reg in ('"+*0123456789abcdefghijklmnopqrstuvwxyz-'):gmatch('.') do
    if vim.startswith(reg, lead) then table.insert(out, reg) end
  end
  return out
end

--- Completion of `:BB7Agent`: the agents whose command is found.
local function agent_names(lead)
  return vim.tbl_filter(
    function(name) return vim.startswith(name, lead) end,
    require('bb7.agents').found()
  )
end

local function models(lead)
  local ids = require('bb7.chat.models').ids
  return vim.tbl_filter(function(m) return vim.startswith(m, lead) end, ids)
end

local function paste(opts)
  local reg = opts.fargs[1]
  -- Without a clipboard tool (a server over SSH) reading `+` prints "clipboard: No provider",
  -- a second line that waits for Enter: the unnamed register (a yank in Neovim) then.
  local clipboard = vim.fn.has('clipboard') == 1
  if reg and reg:match('^[+*]$') and not clipboard then
    usage(('register %s needs a clipboard provider (:checkhealth provider)'):format(reg))
  end
  local text = ''
  for _, r in ipairs(reg and { reg } or clipboard and { '+', '"' } or { '"' }) do
    local ok, value = pcall(vim.fn.getreg, r)
    if ok and type(value) == 'string' and value ~= '' then
      text = value
      break
    end
  end
  if text == '' then
    local from = reg or (clipboard and '+' or '"')
    usage(('register %s is empty: copy the model response first'):format(from))
  end
  backend().request('paste', { text = text, buffers = buffers() }, answer)
end

local function open_log(opts)
  local prompts = opts.fargs[1] == 'prompts'
  if opts.fargs[1] and not prompts then
    usage(('unknown log %s: use prompts'):format(opts.fargs[1]))
  end
  local log = require('bb7.log')
  local path = prompts and log.prompts_path() or log.path()
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  if vim.fn.filereadable(path) == 0 then vim.fn.writefile({}, path) end
  vim.cmd('tab split ' .. vim.fn.fnameescape(path))
  vim.bo.autoread = true
  if prompts and not require('bb7.config').get().log_prompts then
    notify('the prompt log is off: setup({ log_prompts = true }) keeps one', 'warn')
  elseif not prompts and log.level() == 'off' then
    notify("logging is off (log_level = 'off'): nothing new is written here", 'warn')
  end
end

--- { name, usage, desc, doc, run, nargs?, bang?, range?, complete? }
M.specs = {
  {
    name = 'BB7Init',
    usage = ':BB7Init',
    desc = 'bb7: start using bb7 in this project (creates .bb7/)',
    doc = [[Creates `.bb7/` (the project's chats and pending outputs) in the
current working directory.]],
    -- An open view showed a global chat: it shows the new project's, its first chat started
    -- as `:BB7Chat` starts it (else the view's redraw says, twice, that there is none).
    run = function()
      backend().request(
        'init',
        { root = vim.fn.getcwd() },
        function(err, value) answer(err, value, { create = true }) end
      )
    end,
  },
  {
    name = 'BB7Chat',
    usage = ':BB7Chat[!]',
    bang = true,
    desc = 'bb7: toggle the chat view (! takes the chat over from another Neovim)',
    doc = [[Opens the chat view of the active chat (|bb7-chat|), or closes it.
The project's first chat starts here when it has none. A chat another
Neovim holds opens read-only, its input bar naming that process; with !
the chat is taken over (asked first while that process still runs).]],
    run = function(opts)
      if opts.bang then return require('bb7.chat').take() end
      require('bb7.chat').toggle()
    end,
  },
  {
    name = 'BB7NewChat',
    usage = ':BB7NewChat[!] [name]',
    nargs = '?',
    bang = true,
    desc = 'bb7: start a new chat and make it active (! with the same context)',
    doc = [[Starts a new chat (named [name], or titled after its first exchange)
and makes it the active chat. With ! the new chat gets the active chat's
context (whole files read afresh, read-only as they were), model and
reasoning effort, and none of its history.]],
    run = function(opts)
      local args = { name = opts.fargs[1], same_context = opts.bang }
      backend().request('new_chat', args, answer)
    end,
  },
  {
    name = 'BB7Add',
    usage = ':[range]BB7Add [path...]',
    nargs = '*',
    range = true,
    complete = add_complete,
    desc = 'bb7: add files, directories, globs or a section to the chat context',
    doc = [[Adds each [path] (default: the current file) to the context of the
active chat, writable: the model may propose changes to it. A [path] may be
a directory (its files, recursively), a glob (`src/**/*.py`; `**` spans
directories) or `path:START-END`, a read-only section of those lines; with
a [range], the current file's lines. A directory or glob skips files git
ignores, hidden and binary ones, images and those `.bb7/ignore` names
(gitignore syntax; the picker and `@` skip them too, and so does a symlink
that leads into them); it leaves out, and says so, files a symlink leads
out of the project (a file outside is added only when you name it); it
asks first, with the file count and tokens, when it adds more than 20 files
or 30k tokens. An image named (`:BB7Add shot.png`: PNG, JPEG, GIF or WebP,
at most 5 MB and 8000 pixels a side) is added read-only and sent as an image
to a model that reads images; its tokens are the provider's estimate (about
a thousand for a screenshot). A model that reads none refuses to send it.
`:BB7Add buffers` adds the listed file buffers, `:BB7Add quickfix` the
quickfix list's files (`:BB7Add quickfix sections`: each entry's lines as
a section). `:BB7Add diagnostics [all]`, `:BB7Add diff [--staged|REF]`
and `:BB7Add terminal [NAME]` add a live part, read again at each send
(|bb7-live-parts|); `./diff` names a file called diff. A file that looks like a secret (`.env*`, `*.pem`, `*.key`,
`id_rsa*`, a private key, an AWS or `sk-` API key inside) is added only
after you say so. Adding a file already there refreshes it. The paths you
name are added all or none; of a directory, a glob, `buffers` or `quickfix`
what can be added is, and the message names what was skipped and why
(`skipped .bb7/instructions (bb7's own)`). Without [path] in the chat view, picks project files (git-tracked
first) in the `picker` option's picker, several at once in telescope,
fzf-lua or snacks.]],
    run = add(false),
  },
  {
    name = 'BB7PasteImage',
    usage = ':BB7PasteImage',
    nargs = 0,
    desc = "bb7: add the system clipboard's image to the chat context",
    doc = [[Adds the image on the system clipboard (a screenshot you just took) to
the active chat as `clipboard-<date>-<time>.png`, read-only, like an image
file added with |:BB7Add|. The image comes through `wl-paste` (Wayland),
`xclip` (X11) or `pngpaste` (macOS), whichever is installed; without one,
or without an image on the clipboard, it says so in one line.]],
    run = function() backend().request('paste_image', { buffers = buffers() }, answer) end,
  },
  {
    name = 'BB7AddReadonly',
    usage = ':[range]BB7AddReadonly [path...]',
    nargs = '*',
    range = true,
    complete = add_complete,
    desc = 'bb7: add files to the chat context, read-only',
    doc = [[Like |:BB7Add|, but the model may only read the files.]],
    run = add(true),
  },
  {
    name = 'BB7Remove',
    usage = ':BB7Remove [path]',
    nargs = '?',
    complete = context_files(),
    desc = 'bb7: remove a file from the chat context',
    doc = [[Removes [path] (default: the current file) from the context.]],
    run = path_request('remove'),
  },
  {
    name = 'BB7Apply',
    usage = ':BB7Apply[!] [path]',
    nargs = '?',
    bang = true,
    complete = context_files(PENDING),
    desc = 'bb7: apply the pending change of a file (! over local changes)',
    doc = [[Writes the pending output of [path] (default: the current file) to the
file, through its buffer when it is loaded (undo kept). Local edits on other
lines are kept: the change is rebased onto them (the status stays `M`). Local
edits of the changed lines (`~M`) are refused with a message: |:BB7Merge| keeps both,
`:BB7Apply!` applies over them (undo with |:BB7UndoApply|), |:BB7Review|
and |:BB7Diff| take hunks by hand.]],
    run = function(opts)
      local path = target(opts)
      local args = { path = path, force = opts.bang, buffers = buffers(path) }
      backend().request('apply', args, answer)
    end,
  },
  {
    name = 'BB7ApplyAll',
    usage = ':BB7ApplyAll',
    desc = 'bb7: apply every pending change (conflicts are skipped)',
    doc = [[Applies every pending output of the active chat; conflicts (`~M`) are
skipped and listed.]],
    run = function() backend().request('apply_all', { buffers = buffers() }, answer) end,
  },
  {
    name = 'BB7Discard',
    usage = ':BB7Discard [path]',
    nargs = '?',
    complete = context_files(PENDING),
    desc = 'bb7: discard the pending change of a file',
    doc = [[Drops the pending output of [path] (default: the current file); the
file is not touched.]],
    run = path_request('discard'),
  },
  {
    name = 'BB7Check',
    usage = ':BB7Check[!] [path]',
    nargs = '?',
    bang = true,
    complete = context_files(PENDING),
    desc = "bb7: run the project's checks on the pending change (! shows the last failures)",
    doc = [[Runs the project's checks (|bb7-checks|) on a throwaway copy of the
project with the active chat's pending outputs applied (only [path]'s when
given); the project is never touched and the editor does not wait: the
verdict comes beside the statuses, in the conversation and as
`User BB7CheckDone`. With ! runs nothing: shows the last run's failing
output in a float and puts its file:line:col lines in the quickfix list
(a pending file's at its pending text).]],
    run = function(opts)
      if opts.bang then return require('bb7.checks').show() end
      require('bb7.checks').run(opts.fargs[1] and target(opts) or nil)
    end,
  },
  -- Reviewing and merging in the editor (lua/bb7/review.lua).
  {
    name = 'BB7Review',
    usage = ':BB7Review [path]',
    nargs = '?',
    complete = context_files(PENDING),
    desc = 'bb7: review the pending change inline, hunk by hunk',
    doc = [[The first way to review: draws the pending change of [path] (default:
the current buffer; a path is opened first) in place, without changing the
buffer's text: the lines a hunk would replace are highlighted
(|BB7ReviewDelete|), its new lines shown below them as virtual lines
(|BB7ReviewAdd|). Your own unsaved edits are never hunks. Keys in that
buffer while reviewing (|bb7-option-keys.review_next| and following; the
window's 'winbar' shows them, and the hunk under the cursor, until the review
ends and gives the bar back):
`]h` / `[h` next and previous hunk, `ga` accepts the hunk under the cursor
(its lines go into the buffer as one undo step; nothing is written to disk;
the other hunks stay pending), `gr` rejects it (dropped from the pending
change; the next request tells the model), `gA` / `gR` all hunks, `q` (or
:BB7Review again) ends the review. When no hunk is left the review ends and
says so; |:w| writes what you accepted. An edit that matches several places shows one hunk per
place (see |bb7-review-choose|).]],
    run = function(opts)
      local path = opts.fargs[1] and target(opts) or nil
      require('bb7.review').toggle(path)
    end,
  },
  {
    name = 'BB7Merge',
    usage = ':BB7Merge [path]',
    nargs = '?',
    complete = context_files(PENDING),
    desc = 'bb7: merge the pending change over your local edits',
    doc = [[Three-way merge of the snapshot the model saw, your local text (the
buffer, unsaved edits included) and the pending change of [path] (default:
the current buffer), into the buffer as one undo step (|u| takes it back;
|:w| writes it). Changes on different lines are all kept. Where your edits
and the model's change the same lines nothing is guessed and no conflict
markers are written: those hunks stay pending and open in |:BB7Review|,
with a message naming their lines. The CLI's `bb7 output apply --merge` is
the same merge, on the file.]],
    run = function(opts)
      local path = opts.fargs[1] and target(opts) or nil
      require('bb7.review').merge(path)
    end,
  },
  {
    name = 'BB7Diff',
    usage = ':BB7Diff [path]',
    nargs = '?',
    complete = context_files(PENDING),
    desc = 'bb7: merge the pending change of a file in vimdiff',
    doc = [[Opens the local file beside its pending output (read-only; rebased onto
your own edits, so those never show as undone) in a diff tab: use |]c|,
|[c|, |do| and |dp|. Closing the tab (or `q` in the output
window) records what was merged: all of it (the change is applied), part
(the rest stays pending and the next :BB7Diff shows only that) or nothing.
The file is not written: hunks you took stay in the buffer, modified, like
any Vim diff; |:w| writes them.]],
    run = function(opts)
      local path = target(opts)
      backend().request('diff', { path = path, buffers = buffers(path) }, function(err, view)
        if err then return backend().report(err) end
        require('bb7.diff').open(view)
      end)
    end,
  },
  {
    name = 'BB7Cancel',
    usage = ':BB7Cancel',
    desc = 'bb7: cancel the streaming response',
    doc = [[Stops the response being streamed; its partial text is kept, no
partial edit is committed. In an agent chat, sends `session/cancel`: the
agent ends its turn (it is stopped if it has not 10 s later); what it
wrote stays pending.]],
    run = function()
      if not backend().is_ready() then return notify('nothing to cancel') end
      backend().notify('cancel', vim.empty_dict())
    end,
  },
  {
    name = 'BB7Agent',
    usage = ':BB7Agent [name]',
    nargs = '?',
    complete = agent_names,
    desc = 'bb7: open a chat with an agent (ACP) that edits through bb7',
    doc = [[Opens the chat view on a chat with the agent [name] (one of the
`agents` of |bb7-agents| whose command is found): the active chat when it
is that agent's, else a new one. Without [name]: the active chat's agent,
else the first agent found. What you send goes to the agent, started over
the Agent Client Protocol; its file changes wait in bb7's sandbox for your
review, and what it writes to disk itself becomes an apply you review
(|:BB7Review|) or undo (|:BB7UndoApply|). |:BB7Cancel| cancels its turn.]],
    run = function(opts) require('bb7.chat').agent(opts.fargs[1]) end,
  },
  {
    name = 'BB7Edit',
    usage = ':[range]BB7Edit [instruction]',
    nargs = '*',
    range = true,
    desc = 'bb7: edit the selected lines (or the block under the cursor) in place',
    doc = [[Sends the lines of [range] (`:'<,'>BB7Edit` in Visual mode), their
file and [instruction] to the model in the project's inline chat (one per
project, `Inline edits` in the chat list; it becomes the active chat), and
shows the answer as it streams under the lines: virtual lines, nothing in
the buffer. Without [instruction] it is asked for. Without [range]: the
function or block under the cursor, found by tree-sitter where the buffer
has a parser (Neovim's own for Lua, C, Vimscript and help files; others
with nvim-treesitter), else the paragraph. When the answer ends its change
is a pending change like any other, and |:BB7Review| opens on it at once
in that window: `ga`, `gr` and `gm` as for any change, `q` leaves it
pending. Each edit is sent on its own: the chat's earlier edits stay in it,
left out of requests (as `gX` leaves a message out), and only the file
edited goes along (with the files whose change is still pending). A file
whose earlier inline edit is pending is refused until it is reviewed.
|:BB7Cancel| stops the answer (its preview goes, nothing is pending).
|bb7-option-keys.inline_edit| maps a key in Visual mode (none by default);
`<Plug>(bb7-edit)` is there to map too.]],
    run = function(opts)
      local buf = vim.api.nvim_get_current_buf()
      if vim.bo[buf].buftype ~= '' or vim.api.nvim_buf_get_name(buf) == '' then
        usage('no file here: :BB7Edit edits the lines of a file')
      end
      local inline = require('bb7.inline')
      local first, last = opts.line1, opts.line2
      if opts.range == 0 then
        first, last = inline.block(buf, vim.api.nvim_win_get_cursor(0)[1] - 1)
        if not first or not last then usage('no block under the cursor: select the lines') end
      end
      inline.edit(buf, first, last, vim.trim(opts.args))
    end,
  },
  {
    name = 'BB7Compact',
    usage = ':BB7Compact [N]',
    nargs = '?',
    -- Turns to keep: a few counts to start from.
    complete = function() return { '2', '4', '8' } end,
    desc = 'bb7: summarize all but the last N turns of the chat into one summary',
    doc = [[Has the chat's model summarize the messages before the last [N] turns
(default 4; a turn is your message and its answer) into one summary, which
future requests send in their place: every file path, decision and rejected
approach named in them is kept. The messages stay in the conversation,
dimmed and excluded as `gX` leaves them out; the summary is one block where
it was made, and requests send it where the first of them was. `gX` on the summary sends those messages again instead
(again: the summary). `gK` in the conversation does the same as this
command. Near the model's context limit the input's bar offers it.]],
    run = function(opts)
      local keep = opts.fargs[1] and tonumber(opts.fargs[1]) --[[@as integer?]]
      if opts.fargs[1] and (not keep or keep < 0 or keep % 1 ~= 0) then
        usage('N is a number of turns to keep, 0 or more')
      end
      require('bb7.chat.conversation').compact(keep)
    end,
  },
  {
    name = 'BB7Prompt',
    usage = ':BB7Prompt',
    desc = 'bb7: list every part of the next request with its tokens and price',
    doc = [[Lists every part of the active chat's next request in the order it is
sent: system prompt, instruction files, each file's block or diff, the
history one message at a time (what a message's events and edits add counted
with it), a retry context and the message typed so far, each with its tokens
and input price. `x` on a file's or section's line drops it from the chat.
`x` on a message's line excludes it from future requests: your message with
its answer, or an answer alone. An excluded message stays in the chat, dimmed
and marked "excluded", and stays listed here, marked "(excluded)" and outside
the total; `x` on it (or `gX` on it in the conversation) includes it again.
The files a message was sent with stay: drop them as files. Forks and edits
keep the exclusions of the messages they keep.]],
    run = function() require('bb7.chat.prompt').open() end,
  },
  {
    name = 'BB7Search',
    usage = ':BB7Search [words]',
    nargs = '*',
    desc = 'bb7: find a chat in the installed picker',
    doc = [[Lists the chats in the picker of the `picker` option (telescope,
fzf-lua or snacks, else |vim.ui.select()|): every chat of the project and the
global ones, or with [words] those whose name or messages hold every word
(a message's words beside its chat's name). The chat chosen becomes the
active one and opens in the chat view. The chat list's `/` searches too.]],
    run = function(opts) require('bb7.chat.search').run(opts.args) end,
  },
  {
    name = 'BB7Model',
    usage = ':BB7Model [model]',
    nargs = '?',
    complete = models,
    desc = 'bb7: choose the model of the active chat',
    doc = [[Sets the model of the active chat to [model], or picks one from the
provider's models with |vim.ui.select()|: the favourites first (its last item marks one),
then the tool-capable ones.]],
    run = function(opts)
      if opts.fargs[1] then
        return backend().request('set_model', { model = opts.fargs[1] }, answer)
      end
      require('bb7.chat.models').pick()
    end,
  },
  {
    name = 'BB7Paste',
    usage = ':BB7Paste [register]',
    nargs = '?',
    complete = registers,
    desc = 'bb7: apply a pasted model response as pending changes',
    doc = [[Takes a model response with edit blocks from [register] (default: the
clipboard `+`, else the unnamed register) and turns its edits into pending
outputs of the active chat, as if the model had sent them. Works without
an API key: paste answers from any web chat. SEARCH/REPLACE blocks, EDIT
blocks and tool-call JSON all work; files the answer edits that are not in
the chat yet are added. All or nothing: if one edit does not apply, nothing
changes and the message says which edit failed and why.]],
    run = paste,
  },
  {
    name = 'BB7UndoApply',
    usage = ':BB7UndoApply[!] [path]',
    nargs = '?',
    bang = true,
    complete = context_files(),
    desc = 'bb7: undo the last apply of a file (! over later edits)',
    doc = [[Restores [path] (default: the current file) as it was before the last
|:BB7Apply| (or |:BB7Merge|) and brings the pending output back. Refused
when the file changed since the apply; `:BB7UndoApply!` undoes anyway,
over those edits. A file an agent wrote to disk itself (|bb7-agents|) gets
the lines from before the agent's turn back, merged over your edits made
since (refused where you edited lines the agent wrote; ! puts them back
there too), and the agent's version becomes its pending change.]],
    run = function(opts)
      local path = target(opts)
      local args = { path = path, force = opts.bang, buffers = buffers(path) }
      backend().request('undo_apply', args, answer)
    end,
  },
  {
    name = 'BB7EditInstructions',
    usage = ':BB7EditInstructions [project|global]',
    nargs = '?',
    complete = function(lead)
      return vim.tbl_filter(
        function(scope) return vim.startswith(scope, lead) end,
        { 'project', 'global' }
      )
    end,
    desc = 'bb7: edit the instructions the model gets with every request',
    doc = [[Opens (and creates) an instruction file: `project` (default in a bb7
project) is `.bb7/instructions`, `global` (default elsewhere) is yours,
`$XDG_CONFIG_HOME/bb7/instructions.md` (else `~/.config/bb7/instructions.md`).
The model reads yours, then the project's and the files of
|bb7-option-context.instruction_files| (`AGENTS.md`). Says which instruction
files apply. A line `@include docs/style.md` of `.bb7/instructions` brings in
that project file's text there (a path from the project's root, read as a
context file is: inside the project, not left out by `.bb7/ignore`, not one
that looks like a secret); one that cannot be is left out, and the next send
says why.]],
    run = function(opts)
      local scope = opts.fargs[1] or ''
      if scope ~= '' and scope ~= 'project' and scope ~= 'global' then
        usage(('unknown scope %s: use project or global'):format(scope))
      end
      backend().request('edit_instructions', { scope = scope }, function(err, files)
        if err then return backend().report(err) end
        local edit = vim.b.bb7_pane and 'tabedit ' or 'edit '
        vim.cmd(edit .. vim.fn.fnameescape(files.path))
        notify(files.message)
      end)
    end,
  },
  {
    name = 'BB7Install',
    usage = ':BB7Install',
    desc = "bb7: install bb7's Python environment",
    doc = [[Creates a venv under `stdpath('data')/bb7/venv` and installs bb7 and its
dependencies into it with uv (from $PATH, or put into the venv by pip;
seconds), else with pip. Says each step as it starts. Needed only when the
plugin has no `.venv` and the `python` option is not set; bb7 asks for it
again when its dependencies change.]],
    run = function() require('bb7.install').run() end,
  },
  {
    name = 'BB7Version',
    usage = ':BB7Version',
    desc = "bb7: show bb7's version",
    doc = [[Shows bb7's version and its host's (process id, protocol, Python), in
one line; starts the host if needed.]],
    run = function()
      backend().request('ping', vim.empty_dict(), function(err, pong)
        if err then return backend().report(err) end
        local info = backend().status().info or {}
        local python = (pong.python_version or '') ~= '' and (', Python ' .. pong.python_version)
          or ''
        notify(
          ('bb7 %s (host pid %d, protocol %s%s)'):format(
            pong.version,
            pong.pid,
            tostring(info.protocol or '?'),
            python
          )
        )
      end)
    end,
  },
  {
    name = 'BB7RefreshModels',
    usage = ':BB7RefreshModels',
    desc = "bb7: fetch the provider's models list again",
    doc = [[Fetches the provider's models list again, whatever the age of the
cached one (kept a day), and says how many models it lists. |:BB7Model| and
the chat view's model picker use it.]],
    run = function()
      local stop ---@type fun()?
      stop = require('bb7.events').on('models', function(list)
        if stop then stop() end
        if list.error and list.error ~= vim.NIL then return notify(list.error, 'error') end
        if list.warning and list.warning ~= vim.NIL then return notify(list.warning, 'warn') end
        require('bb7.chat.models').ids = vim.tbl_map(function(m) return m.id end, list.models)
        notify('models list refreshed: ' .. require('bb7.util').plural(#list.models, 'model'))
      end)
      backend().request('models', { refresh = true }, function(err)
        if err then
          stop()
          backend().report(err)
        end
      end)
    end,
  },
  {
    name = 'BB7Log',
    usage = ':BB7Log [prompts]',
    nargs = '?',
    complete = function(lead) return vim.startswith('prompts', lead) and { 'prompts' } or {} end,
    desc = 'bb7: open the log file (or the prompt log)',
    doc = [[Opens `stdpath('log')/bb7.log` (Lua and Python host) in a new tab.
See |bb7-option-log_level|. `:BB7Log prompts` opens the prompt log instead,
`stdpath('log')/bb7-prompts.log`: every request sent to the model and its
answer, raw, kept only while |bb7-option-log_prompts| is on (it is off by
default).]],
    run = open_log,
  },
}

--- `<Plug>` mappings; bb7 maps no keys globally. { lhs, modes, rhs, desc }
M.plugs = {
  { '<Plug>(bb7-chat)', 'n', '<Cmd>BB7Chat<CR>', 'bb7: toggle the chat view' },
  { '<Plug>(bb7-add)', 'n', '<Cmd>BB7Add<CR>', 'bb7: add the current file' },
  { '<Plug>(bb7-add-section)', 'x', ':BB7Add<CR>', 'bb7: add the selected lines' },
  { '<Plug>(bb7-edit)', 'x', ':BB7Edit<CR>', 'bb7: edit the selected lines in place' },
  { '<Plug>(bb7-add-readonly)', 'n', '<Cmd>BB7AddReadonly<CR>', 'bb7: add, read-only' },
  { '<Plug>(bb7-remove)', 'n', '<Cmd>BB7Remove<CR>', 'bb7: remove the current file' },
  { '<Plug>(bb7-apply)', 'n', '<Cmd>BB7Apply<CR>', 'bb7: apply the pending change' },
  { '<Plug>(bb7-discard)', 'n', '<Cmd>BB7Discard<CR>', 'bb7: discard the pending change' },
  { '<Plug>(bb7-check)', 'n', '<Cmd>BB7Check<CR>', "bb7: run the project's checks" },
  { '<Plug>(bb7-diff)', 'n', '<Cmd>BB7Diff<CR>', 'bb7: merge the pending change in vimdiff' },
  { '<Plug>(bb7-review)', 'n', '<Cmd>BB7Review<CR>', 'bb7: review the pending change inline' },
  { '<Plug>(bb7-merge)', 'n', '<Cmd>BB7Merge<CR>', 'bb7: merge the pending change over edits' },
  { '<Plug>(bb7-cancel)', 'n', '<Cmd>BB7Cancel<CR>', 'bb7: cancel the streaming response' },
  {
    '<Plug>(bb7-next-pending)',
    'n',
    function() require('bb7.status').jump(1) end,
    'bb7: next line a pending change touches',
  },
  {
    '<Plug>(bb7-prev-pending)',
    'n',
    function() require('bb7.status').jump(-1) end,
    'bb7: previous line a pending change touches',
  },
}

--- Runs command `spec` (called by the user command); usage mistakes become messages.
---@param spec table
---@param opts table the user command's arguments
function M.run(spec, opts)
  local ok, err = pcall(spec.run, opts)
  if not ok then
    if getmetatable(err) == Usage then
      return notify((err --[[@as table]]).message, 'error')
    end
    error(err, 0)
  end
end

--- Defines every command and `<Plug>` mapping (from plugin/bb7.lua).
---@return nil
function M.define()
  for _, spec in ipairs(M.specs) do
    vim.api.nvim_create_user_command(spec.name, function(opts) M.run(spec, opts) end, {
      nargs = spec.nargs or 0,
      bang = spec.bang,
      range = spec.range,
      complete = spec.complete,
      desc = spec.desc,
    })
  end
  for _, plug in ipairs(M.plugs) do
    vim.keymap.set(plug[2], plug[1], plug[3], { desc = plug[4], silent = true })
  end
end

return M
