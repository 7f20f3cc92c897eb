--- The reasoning effort of the active chat, switched at runtime: `set()` sends
--- `set_reasoning_effort` to the host, which keeps it for the chat (and as the session's
--- default) and sends it with the chat's next message. `pick()` offers the efforts with
--- |vim.ui.select()|, for a chat-view key.
local M = {}

local backend = require('bb7.util').backend

--- Sets the active chat's effort; the host confirms in one line.
---@param effort string one of `require('bb7.vocab').efforts`, or '' for the model's default
---@param on_set? fun(effort: string) runs once the host has taken it
function M.set(effort, on_set)
  backend().request('set_reasoning_effort', { effort = effort }, function(err, value)
    if err then return backend().report(err) end
    if type(value) == 'table' and type(value.message) == 'string' then
      require('bb7.log').notify(value.message)
    end
    if on_set then on_set(effort) end
  end)
end

--- Offers the efforts with |vim.ui.select()| and sets the one picked.
---@param on_set? fun(effort: string) runs once the host has taken it
function M.pick(on_set)
  local choices = vim.list_extend({ '' }, require('bb7.vocab').efforts)
  require('bb7.chat.ui').select(choices, {
    prompt = 'bb7 reasoning effort',
    format_item = function(effort) return effort == '' and "the model's default" or effort end,
  }, function(choice)
    if choice then M.set(choice, on_set) end
  end)
end

return M
