-- Test init: the plugin under test on 'runtimepath', stable screens, nothing from the user.
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')
vim.opt.runtimepath:prepend(root)
vim.o.swapfile = false
vim.o.shadafile = 'NONE'
vim.o.more = false
vim.o.laststatus = 2
vim.o.statusline = '%f %{v:lua.require("bb7").statusline()}'
vim.o.signcolumn = 'yes:2'
