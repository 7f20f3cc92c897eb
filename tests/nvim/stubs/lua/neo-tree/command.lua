-- Test stub of neo-tree.nvim's `require('neo-tree.command').execute(args)` (see init.lua).
return { execute = function(args) return require('neo-tree').show(args.dir or vim.fn.getcwd()) end }
