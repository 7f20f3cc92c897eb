-- bb7: commands and <Plug> mappings only; everything else loads on first use.
if vim.g.loaded_bb7 then return end
vim.g.loaded_bb7 = true

if vim.fn.has('nvim-0.11.4') == 0 then
  vim.notify('bb7: needs Neovim 0.11.4 or newer', vim.log.levels.ERROR, { title = 'bb7' })
  return
end

require('bb7.commands').define()
