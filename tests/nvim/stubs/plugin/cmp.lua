-- Test stub of nvim-cmp's plugin/cmp.lua (hrsh7th/nvim-cmp at
-- a1d504892f2bc56c2e79b65c6faded2fd21f3eca; see lua/cmp/init.lua here): sourced when the
-- plugin loads (lazy.nvim sources it on the plugin's event), it listens to Insert mode and
-- ends with `doautocmd User CmpReady`.
if vim.g.loaded_cmp then return end
vim.g.loaded_cmp = true
local group = vim.api.nvim_create_augroup('cmp_stub', { clear = true })
vim.api.nvim_create_autocmd(
  'TextChangedI',
  { group = group, callback = function() require('cmp')._on_change() end }
)
vim.api.nvim_create_autocmd(
  'InsertLeave',
  { group = group, callback = function() require('cmp')._close() end }
)
vim.keymap.set('i', '<C-y>', function()
  if not require('cmp').confirm() then vim.api.nvim_feedkeys(vim.keycode('<C-y>'), 'n', false) end
end)
vim.cmd('doautocmd <nomodeline> User CmpReady')
