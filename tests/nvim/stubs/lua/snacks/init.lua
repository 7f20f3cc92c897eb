-- Test stub of snacks.nvim's picker, written from folke/snacks.nvim at
-- ad9ede6a9cddf16cedbd31b8932d6dcdee9b716e (lua/snacks/picker/). `Snacks.picker.pick(opts)`
-- (items given) and `Snacks.picker.files(opts)` (items `{ file, cwd, text }` of the files
-- under `opts.cwd`, source/files.lua) open an input window over the list, first item
-- current. Its keys (config/defaults.lua): `<Tab>` = 'select_and_next' (toggle the current
-- item, move down), `<Down>` = 'list_down', `<CR>` = 'confirm', and `opts.win.input.keys` naming actions of
-- `opts.actions`. An action is called as core/actions.lua `wrap` does: `fn(picker,
-- picker:current(), action)`. `picker:selected({ fallback = true })` (core/picker.lua) gives
-- copies of the selected items in the order selected, else the current one; `close()` leaves
-- Insert mode at once and closes the windows on the next loop (vim.schedule).
local Picker = {}
Picker.__index = Picker

function Picker:current() return self.items[self.cursor] end

function Picker:selected(opts)
  local out = vim.deepcopy(self.chosen)
  if #out == 0 and opts and opts.fallback then out = { self:current() } end
  return out
end

function Picker:close()
  vim.cmd.stopinsert()
  if self.closed then return end
  self.closed = true
  vim.schedule(function()
    if vim.api.nvim_win_is_valid(self.win) then vim.api.nvim_win_close(self.win, true) end
  end)
end

-- list.lua `select`: toggles the current item.
function Picker:select_and_next()
  local item = self:current()
  for i, chosen in ipairs(self.chosen) do
    if chosen == item then
      table.remove(self.chosen, i)
      item = nil
      break
    end
  end
  if item then table.insert(self.chosen, item) end
  self.cursor = math.min(self.cursor + 1, #self.items)
end

function Picker:action(name)
  local fn = self.opts.actions and self.opts.actions[name] or self.opts[name]
  if name == 'select_and_next' then return self:select_and_next() end
  if name == 'list_down' then
    self.cursor = math.min(self.cursor + 1, #self.items)
    return
  end
  if type(fn) == 'string' then return self:action(fn) end
  return fn(self, self:current(), { name = name })
end

local M = { picker = {} }
_G.Snacks = M

function M.picker.pick(opts)
  local picker = setmetatable({ opts = opts, items = opts.items, cursor = 1, chosen = {} }, Picker)
  -- The input starts in Insert mode (`<CR>` and `<Tab>` are mapped in both).
  picker.buf = vim.api.nvim_create_buf(false, true)
  vim.bo[picker.buf].filetype = 'snacks_picker_input'
  picker.win = vim.api.nvim_open_win(picker.buf, true, {
    relative = 'editor',
    row = 1,
    col = 1,
    width = 40,
    height = 1,
  })
  vim.cmd.startinsert()
  local keys = vim.tbl_extend('force', {
    ['<Tab>'] = { 'select_and_next', mode = { 'i', 'n' } },
    ['<Down>'] = { 'list_down', mode = { 'i', 'n' } },
    ['<CR>'] = { 'confirm', mode = { 'n', 'i' } },
  }, vim.tbl_get(opts, 'win', 'input', 'keys') or {})
  for lhs, spec in pairs(keys) do
    vim.keymap.set(
      spec.mode or 'n',
      lhs,
      function() picker:action(spec[1]) end,
      { buffer = picker.buf }
    )
  end
  M.picker.last = picker
  return picker
end

function M.picker.files(opts)
  opts = vim.tbl_extend('force', { confirm = 'jump' }, opts or {})
  local cwd = opts.cwd or vim.uv.cwd()
  opts.items = {}
  for name, type in vim.fs.dir(cwd, { depth = math.huge }) do
    if type == 'file' and not name:match('^%.') and not name:match('/%.') then
      table.insert(opts.items, { file = name, cwd = cwd, text = name })
    end
  end
  table.sort(opts.items, function(a, b) return a.file < b.file end)
  opts.jump = function(picker)
    local item = picker:current()
    picker:close()
    vim.cmd.edit(vim.fn.fnameescape(vim.fs.joinpath(item.cwd, item.file)))
  end
  return M.picker.pick(opts)
end

return M
