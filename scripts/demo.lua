-- `make demo`: Neovim with bb7 on a throwaway copy of the example project. Run it from that
-- copy: `nvim -u <plugin>/scripts/demo.lua`. The plugin comes from this checkout and its Python
-- host from the checkout's .venv; nothing of the user's own configuration is loaded.
local root =
  vim.fn.fnamemodify((debug.getinfo(1, 'S') --[[@as { source: string }]]).source:sub(2), ':p:h:h')
vim.opt.runtimepath:prepend(root)
vim.o.swapfile = false
vim.o.laststatus = 2
vim.o.signcolumn = 'yes:2'
vim.o.statusline = ' %f %m%=%{v:lua.require("bb7").statusline()} '
require('bb7').setup()

-- `:help bb7` needs a tags file beside the help, which plugin managers write on install. Made
-- in a scratch dir and renamed into place, so a demo starting alongside never reads half a file.
local function helptags()
  local doc = root .. '/doc'
  local tags, help = vim.uv.fs_stat(doc .. '/tags'), vim.uv.fs_stat(doc .. '/bb7.txt')
  if not help or (tags and tags.mtime.sec >= help.mtime.sec) then return end
  local scratch = ('%s/.tags-%d'):format(doc, vim.fn.getpid())
  vim.fn.mkdir(scratch, 'p')
  vim.uv.fs_copyfile(doc .. '/bb7.txt', scratch .. '/bb7.txt')
  vim.cmd.helptags(vim.fn.fnameescape(scratch))
  vim.uv.fs_rename(scratch .. '/tags', doc .. '/tags')
  vim.fn.delete(scratch, 'rf')
end
helptags()

-- An answer as a web chat would give it, ready for :BB7Paste.
vim.fn.setreg('r', vim.fn.readfile(root .. '/python/bb7/examples/apply-demo/response.md'))

local function guide()
  local lines = { 'bb7 demo: greet.py and README.md are in the chat (:BB7Add adds more).' }
  if (vim.env.OPENROUTER_API_KEY or '') == '' then
    vim.list_extend(lines, {
      'No API key: quit, `export OPENROUTER_API_KEY=...` and start again',
      "(or set `provider.api_key` to a 'cmd:' or 'file:' source: :help bb7-config).",
    })
  else
    table.insert(lines, "Ask the model: :lua require('bb7').send('Let greet take a title')")
  end
  vim.list_extend(lines, {
    'Without a key: :BB7Paste r pastes an example answer (register r) to review.',
    'Then :BB7Review shows them: ]h/[h move, ga accepts, gr rejects, q ends.',
    'Edited the file too? :BB7Merge keeps your edits; :BB7Discard drops a change.',
  })
  return lines
end

vim.api.nvim_create_autocmd('VimEnter', {
  once = true,
  desc = 'bb7 demo: open the example and show what to try',
  callback = function()
    vim.cmd.edit('greet.py')
    vim.cmd('BB7Init')
    vim.cmd('BB7Add')
    vim.cmd('BB7Add README.md')
    local help = guide()
    vim.cmd(('topleft %dnew'):format(#help))
    vim.api.nvim_buf_set_lines(0, 0, -1, false, help)
    vim.bo.buftype, vim.bo.bufhidden, vim.bo.modifiable = 'nofile', 'wipe', false
    vim.api.nvim_buf_set_name(0, 'bb7-demo')
    vim.cmd.wincmd('p')
  end,
})
