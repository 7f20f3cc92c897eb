--- The model picker (|vim.ui.select()|): the provider's models that can call tools (or may:
--- unknown counts as yes), favourites first in the order of `favorite_models`, then by id.
local M = {}

local function backend() return require('bb7.backend') end

--- `models` (ModelInfo tables) in picker order, without models known not to support tools
--- (a favourite is always kept).
function M.order(models, favorites)
  local rank = {}
  for i, id in ipairs(favorites or {}) do
    rank[id] = i
  end
  local kept = vim.tbl_filter(
    function(m) return rank[m.id] or m.supports_tools ~= false end,
    models
  )
  table.sort(kept, function(a, b)
    local ra, rb = rank[a.id] or math.huge, rank[b.id] or math.huge
    if ra ~= rb then return ra < rb end
    return a.id < b.id
  end)
  return kept
end

local function label(model, favorites)
  local parts = { (vim.tbl_contains(favorites, model.id) and '★ ' or '  ') .. model.id }
  if type(model.context_length) == 'number' then
    table.insert(parts, require('bb7.chat.files').format_tokens(model.context_length) .. ' ctx')
  end
  if model.supports_reasoning == true then table.insert(parts, 'reasoning') end
  return table.concat(parts, ' · ')
end

--- Lets the user choose the active chat's model.
function M.pick()
  backend().request('models', vim.empty_dict(), function(err, value)
    if err then return backend().report(err) end
    local favorites = require('bb7.config').get().favorite_models
    local models = value.models or value
    vim.ui.select(M.order(models, favorites), {
      prompt = 'bb7 model',
      format_item = function(m) return label(m, favorites) end,
    }, function(choice)
      if not choice then return end
      backend().request('set_model', { model = choice.id }, function(set_err)
        if set_err then return backend().report(set_err) end
        require('bb7.chat').refresh()
      end)
    end)
  end)
end

return M
