-- Test stub of nvim-cmp, written from hrsh7th/nvim-cmp at
-- a1d504892f2bc56c2e79b65c6faded2fd21f3eca: the module (lua/cmp/init.lua) and what its plugin
-- file does at load (plugin/cmp.lua here: listen to Insert mode, then `User CmpReady`).
--   * `register_source(name, source)` keeps the source (and fires `User CmpRegisterSource`);
--     only sources registered by the time cmp completes are asked, and only those `setup()`
--     lists by name.
--   * source.lua `complete`: a source is asked when its trigger character is typed, or when
--     its keyword (`get_keyword_pattern()`, matched up to the cursor) starts somewhere new or
--     its last answer was incomplete; `is_available()` first. The items are matched against
--     the text from the keyword's start (matcher.lua matches at word starts; here the typed
--     text must start the label).
--   * core.lua `confirm`: the typed text from the keyword's start is replaced by the item's
--     `insertText or label`, then the source's `execute(item, callback)` runs.
local M = { sources = {}, entries = {}, config = { sources = {} } }

local H = { active = {} } -- source id -> { offset, items, incomplete, request_offset }

function M.setup(config) M.config = vim.tbl_deep_extend('force', M.config, config or {}) end

---@return integer id
function M.register_source(name, source)
  table.insert(M.sources, { name = name, source = source })
  vim.api.nvim_exec_autocmds(
    'User',
    { pattern = 'CmpRegisterSource', data = { source_id = #M.sources } }
  )
  return #M.sources
end

function M.get_registered_sources()
  return vim.tbl_map(function(s) return s.source end, M.sources)
end

local function configured()
  local names = {}
  for _, spec in ipairs(M.config.sources) do
    names[spec.name] = true
  end
  local out = {}
  for id, registered in ipairs(M.sources) do
    if names[registered.name] then out[id] = registered.source end
  end
  return out
end

local function filter()
  local cursor = vim.api.nvim_win_get_cursor(0)
  local before = vim.api.nvim_get_current_line():sub(1, cursor[2])
  M.entries = {}
  for _, state in pairs(H.active) do
    local typed = before:sub(state.offset):lower()
    for _, item in ipairs(state.items) do
      if vim.startswith((item.filterText or item.label):lower(), typed) then
        table.insert(M.entries, { completion_item = item, offset = state.offset, source = state })
      end
    end
  end
end

--- core.lua `on_change` on TextChangedI: asks the sources that should be asked.
function M._on_change()
  local cursor = vim.api.nvim_win_get_cursor(0)
  local before = vim.api.nvim_get_current_line():sub(1, cursor[2])
  for id, source in pairs(configured()) do
    if source.is_available == nil or source:is_available() then
      local pattern = source.get_keyword_pattern and source:get_keyword_pattern()
        or [[\%(-\?\d\+\%(\.\d\+\)\?\|\h\w*\%(-\w*\)*\)]]
      local start = vim.regex([[\%(]] .. pattern .. [[\)$]]):match_str(before)
      local offset = (start or #before) + 1
      local triggers = source.get_trigger_characters and source:get_trigger_characters() or {}
      local state = H.active[id]
      local ask = vim.tbl_contains(triggers, before:sub(-1))
        or (start ~= nil and offset <= #before and (not state or state.request_offset ~= offset))
        or (state and state.incomplete)
      if ask then
        local params = {
          offset = offset,
          context = {
            bufnr = 0,
            cursor_before_line = before,
            cursor = { row = cursor[1], col = cursor[2] + 1 },
          },
        }
        local asked = { source = source, offset = offset, request_offset = offset, items = {} }
        H.active[id] = asked
        source:complete(params, function(response)
          if H.active[id] ~= asked then return end
          asked.items = response.items or response
          asked.incomplete = response.isIncomplete or false
          filter()
        end)
      end
    end
  end
  filter()
end

function M._close()
  H.active, M.entries = {}, {}
end

function M.visible() return #M.entries > 0 end

function M.get_entries() return M.entries end

--- Confirms the first entry (`{ select = true }`).
function M.confirm()
  local entry = M.entries[1]
  if not entry then return false end
  local item = entry.completion_item
  local cursor = vim.api.nvim_win_get_cursor(0)
  local word = item.insertText or item.label
  vim.api.nvim_buf_set_text(0, cursor[1] - 1, entry.offset - 1, cursor[1] - 1, cursor[2], { word })
  vim.api.nvim_win_set_cursor(0, { cursor[1], entry.offset - 1 + #word })
  M._close()
  if entry.source.source.execute then entry.source.source:execute(item, function() end) end
  return true
end

return M
