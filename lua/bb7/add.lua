--- Adding to the chat's context from the editor: |:BB7Add|, the file picker and `@` send what
--- the user named here. The host expands it (paths, sections, directories, globs) and may ask
--- first (many files, a file that looks like a secret): the question goes through
--- |vim.ui.select()| and the answer back to the host, which adds.
local M = {}

local backend = require('bb7.util').backend

--- Adds `specs` (relative to the current directory); `done(err, message)` afterwards
--- (`message` nil: the user cancelled). `gathered`: the editor gathered them (buffers, the
--- quickfix list), so one that cannot be added is skipped, not a refusal of all.
---@param specs string[]
---@param readonly boolean
---@param done fun(err: any, message: string?)
---@param gathered? boolean
function M.paths(specs, readonly, done, gathered)
  -- One file: its buffer even when unchanged (the host publishes its status through it).
  local one = #specs == 1 and vim.fn.fnamemodify(specs[1], ':p') or nil
  local function send(answer)
    local args = {
      specs = specs,
      cwd = vim.fn.getcwd(),
      readonly = readonly,
      answer = answer,
      buffers = require('bb7.buffer').for_request(one),
      gathered = gathered or false,
    }
    backend().request('add_paths', args, function(err, plan)
      if err then return done(err) end
      if not plan.question then return done(nil, plan.message) end
      local labels = vim.tbl_map(function(choice) return choice.label end, plan.choices)
      local opts = { prompt = 'bb7: ' .. plan.question, kind = 'bb7.confirm' }
      require('bb7.chat.ui').select(labels, opts, function(label)
        for _, choice in ipairs(plan.choices) do
          if choice.label == label and choice.action ~= 'cancel' then return send(choice.action) end
        end
        done(nil, nil)
      end)
    end)
  end
  send('')
end

--- The listed buffers' files, for `:BB7Add buffers`.
---@return string[]
function M.buffers()
  local out = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    if vim.bo[buf].buflisted and vim.bo[buf].buftype == '' and name ~= '' then
      if vim.fn.filereadable(name) == 1 then table.insert(out, name) end
    end
  end
  return out
end

--- The quickfix list's files, for `:BB7Add quickfix`; with `sections`, each entry's lines
--- (`PATH:START-END`; the host merges those that overlap).
---@param sections boolean
---@return string[]
function M.quickfix(sections)
  local out, seen = {}, {}
  for _, item in ipairs(vim.fn.getqflist()) do
    local name = item.bufnr > 0 and vim.api.nvim_buf_get_name(item.bufnr) or ''
    if name ~= '' and vim.fn.filereadable(name) == 1 then
      local spec = name
      if sections and item.lnum > 0 then
        spec = ('%s:%d-%d'):format(name, item.lnum, math.max(item.end_lnum or 0, item.lnum))
      end
      if not seen[spec] then
        seen[spec] = true
        table.insert(out, spec)
      end
    end
  end
  return out
end

return M
