--- The chat view's questions and messages: confirmations through |vim.ui.select()| (so
--- telescope, fzf-lua, snacks or dressing take over when installed) and one-line messages
--- through |vim.notify()|, never a prompt that stops the editor.
local M = {}

--- Asks `question`; `on_yes()` runs only when the user picks Yes.
---@param question string
---@param on_yes fun()
function M.confirm(question, on_yes)
  vim.ui.select({ 'Yes', 'No' }, { prompt = question, kind = 'bb7.confirm' }, function(choice)
    -- The built-in select lists the choices in the message area: clear it, or the next
    -- message would wait for Enter below them.
    vim.cmd('redraw')
    if choice == 'Yes' then on_yes() end
  end)
end

--- Tells the user (one line; see `bb7.log`).
---@param message string
---@param level? 'error'|'warn'|'info'
function M.say(message, level) require('bb7.log').notify(message, level) end

return M
