--- `:BB7Search [words]`: the chats (every one, or those whose name or messages hold every
--- word) in the installed picker (the `picker` option's: telescope, fzf-lua or snacks, else
--- |vim.ui.select()|), a found message's excerpt beside its chat's name; the one chosen becomes
--- the active chat, shown in the chat view. The chat list's `/` searches in its own float.
local M = {}

local backend = require('bb7.util').backend

--- One line of the picker: the chat's name, and where the words are when it is a message.
---@param hit bb7.ChatSearchHit
---@return string
function M.line(hit)
  local name = (hit.chat.scope == 'global' and '[global] ' or '') .. hit.chat.name
  return hit.match == 'message' and (name .. ' — ' .. hit.excerpt) or name
end

---@param query? string
function M.run(query)
  query = vim.trim(query or '')
  backend().request('search_chats', { query = query }, function(err, hits)
    if err then return backend().report(err) end
    if #hits == 0 then
      return require('bb7.chat.ui').say(('no chat holds "%s"'):format(query), 'warn')
    end
    local title = query == '' and 'bb7 chats' or ('bb7 chats with "%s"'):format(query)
    require('bb7.chat.picker').choose(vim.tbl_map(M.line, hits), title, function(index)
      local chat = hits[index].chat
      backend().request('switch_chat', { chat_id = chat.id }, function(switch_err)
        if switch_err then return backend().report(switch_err) end
        local view = require('bb7.chat')
        if view.is_open() then return view.show_active() end
        view.open()
      end)
    end)
  end)
end

return M
