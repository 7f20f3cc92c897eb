--- The model picker (|vim.ui.select()|), for the chat view's `gm` and |:BB7Model|: the
--- provider's models as the host lists them (tool-capable first; the list comes as a `models`
--- event, fetching may take a moment), with the favourites first, in their order: the
--- `favorite_models` option's and those marked in the picker's last item (kept in
--- `stdpath('data')/bb7/favorites.json`).
local M = {}

--- Model ids of the last list, for completing `:BB7Model`.
M.ids = {}

local backend = require('bb7.util').backend
local notify = require('bb7.util').notify

local function set(value) return value ~= nil and value ~= vim.NIL end

--- `models` in picker order: favourites first (in `favorites` order), then as listed.
---@param models table[] the host's models (`bb7.provider.models.ModelInfo`)
---@param favorites string[]
---@return table[]
function M.order(models, favorites)
  local rank = {}
  for i, id in ipairs(favorites or {}) do
    rank[id] = i
  end
  local ordered = {}
  for i, m in ipairs(models) do
    ordered[i] = { m, rank[m.id] or (#favorites + i) }
  end
  table.sort(ordered, function(a, b) return a[2] < b[2] end)
  return vim.tbl_map(function(pair) return pair[1] end, ordered)
end

--- One line of the picker: id, then what bb7 cares about (tools and who said so, context,
--- price, how its edits landed in this project).
---@param m table a model
---@param favorites string[]
---@return string
function M.describe(m, favorites)
  local notes = {}
  local said = set(m.capabilities_source)
      and m.capabilities_source ~= ''
      and (' per ' .. m.capabilities_source)
    or ''
  if m.supports_tools == false then
    table.insert(notes, 'no tools' .. said .. ': text edit blocks')
  elseif m.supports_tools == true and said ~= '' then
    table.insert(notes, 'tools' .. said)
  end
  if set(m.context) and m.context ~= '' then table.insert(notes, m.context .. ' context') end
  local price = m.pricing and m.pricing.prompt
  if set(price) then table.insert(notes, ('$%.2f/M in'):format(price * 1e6)) end
  if set(m.edits) and m.edits ~= '' then table.insert(notes, m.edits) end
  local star = vim.tbl_contains(favorites, m.id) and '★ ' or ''
  local id = star .. m.id
  return #notes > 0 and ('%s  (%s)'):format(id, table.concat(notes, ', ')) or id
end

-- The last item of the picker: mark or unmark a favourite (BB-7's <C-f>).
local TOGGLE = { id = '', toggle = true }

--- Where the favourites marked in the picker are kept: `added` to the option's and `removed`.
---@return string
function M.store_path() return vim.fn.stdpath('data') .. '/bb7/favorites.json' end

local function stored()
  local ok, data = pcall(
    function() return vim.json.decode(table.concat(vim.fn.readfile(M.store_path()), '\n')) end
  )
  if not ok or type(data) ~= 'table' then data = {} end
  return { added = data.added or {}, removed = data.removed or {} }
end

--- The favourite models: the `favorite_models` option's, with those marked in the picker
--- added and those unmarked there left out.
---@return string[]
function M.favorites()
  local kept = stored()
  local out = {}
  for _, id in
    ipairs(vim.list_extend(vim.deepcopy(require('bb7.config').get().favorite_models), kept.added))
  do
    if not vim.tbl_contains(kept.removed, id) and not vim.tbl_contains(out, id) then
      table.insert(out, id)
    end
  end
  return out
end

--- Marks `id` a favourite, or unmarks it; returns whether it is one now.
---@param id string
---@return boolean
function M.toggle(id)
  local kept, now = stored(), not vim.tbl_contains(M.favorites(), id)
  local function without(list)
    return vim.tbl_filter(function(x) return x ~= id end, list)
  end
  kept.added, kept.removed = without(kept.added), without(kept.removed)
  table.insert(now and kept.added or kept.removed, id)
  vim.fn.mkdir(vim.fn.fnamemodify(M.store_path(), ':h'), 'p')
  vim.fn.writefile({ vim.json.encode(kept) }, M.store_path())
  return now
end

---@param models table[]
---@param favorites string[]
---@param again fun()
local function pick_favorite(models, favorites, again)
  require('bb7.chat.ui').select(models, {
    prompt = 'bb7: mark or unmark a favourite model',
    format_item = function(m) return (vim.tbl_contains(favorites, m.id) and '★ ' or '  ') .. m.id end,
  }, function(choice)
    if not choice then return end
    local now = M.toggle(choice.id)
    notify(('%s %s'):format(choice.id, now and 'is a favourite now' or 'is no longer a favourite'))
    again()
  end)
end

--- Lets the user choose the active chat's model; `on_set()` runs once it is set. Its last
--- item marks or unmarks a favourite, then the picker opens again.
---@param on_set? fun()
function M.pick(on_set)
  local stop ---@type fun()?
  stop = require('bb7.events').on('models', function(list)
    if stop then stop() end
    if set(list.error) then return notify(list.error, 'error') end
    if set(list.warning) then notify(list.warning, 'warn') end
    M.ids = vim.tbl_map(function(m) return m.id end, list.models)
    local favorites = M.favorites()
    local prompt = 'bb7 model' .. (list.current ~= '' and (' (now ' .. list.current .. ')') or '')
    local items = M.order(list.models, favorites)
    table.insert(items, TOGGLE)
    require('bb7.chat.ui').select(items, {
      prompt = prompt,
      format_item = function(m)
        return m.toggle and '☆ mark or unmark a favourite…' or M.describe(m, favorites)
      end,
    }, function(choice)
      if not choice then return end
      if choice.toggle then
        return pick_favorite(list.models, favorites, function() M.pick(on_set) end)
      end
      backend().request('set_model', { model = choice.id }, function(err, value)
        if err then return backend().report(err) end
        if type(value) == 'table' and type(value.message) == 'string' then notify(value.message) end
        if on_set then on_set() end
      end)
    end)
  end)
  backend().request('models', nil, function(err)
    if err then
      stop()
      backend().report(err)
    end
  end)
end

return M
