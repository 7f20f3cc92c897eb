--- Small helpers many modules share: the host client without a require at load, one way to
--- tell the user something, the first line of an error. Requires nothing at load.
local M = {}

--- The host client (`bb7.backend`), required on first use, so a module that talks to the
--- host loads without it.
---@return bb7.Backend
function M.backend() return require('bb7.backend') end

--- Tells the user `message` in one line (`bb7.log.notify`).
---@param message string
---@param level? 'error'|'warn'|'info' default 'info'
function M.notify(message, level) require('bb7.log').notify(message, level) end

--- The first line of `text` (an error or a reply, turned into a string).
---@param text any
---@return string
function M.first_line(text) return (tostring(text):gsub('\n.*', '')) end

local seq = 0

--- A new id for a send (its events and its `done` carry it): unique in this Neovim.
---@return string
function M.request_id()
  seq = seq + 1
  return ('%x-%d'):format(os.time(), seq)
end

--- `1 model`, `2 models`: `count` and `word`, plural unless one.
---@param count integer
---@param word string
---@return string
function M.plural(count, word) return ('%d %s%s'):format(count, word, count == 1 and '' or 's') end

return M
