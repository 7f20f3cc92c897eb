--- The chat view's questions and messages: confirmations through |vim.ui.select()| (so
--- telescope, fzf-lua, snacks or dressing take over when installed) and one-line messages
--- through |vim.notify()|, never a prompt that stops the editor.
local M = {}

--- |vim.ui.select()|; `on_choice(choice, index)` runs once the message area is clear: the
--- built-in select lists the choices there, and a message given below them (the host's
--- answer to the choice) would wait for Enter.
---@param items any[]
---@param opts table
---@param on_choice fun(choice: any?, index: integer?)
function M.select(items, opts, on_choice)
  vim.ui.select(items, opts, function(choice, index)
    vim.cmd('redraw')
    on_choice(choice, index)
  end)
end

--- Asks `question`; `on_yes()` runs only when the user picks Yes.
---@param question string
---@param on_yes fun()
function M.confirm(question, on_yes)
  M.select({ 'Yes', 'No' }, { prompt = question, kind = 'bb7.confirm' }, function(choice)
    if choice == 'Yes' then on_yes() end
  end)
end

--- Tells the user (one line; see `bb7.log`).
---@param message string
---@param level? 'error'|'warn'|'info'
function M.say(message, level) require('bb7.log').notify(message, level) end

return M
