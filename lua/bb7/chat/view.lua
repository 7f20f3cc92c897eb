--- The one owner of the chat view's state: the panes' buffers and windows, the chat shown,
--- its retry flag and totals, and the answer streaming into it. Panes read and write it here
--- and never reach back into `bb7.chat`; this module requires none of them. It also draws the
--- window bars, which say everything this state knows.
local M = {}

---@alias bb7.Pane 'conversation'|'input'|'files'

---@class bb7.Live  An answer streaming into the conversation.
---@field phase string 'sending'|'waiting'|'reasoning'|'after_reasoning'|'text', or an agent's
--- 'tool'|'plan'|'question'|'notice'
---@field tail integer byte length of the last line (where the next chunk goes)
---@field status_lines integer lines the progress line takes at the end (0, 1 or 2)
---@field fold_start? integer first line of the reasoning block
---@field started integer `vim.uv.now()` when the send began
---@field chars integer characters streamed so far (tokens are about a quarter)
---@field retry_until? integer `vim.uv.now()` when a retry back-off ends
---@field tools? table<string, { mark: integer, diff?: boolean }> an agent's tool calls by id
---@field plan? { mark: integer, count: integer } an agent's plan: where, how many lines

---@class bb7.ViewState
---@field bufs table<string, integer> pane -> buffer (kept across open/close)
---@field wins table<string, integer> pane -> window while the view is open
---@field chat? bb7.ChatSummary the chat shown
---@field retry boolean the last answer's edits failed (the next send repairs them)
---@field resend? boolean the last send ended in an error or a cancel (`gr` sends it again)
---@field usage string the chat's totals ('' before any answer)
---@field total_tokens? string the context's estimated size, as the host words it
---@field estimate? string the next request's size and price, as the host words it
---@field near? boolean the next request nears the model's context limit
---@field live? bb7.Live
---@field unseen? boolean output arrived below the conversation's cursor (the user reads above)
M.state = { bufs = {}, wins = {}, chat = nil, retry = false, usage = '', live = nil }

local FILETYPES = { conversation = 'markdown', input = 'markdown', files = 'bb7_files' }

--- The buffer of `pane`, created on first use (unlisted scratch); `true` second when new.
---@param pane bb7.Pane
---@return integer buf
---@return boolean created
function M.buf(pane)
  local buf = M.state.bufs[pane]
  if buf and vim.api.nvim_buf_is_valid(buf) then return buf, false end
  buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, '[bb7] ' .. pane)
  vim.b[buf].bb7_pane = pane
  if FILETYPES[pane] == 'markdown' then
    -- Treesitter highlights markdown and the code blocks in it, whatever the user's setup.
    -- Started before the filetype is set, it also spares loading the regex syntax (~20 ms).
    pcall(vim.treesitter.start, buf, 'markdown')
  end
  vim.bo[buf].filetype = FILETYPES[pane]
  if pane ~= 'input' then vim.bo[buf].modifiable = false end
  M.state.bufs[pane] = buf
  return buf, true
end

--- The window of `pane` while the view is open, else nil.
---@param pane bb7.Pane
---@return integer?
function M.win(pane)
  local win = M.state.wins[pane]
  if win and vim.api.nvim_win_is_valid(win) then return win end
  return nil
end

---@return boolean
function M.is_open() return M.win('conversation') ~= nil end

--- The columns text gets in `pane`'s window (0 while the view is closed).
---@param pane bb7.Pane
---@return integer
function M.text_width(pane)
  local win = M.win(pane)
  if not win then return 0 end
  local info = vim.fn.getwininfo(win)[1]
  return info.width - info.textoff
end

---@return boolean
function M.streaming() return M.state.live ~= nil end

--- The buffers a request about `path` (every file of the chat when nil) sends along, so
--- unsaved edits count and applies write through the buffer.
---@param path? string
---@return table[]
function M.buffers(path) return require('bb7.buffer').for_request(path) end

--- Moves the cursor to `pane` (`insert`: and starts Insert mode, for the input).
---@param pane bb7.Pane
---@param insert? boolean
function M.focus(pane, insert)
  local win = M.win(pane)
  if not win then return end
  vim.api.nvim_set_current_win(win)
  if insert then vim.cmd('startinsert!') end
end

local function escape(text) return (text:gsub('%%', '%%%%')) end

--- `text` cut to `width` cells (with `…`).
---@param text string
---@param width integer
---@return string
function M.truncate(text, width)
  if vim.api.nvim_strwidth(text) <= width then return text end
  return vim.fn.strcharpart(text, 0, math.max(1, width - 1)) .. '…'
end

--- What streams right now, for the conversation's bar: elapsed time and tokens so far, or
--- the retry back-off's wait.
---@return string
function M.progress()
  local live = M.state.live
  if not live then return '' end
  local now = vim.uv.now()
  if live.retry_until and live.retry_until > now then
    return (' ⟳ retry in %ds'):format(math.ceil((live.retry_until - now) / 1000))
  end
  local seconds = math.floor((now - live.started) / 1000)
  local tokens = math.floor(live.chars / require('bb7.vocab').chars_per_token)
  return (' ● streaming %ds'):format(seconds)
    .. (tokens > 0 and (' · ~%d tok'):format(tokens) or '')
end

-- The least of a chat's name worth showing in the bar (`A chat w…`), and of its model.
local MIN_NAME, MIN_MODEL = 10, 8

--- What of `name` and `model` the conversation's bar shows in `width` cells beside `right`
--- (the effort and the totals or the streaming progress, whole: the caller keeps it to what
--- fits beside `MIN_MODEL` cells of model): the model loses its provider prefix
--- (`claude-sonnet-4.5`), then the name is cut or left out (nil), then the model is cut.
---@param width integer
---@param name string
---@param model string
---@param right string
---@return string? name
---@return string model
function M.title(width, name, model, right)
  local len = vim.api.nvim_strwidth
  local want = math.min(len(name), MIN_NAME) + len(' · ')
  if 1 + len(model .. right) + want > width then model = model:gsub('^[^/]*/', '') end
  model = M.truncate(model, math.max(MIN_MODEL, width - 2 - len(right)))
  local room = width - 1 - len(model .. right) - len(' · ')
  if room < math.min(len(name), 4) then return nil, model end
  return M.truncate(name, room), model
end

-- The estimate builds the whole next request in the host (its first one also loads the prompt
-- code): asked a moment after the last refresh, it never holds up opening the view (it doubled
-- a cold `:BB7Chat`), and a burst of refreshes asks once.
local ESTIMATE_DELAY_MS = 200
local estimate_timer = nil ---@type uv.uv_timer_t?

--- Asks the host what the next request will cost and shows it on the input's bar (not while
--- an answer streams: the estimate is for the next send).
function M.estimate()
  estimate_timer = estimate_timer or assert(vim.uv.new_timer())
  estimate_timer:stop()
  estimate_timer:start(
    ESTIMATE_DELAY_MS,
    0,
    vim.schedule_wrap(function()
      if M.streaming() then return end
      if M.state.chat and (M.state.chat.agent or '') ~= '' then
        -- An agent's turn sends only the message, to the agent: there is no request to price.
        M.state.estimate = nil
        return M.winbars()
      end
      require('bb7.backend').request('estimate', {}, function(err, estimate)
        M.state.estimate = not err and estimate.text or nil
        M.state.near = not err and estimate.near or false
        M.winbars()
      end)
    end)
  )
end

--- Window bars: the chat's name, model and totals (or the streaming progress) over the
--- conversation, the token total over the files, the send keys (or the retry note) over the
--- input.
function M.winbars()
  local S = M.state
  local keys = require('bb7.config').get().keys
  local conversation = M.win('conversation')
  if conversation and S.chat then
    local totals = M.streaming() and M.progress() or (S.usage ~= '' and (' · ' .. S.usage) or '')
    -- The chat's own reasoning effort, before the totals.
    local effort = (S.chat.effort or '') ~= '' and (' · effort ' .. S.chat.effort) or ''
    local right = effort .. totals
    local name = (S.chat.scope == 'global' and '[global] ' or '') .. S.chat.name
    -- First, so a narrow bar never cuts it: output arrived below where the user reads.
    local below = ''
    if S.unseen then
      below = ' ↓ new answer below' .. (keys.latest and (': ' .. keys.latest) or '') .. ' '
    end
    local width = vim.api.nvim_win_get_width(conversation) - vim.api.nvim_strwidth(below)
    -- In a narrow pane (the split layout, or beside the marker) Neovim would cut the bar from
    -- the left, marker first: what matters less gives way. While streaming the progress stays
    -- longest, else the effort (the next send's); the chat's totals go first.
    local function fits(text) return 1 + MIN_MODEL + vim.api.nvim_strwidth(text) <= width end
    if not fits(right) then
      local kept = M.streaming() and totals or effort
      right = fits(kept) and kept or ''
    end
    -- An agent's chat names its agent: no model of bb7's answers there.
    local who = (S.chat.agent or '') ~= '' and S.chat.agent or S.chat.model
    local title, model = M.title(width, name, who, right)
    title = title and ('%#BB7ChatTitle# ' .. escape(title) .. '%* ·') or ''
    below = below ~= '' and ('%#BB7ChatNew#' .. escape(below) .. '%*') or ''
    vim.wo[conversation].winbar = ('%s%s %s%%#BB7ChatStatus#%s'):format(
      below,
      title,
      escape(model),
      escape(right)
    )
  end
  local files = M.win('files')
  if files and S.total_tokens then
    -- A list longer than the panel: how many files it does not show (it scrolls), kept
    -- whole in a narrow panel (the label goes first).
    local hidden = require('bb7.chat.files').hidden()
    local more = hidden > 0 and (' · +%d more'):format(hidden) or ''
    local bar = (' Files · ~%s tokens%s'):format(S.total_tokens, more)
    if more ~= '' and vim.api.nvim_strwidth(bar) > vim.api.nvim_win_get_width(files) then
      bar = (' ~%s tokens%s'):format(S.total_tokens, more)
    end
    vim.wo[files].winbar = escape(bar)
  end
  local input = M.win('input')
  if input then
    local text
    if S.chat and S.chat.held_by ~= '' then
      -- Another bb7 holds the chat: its pid, how to take it, then where it runs (cut first).
      -- In a narrow pane (the split layout at 80 columns) the command stays whole, its verb
      -- goes: Neovim would cut the bar at its end.
      local pid, where = S.chat.held_by:match('^(pid %d+) (.*)$')
      pid = pid or S.chat.held_by
      local width = vim.api.nvim_win_get_width(input)
      local take = ':BB7Chat! takes it over'
      local function room()
        return width - vim.api.nvim_strwidth((' ⊘ read-only, %s · %s · '):format(pid, take))
      end
      if room() < 0 then take = ':BB7Chat!' end
      text = ('%%#BB7RetryBanner#⊘ read-only, %s%%* · %s'):format(escape(pid), take)
      -- Where it runs only with room for some of it (`%<` cuts its start): with none, Neovim
      -- would cut the bar's end.
      if where and room() >= 8 then text = text .. ' · %<' .. escape(where) end
    elseif S.retry then
      -- Short, warning first: it must fit the 40 columns of a split at 80 columns.
      local dismiss = keys.dismiss_retry and (' · %s drop'):format(escape(keys.dismiss_retry))
        or ''
      text = '%#BB7RetryBanner#⚠ next send repairs edits%*' .. dismiss
    else
      -- After an error or a cancel, first: the key that sends the message again; then the
      -- estimate and the keys. In a narrow pane (Neovim would cut the bar from the left) the
      -- estimate keeps only its tokens, then `? help` goes, then the estimate is cut (or
      -- goes); the send key stays.
      local items = {} ---@type string[][] { text, highlight group? }
      if S.chat and require('bb7.chat.queue').get(S.chat.id) then
        local take = keys.cancel and (' · %s edits'):format(keys.cancel) or ''
        table.insert(items, { 'queued' .. take, 'BB7RetryBanner' })
      end
      if S.resend and keys.resend then
        table.insert(items, { keys.resend .. ' resends', 'BB7RetryBanner' })
      end
      if S.near then -- what to do first: a narrow bar cuts its end
        local compact = keys.compact or ':BB7Compact'
        table.insert(
          items,
          { ('context nearly full: %s compacts'):format(compact), 'BB7RetryBanner' }
        )
      end
      local estimate = S.estimate and { S.estimate, 'BB7ChatStatus' }
      if estimate then table.insert(items, estimate) end
      local send = keys.send and { keys.send .. ' send' }
      if send then table.insert(items, send) end
      local help = keys.help and { keys.help .. ' help' }
      if help then table.insert(items, help) end
      local function width()
        local plain = { 'Message' }
        for _, item in ipairs(items) do
          table.insert(plain, item[1])
        end
        return vim.api.nvim_strwidth(' ' .. table.concat(plain, ' · '))
      end
      local room = vim.api.nvim_win_get_width(input)
      if estimate and width() > room then
        estimate[1] = estimate[1]:match('^(.-) [(·]') or estimate[1] -- `~2.2k tok`
      end
      if help and width() > room then table.remove(items) end
      if estimate and width() > room then
        local left = room - width() + vim.api.nvim_strwidth(estimate[1])
        if left >= 8 then
          estimate[1] = M.truncate(estimate[1], left)
        else
          items = vim.tbl_filter(function(item) return item ~= estimate end, items)
        end
      end
      text = 'Message'
      for _, item in ipairs(items) do
        local shown = escape(item[1])
        text = text .. ' · ' .. (item[2] and ('%#' .. item[2] .. '#' .. shown .. '%*') or shown)
      end
    end
    vim.wo[input].winbar = ' ' .. text
  end
end

return M
