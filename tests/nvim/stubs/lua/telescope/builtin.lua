-- Test stub of telescope.builtin `find_files(opts)` (telescope.nvim at
-- 7d324792b7943e4aa16ad007212e6acc6f9fe335, builtin/__files.lua): the files under `opts.cwd`
-- (the current directory), as relative paths, in a picker of make_entry.gen_from_file entries
-- with the caller's `attach_mappings`. (telescope runs rg or fd: their order, sorted here.)
local M = {}

function M.find_files(opts)
  opts = opts or {}
  local cwd = opts.cwd or vim.fn.getcwd()
  local files = {}
  for name, type in vim.fs.dir(cwd, { depth = math.huge }) do
    if type == 'file' and not name:match('^%.') and not name:match('/%.') then
      table.insert(files, name)
    end
  end
  table.sort(files)
  require('telescope.pickers')
    .new(opts, {
      prompt_title = 'Find Files',
      finder = require('telescope.finders').new_table({
        results = files,
        entry_maker = require('telescope.make_entry').gen_from_file(opts),
      }),
    })
    :find()
end

return M
