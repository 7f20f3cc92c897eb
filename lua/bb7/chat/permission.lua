--- An agent asking before a tool call (|bb7-agents|, `agents.permissions = 'ask'`): one line
--- in the conversation, answered by a key (`y` allow once, `a` allow always, `n` reject: the
--- agent's own options) in any pane of the chat view, in Normal mode, while it is open. The
--- keys are buffer-local and go when the question is answered or the turn ends; whatever
--- those buffers mapped to them before comes back. The host decides nothing here: the answer
--- is the agent's option, sent as it is (`agent_answer`).
local M = {}

---@class bb7.OpenQuestion
---@field ask_id string
---@field said fun(answer: string) shows the answer where the question was
---@field saved { buf: integer, lhs: string, map: table }[] what the keys were before

---@type bb7.OpenQuestion?
local open = nil

local backend = require('bb7.util').backend
local notify = require('bb7.util').notify

--- The question as the conversation shows it: `opencode asks: x.py (edit)? y allow
--- once · a always · n reject`.
---@param p bb7.AgentPermission
---@return string
function M.line(p)
  local keys = {}
  for _, choice in ipairs(p.choices) do
    table.insert(keys, ('%s %s'):format(choice.key, choice.name:lower()))
  end
  return ('%s? %s'):format(p.question, table.concat(keys, ' · '))
end

--- Takes the keys back (the question was answered, or the turn ended).
function M.clear()
  if not open then return end
  for _, kept in ipairs(open.saved) do
    if vim.api.nvim_buf_is_valid(kept.buf) then
      pcall(vim.keymap.del, 'n', kept.lhs, { buffer = kept.buf })
      if next(kept.map) then
        vim.api.nvim_buf_call(kept.buf, function() vim.fn.mapset('n', false, kept.map) end)
      end
    end
  end
  open = nil
end

--- Sends `choice` as the answer to the open question.
---@param choice bb7.AgentChoice
function M.answer(choice)
  local question = open
  if not question then return end
  M.clear()
  local args = { ask_id = question.ask_id, option_id = choice.option_id }
  backend().request('agent_answer', args, function(err, taken)
    if err then return backend().report(err) end
    if not taken then return notify('the agent no longer waits for that answer', 'warn') end
    question.said(choice.name:lower())
  end)
end

--- Maps the answers' keys in the view's panes; `said(answer)` shows what was answered.
---@param p bb7.AgentPermission
---@param said fun(answer: string)
function M.ask(p, said)
  M.clear()
  open = { ask_id = p.ask_id, said = said, saved = {} }
  local view = require('bb7.chat.view')
  for _, pane in ipairs({ 'conversation', 'files', 'input' }) do
    local buf = view.state.bufs[pane]
    if buf and vim.api.nvim_buf_is_valid(buf) then
      for _, choice in ipairs(p.choices) do
        local map = vim.api.nvim_buf_call(
          buf,
          function() return vim.fn.maparg(choice.key, 'n', false, true) end
        )
        table.insert(
          open.saved,
          { buf = buf, lhs = choice.key, map = map.buffer == 1 and map or {} }
        )
        vim.keymap.set('n', choice.key, function() M.answer(choice) end, {
          buffer = buf,
          nowait = true,
          desc = 'bb7: answer the agent: ' .. choice.name,
        })
      end
    end
  end
  local win = view.win('conversation')
  if not win or vim.api.nvim_win_get_tabpage(win) ~= vim.api.nvim_get_current_tabpage() then
    notify(('%s: answer in the chat view (:BB7Chat)'):format(p.question), 'warn')
  end
end

return M
