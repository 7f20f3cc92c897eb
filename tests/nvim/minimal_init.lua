-- Test init: the plugin under test on 'runtimepath', stable screens, nothing from the user.
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')
vim.opt.runtimepath:prepend(root)
vim.o.swapfile = false
-- Python filetype plugins probe the python3 provider (~1.5 s); only the rplugin test needs it,
-- and it sets g:python3_host_prog with --cmd (which runs before this file).
if vim.g.python3_host_prog == nil then vim.g.loaded_python3_provider = 0 end
vim.o.shadafile = 'NONE'
vim.o.more = false
vim.o.laststatus = 2
vim.o.statusline = '%f %{v:lua.require("bb7").statusline()}'
vim.o.signcolumn = 'yes:2'

-- Like a notification plugin would: keep every notification (with its level) for the tests and
-- show it in the message area, without the 1 s pause Neovim makes after an error message.
_G.notifications = {}
vim.notify = function(msg, level)
  table.insert(_G.notifications, { msg = msg, level = level })
  local hl = level == vim.log.levels.ERROR and 'ErrorMsg'
    or level == vim.log.levels.WARN and 'WarningMsg'
    or 'Normal'
  vim.api.nvim_echo({ { msg, hl } }, true, {})
end
