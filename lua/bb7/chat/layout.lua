--- Windows of the chat view: a tab page of its own (`layout = 'tab'`: conversation with the
--- files panel on its right, input below both) or a column on the right of the current tab
--- (`layout = 'split'`: conversation, files, input stacked). Also the floats the view opens.
local M = {}

M.INPUT_HEIGHT = 6

local function set(win, options)
  for name, value in pairs(options) do
    vim.api.nvim_set_option_value(name, value, { scope = 'local', win = win })
  end
end

-- Window options per pane (set with :setlocal semantics, so other windows keep theirs).
local PLAIN = {
  number = false,
  relativenumber = false,
  signcolumn = 'no',
  foldcolumn = '0',
  fillchars = 'eob: ',
}
local OPTIONS = {
  conversation = vim.tbl_extend('force', PLAIN, {
    wrap = true,
    linebreak = true,
    -- A wrapped note, banner or list item goes on under its text, not at the left edge.
    breakindent = true,
    breakindentopt = 'list:-1',
    foldmethod = 'manual',
    foldenable = true,
    foldtext = "v:lua.require'bb7.chat.conversation'.foldtext()",
    fillchars = 'fold: ,eob: ',
    cursorline = false,
    spell = false,
  }),
  input = vim.tbl_extend('force', PLAIN, { wrap = true, linebreak = true, winfixheight = true }),
  files = vim.tbl_extend('force', PLAIN, { wrap = false, cursorline = true, winfixwidth = true }),
}

--- Width of the files panel beside the conversation in a `columns`-wide tab.
---@param columns integer
---@return integer
function M.files_width(columns) return math.max(24, math.min(40, math.floor(columns * 0.3))) end

local function open_win(buf, config) return vim.api.nvim_open_win(buf, false, config) end

--- Opens the view's windows for `bufs` (pane -> buffer); returns pane -> window and the tab.
---@param layout 'tab'|'split'
---@param bufs table<string, integer> pane -> buffer
---@return table<string, integer> wins pane -> window
---@return integer tabpage
function M.open(layout, bufs)
  local wins = {}
  if layout == 'tab' then
    vim.cmd('tab sbuffer ' .. bufs.conversation)
    wins.conversation = vim.api.nvim_get_current_win()
    -- win = -1: a split of the whole tab page, so the input spans both columns.
    wins.input = open_win(bufs.input, { split = 'below', win = -1, height = M.INPUT_HEIGHT })
    wins.files = open_win(bufs.files, {
      split = 'right',
      win = wins.conversation,
      width = M.files_width(vim.o.columns),
    })
  else
    local width = math.max(40, math.floor(vim.o.columns * 0.4))
    wins.conversation = open_win(bufs.conversation, { split = 'right', win = -1, width = width })
    wins.input = open_win(bufs.input, {
      split = 'below',
      win = wins.conversation,
      height = M.INPUT_HEIGHT,
    })
    wins.files = open_win(bufs.files, { split = 'above', win = wins.input, height = 8 })
  end
  -- Where a wrapped line goes on (`breakindentopt` list:-1): after a note's mark or a bullet.
  vim.bo[bufs.conversation].formatlistpat = [[^\s*\([-*+•⚠↳]\|\d\+[.)]\)\s\+]]
  for pane, win in pairs(wins) do
    set(win, OPTIONS[pane])
    -- What `bb7.buffer` reads: a file is never opened in a pane (the view puts it beside).
    vim.w[win].bb7_pane = pane
  end
  if layout ~= 'tab' then
    -- Three panes in one column of a short screen (24 lines): three lines of input leave the
    -- conversation room (the files panel takes what its list needs, `bb7.chat.files`). On a
    -- tall one the input keeps its height: splitting it for the files panel changed it.
    vim.api.nvim_win_set_height(wins.input, vim.o.lines < 30 and 3 or M.INPUT_HEIGHT)
  end
  return wins, vim.api.nvim_win_get_tabpage(wins.conversation)
end

--- Closes the view's windows (a tab of its own goes with them). Never leaves Neovim without a
--- window: when the view is all there is, an empty buffer takes its last window.
---@param wins table<string, integer> pane -> window
function M.close(wins)
  for _, win in pairs(wins) do
    if vim.api.nvim_win_is_valid(win) then
      local tab = vim.api.nvim_win_get_tabpage(win)
      if #vim.api.nvim_tabpage_list_wins(tab) > 1 or #vim.api.nvim_list_tabpages() > 1 then
        vim.api.nvim_win_close(win, true)
      else
        vim.w[win].bb7_pane = nil
        vim.api.nvim_win_call(win, function() vim.cmd('enew') end)
      end
    end
  end
end

--- The width of the widest of `lines`, in cells.
---@param lines string[]
---@return integer
function M.longest(lines)
  local width = 0
  for _, line in ipairs(lines) do
    width = math.max(width, vim.api.nvim_strwidth(line))
  end
  return width
end

--- `text` in lines of at most `width` cells, broken between words (a longer word stays
--- whole on its own line).
---@param text string
---@param width integer
---@return string[]
function M.wrap(text, width)
  local lines, line = {}, ''
  for word in text:gmatch('%S+') do
    if line ~= '' and vim.api.nvim_strwidth(line .. ' ' .. word) > width then
      table.insert(lines, line)
      line = word
    else
      line = line == '' and word or (line .. ' ' .. word)
    end
  end
  table.insert(lines, line)
  return lines
end

--- A centred, bordered float over the editor; entered. `opts`: title, width, height.
---@param buf integer
---@param opts { title: string, width: integer, height: integer, cursorline?: boolean }
---@return integer win
function M.float(buf, opts)
  local width = math.min(opts.width, vim.o.columns - 4)
  local height = math.max(1, math.min(opts.height, vim.o.lines - 6))
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'editor',
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = height,
    border = 'rounded',
    title = opts.title,
    title_pos = 'center',
    style = 'minimal',
  })
  set(win, { wrap = false, cursorline = opts.cursorline or false })
  return win
end

return M
