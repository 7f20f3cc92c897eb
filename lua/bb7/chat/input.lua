--- The input pane: where the user writes the next message. `<CR>` (normal mode) or the
--- `send_insert` key sends it; the text is kept as the chat's draft in the host (saved
--- 500 ms after the last change, and at once before the view closes or changes chat).
--- Typing `@` completes a live part (`@diagnostics`, `@diff`, `@terminal`) or a project path
--- (|i_CTRL-X_CTRL-O|, or the blink.cmp / nvim-cmp source of `bb7.integrations`); choosing one
--- adds it to the chat's context. An empty send while failed edits wait puts a repair request here.
local M = {}

local view = require('bb7.chat.view')

local DRAFT_DELAY_MS = 500

-- Offered by an empty send while the last answer's edits failed (the errors go with it).
local REPAIR = 'Your last file changes could not be applied; please fix them.'

local H = {
  timer = nil,
  saved = nil,
  -- The last send until it is answered: its text comes back to the input when the send was
  -- refused before it was stored (another bb7 had taken the chat over).
  unsent = nil, ---@type { id: string, text: string }?
}

local backend = require('bb7.util').backend

local function text(buf) return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') end

--- Saves the draft now if it changed since the last save (`always`: whatever was saved; the
--- host keeps no draft of a chat another bb7 holds, so one typed while read-only is saved
--- when the chat is taken back).
---@param always? boolean
function M.flush(always)
  if H.timer then H.timer:stop() end
  local shown = view.state.chat
  local buf = view.state.bufs.input
  if not shown or not buf or not vim.api.nvim_buf_is_valid(buf) then return end
  local draft = text(buf)
  if draft == H.saved and not always then return end
  H.saved = draft
  backend().request('save_draft', { chat_id = shown.id, draft = draft }, function(err)
    if err then backend().report(err) end
  end)
end

--- Where the path being typed after `@` starts in `before` (the line up to the cursor): the
--- 0-based column after the last `@` not followed by a space; nil when there is none.
---@param before string
---@return integer?
function M.path_start(before) return (before:find('@[^%s@]*$')) end

---@class bb7.AtItem  What `@` completes to: a live part's word or a project path.
---@field word string
---@field data { bb7_part?: string, bb7_add?: string } what choosing it adds (`M.accept`)

--- What `@` completes to after `typed` (the text after it): the live parts whose word starts
--- with it (`@diagnostics`, `@diff`, `@terminal`), then the project's paths `files` that do
--- (`fuzzy`: that match it fuzzily, best first). One list for the omnifunc and the
--- completion plugins' sources.
---@param typed string
---@param files string[]
---@param fuzzy? boolean
---@return bb7.AtItem[]
function M.candidates(typed, files, fuzzy)
  local out = {}
  for _, word in ipairs(require('bb7.live').WORDS) do
    if vim.startswith(word, typed) then
      table.insert(out, { word = word, data = { bb7_part = word } })
    end
  end
  local paths = files
  if typed ~= '' then
    paths = fuzzy and vim.fn.matchfuzzy(files, typed)
      or vim.tbl_filter(function(path) return vim.startswith(path, typed) end, files)
  end
  for _, path in ipairs(paths) do
    table.insert(out, { word = path, data = { bb7_add = path } })
  end
  return out
end

--- Adds what a completed item names to the chat: a project file or a live part.
---@param data any the item's data (`bb7.AtItem`'s; anything else is not bb7's)
function M.accept(data)
  if type(data) ~= 'table' then return end
  if data.bb7_add then return require('bb7.chat.picker').add(data.bb7_add) end
  if not data.bb7_part then return end
  require('bb7.live').add({ data.bb7_part }, function(err, said)
    if err then return backend().report(err) end
    require('bb7.chat.ui').say(said.message)
    require('bb7.chat').refresh()
  end)
end

--- `omnifunc` of the input: the live parts and the project paths after `@` (from
--- `bb7.chat.picker`'s list).
---@param findstart integer
---@param base string
---@return integer|table
function M.complete(findstart, base)
  if findstart == 1 then
    return M.path_start(vim.api.nvim_get_current_line():sub(1, vim.fn.col('.') - 1)) or -3
  end
  local items = {}
  for _, item in ipairs(M.candidates(base, require('bb7.chat.picker').cached())) do
    local menu = item.data.bb7_part and '[bb7 live]' or '[bb7 add]'
    table.insert(items, { word = item.word, menu = menu, user_data = item.data })
  end
  return items
end

--- Sets up `buf` as the input: draft saving and `@` completion (a completed path is added).
---@param buf integer
function M.setup(buf)
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    buffer = buf,
    desc = 'bb7: save the draft (debounced)',
    callback = function()
      H.timer = H.timer or assert(vim.uv.new_timer())
      H.timer:stop()
      H.timer:start(DRAFT_DELAY_MS, 0, vim.schedule_wrap(M.flush))
    end,
  })
  vim.bo[buf].omnifunc = "v:lua.require'bb7.chat.input'.complete"
  -- A path is added only when chosen: the menu shows even for one match, and a match is not
  -- put in as it opens ('completeopt' inserts the first by default, and the path typed on
  -- went after it while that file was added).
  local opts = vim.split(vim.o.completeopt, ',', { trimempty = true })
  local function want(flag)
    if not vim.tbl_contains(opts, flag) then table.insert(opts, flag) end
  end
  want('menuone')
  if not vim.tbl_contains(opts, 'noselect') then want('noinsert') end
  vim.bo[buf].completeopt = table.concat(opts, ',')
  -- nvim-cmp loaded after setup() without its plugin file (so no `User CmpReady`): its
  -- source, registered now (never loads cmp).
  if package.loaded.cmp then require('bb7.integrations.cmp').register() end
  vim.api.nvim_create_autocmd('InsertCharPre', {
    buffer = buf,
    desc = 'bb7: complete a project path after @',
    callback = function()
      if vim.v.char ~= '@' then return end
      -- After the `@` is in (and outside the text lock): list the files, then complete.
      vim.schedule(function()
        -- A completion plugin's bb7 source serves the buffer: its menu, not the omnifunc's.
        -- Asked now, not before the `@` was in: the plugin asks its sources (which set this)
        -- on TextChangedI, and an `@` typed first, or fast, comes before it.
        if vim.b[buf].bb7_completion then return end
        require('bb7.chat.picker').load(function()
          if vim.api.nvim_get_current_buf() == buf and vim.fn.mode() == 'i' then
            vim.api.nvim_feedkeys(vim.keycode('<C-x><C-o>'), 'n', false)
          end
        end)
      end)
    end,
  })
  vim.api.nvim_create_autocmd('CompleteDone', {
    buffer = buf,
    desc = 'bb7: add the completed path to the context',
    callback = function() M.accept(vim.v.completed_item and vim.v.completed_item.user_data) end,
  })
end

--- Takes the queued message back into the input (before what is typed there); false when
--- none is queued.
---@return boolean
function M.take_back()
  local shown = view.state.chat
  local queued = shown and require('bb7.chat.queue').take(shown.id)
  if not queued then return false end
  local typed = text((view.buf('input')))
  M.set(vim.trim(typed) == '' and queued or (queued .. '\n' .. typed))
  view.winbars()
  return true
end

---@return boolean
function M.is_empty() return vim.trim(text((view.buf('input')))) == '' end

--- Replaces the input with `draft` (a chat's stored draft).
---@param draft? string
function M.set(draft)
  local buf = view.buf('input')
  H.saved = draft
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(draft or '', '\n', { plain = true }))
  vim.bo[buf].modified = false
end

--- Sends the input's text in the shown chat; while an answer streams, queues it instead
--- (|bb7-queue|). An empty send sends what a failed answer left queued. With `given`, that
--- text is sent instead (the input and its draft stay as they are).
---@param given? string
function M.send(given)
  local conversation = require('bb7.chat.conversation')
  local queue = require('bb7.chat.queue')
  local message = given or text((view.buf('input')))
  local shown = view.state.chat
  if shown and not given and view.streaming() and vim.trim(message) ~= '' then
    queue.put(shown.id, message)
    M.set('')
    H.saved = nil
    M.flush()
    return view.winbars()
  end
  if shown and vim.trim(message) == '' and queue.get(shown.id) and not view.streaming() then
    return queue.send(shown.id)
  end
  if vim.trim(message) == '' then
    if not view.state.retry then
      return require('bb7.chat.ui').say('write a message first', 'warn')
    end
    -- Nothing typed, failed edits waiting: offer the request to repair them, sent by one more
    -- send (or edited first).
    M.set(REPAIR)
    return require('bb7.chat.ui').say('a request to repair the failed edits is ready: send it')
  end
  if conversation.busy() then return end
  if shown and shown.held_by ~= '' then
    -- Read-only: the host takes the chat when its holder is gone, else says (in one line)
    -- who holds it and what to do; the text stays.
    return backend().request('active_chat', vim.empty_dict(), function(err)
      if err then return backend().report(err) end
      require('bb7.chat').refresh(nil, function(failed)
        if failed then return backend().report(failed) end
        -- Sent only once the chat is this Neovim's: never a loop of refusals.
        local now = view.state.chat
        if now and now.held_by == '' then M.send(given) end
      end)
    end)
  end
  local id = require('bb7').send(message)
  conversation.begin_exchange(message)
  if given then return end
  H.unsent = { id = id, text = message }
  M.set('')
  H.saved = nil
  M.flush()
end

--- A send ended (`done`): refused because another bb7 had taken the chat over, its text goes
--- back to an empty input, to be sent once the chat is taken back.
---@param done bb7.SendDone
function M.done(done)
  local unsent = H.unsent
  if not unsent or unsent.id ~= done.request_id then return end
  H.unsent = nil
  if done.kind == 'locked' and M.is_empty() then
    M.set(unsent.text)
    H.saved = nil
  end
end

return M
