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

--- Runs `fn` once the Insert or Terminal mode the editor is in has ended, else now. A
--- picker runs its action in the mode of its prompt (telescope and snacks: Insert, fzf-lua:
--- its terminal's), which ends right after it; its end clears the command line, and a message
--- given before it with it.
---@param fn fun()
function M.after_mode(fn)
  local mode = vim.api.nvim_get_mode().mode
  local ends = mode == 't' and 'TermLeave' or mode:match('^i') and 'InsertLeave' or nil
  if not ends then return fn() end
  vim.api.nvim_create_autocmd(ends, {
    once = true,
    desc = "bb7: a picker's message, once its mode ended",
    callback = vim.schedule_wrap(fn),
  })
end

--- Tells the user (one line; see `bb7.log`).
---@param message string
---@param level? 'error'|'warn'|'info'
function M.say(message, level) require('bb7.log').notify(message, level) end

return M
