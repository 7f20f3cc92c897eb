--- `:BB7Diff`: the local file beside its pending output in a diff tab. The output is a
--- read-only scratch buffer; take hunks with Vim's own |do| (in the file) or |dp| (in the
--- output), move with |]c| and |[c|. Closing the output window (or the tab) tells the host,
--- which records what was taken: all of it, part (the rest stays pending, so the next
--- `:BB7Diff` shows only that), or nothing. The file is never written here: taken hunks stay
--- in the modified buffer until the user writes it. Lines the user changed since the snapshot
--- are marked `your edit` in the file's window: |do| on them would undo the user's own work.
local M = {}

local OWN = vim.api.nvim_create_namespace('bb7_diff_own')

local function finish(session)
  pcall(vim.api.nvim_del_autocmd, session.closing)
  if vim.api.nvim_buf_is_valid(session.buf) then
    vim.api.nvim_buf_clear_namespace(session.buf, OWN, 0, -1)
  end
  -- Leave no window of the file in diff mode, and no half-closed diff tab.
  for _, win in ipairs(vim.fn.win_findbuf(session.buf)) do
    vim.api.nvim_win_call(win, function() vim.cmd('diffoff') end)
  end
  local tab = session.tab
  if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
    local wins = vim.api.nvim_tabpage_list_wins(tab)
    if #wins == 1 and vim.api.nvim_win_get_buf(wins[1]) == session.buf then
      vim.cmd.tabclose(vim.api.nvim_tabpage_get_number(tab))
    end
  end
  require('bb7.backend').request('finish_merge', {
    path = session.path,
    buffers = require('bb7.buffer').for_request(session.path),
  }, function(err, value)
    if err then return require('bb7.backend').report(err) end
    -- Like any Vim diff, taken hunks stay in the buffer: the file is the user's to write.
    local buf = session.buf
    local took = vim.api.nvim_buf_is_loaded(buf)
      and vim.bo[buf].modified
      and vim.api.nvim_buf_get_changedtick(buf) ~= session.tick
    require('bb7.log').notify(took and value.message .. '; :w writes them' or value.message)
  end)
end

--- Opens the diff tab for `view` (the host's `diff` reply).
---@param view bb7.DiffView
function M.open(view)
  vim.cmd('tab split ' .. vim.fn.fnameescape(view.path))
  local buf = vim.api.nvim_get_current_buf()
  local file_win = vim.api.nvim_get_current_win()
  local filetype = vim.bo[buf].filetype
  local session = {
    path = view.path,
    buf = buf,
    tab = vim.api.nvim_get_current_tabpage(),
    tick = vim.api.nvim_buf_get_changedtick(buf),
  }
  vim.cmd('diffthis')
  local count = vim.api.nvim_buf_line_count(buf)
  for _, line in ipairs(view.own) do
    if line <= count then
      vim.api.nvim_buf_set_extmark(buf, OWN, line - 1, 0, {
        virt_text = { { 'your edit', 'BB7DiffOwn' } },
        virt_text_pos = 'eol',
      })
    end
  end
  vim.cmd('rightbelow vertical new')
  local out = vim.api.nvim_get_current_buf()
  vim.bo[out].buftype = 'nofile'
  vim.bo[out].bufhidden = 'wipe'
  vim.bo[out].swapfile = false
  vim.api.nvim_buf_set_lines(out, 0, -1, false, view.lines)
  vim.bo[out].modifiable = false
  vim.bo[out].readonly = true
  vim.bo[out].filetype = filetype
  pcall(vim.api.nvim_buf_set_name, out, 'bb7://pending/' .. view.name)
  vim.cmd('diffthis')
  local out_win = vim.api.nvim_get_current_win()
  -- `:q` in the file's window would leave the output alone in the tab, the merge unrecorded:
  -- it closes the output too (which records it).
  session.closing = vim.api.nvim_create_autocmd('WinClosed', {
    pattern = tostring(file_win),
    once = true,
    desc = 'bb7: close the pending output with the file window of the diff',
    callback = function()
      vim.schedule(function()
        -- (Not when it is the last window: `q` there still records the merge.)
        if vim.api.nvim_win_is_valid(out_win) then pcall(vim.api.nvim_win_close, out_win, true) end
      end)
    end,
  })
  vim.keymap.set('n', 'q', '<Cmd>close<CR>', {
    buffer = out,
    desc = 'bb7: close the diff and record what was merged',
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = out,
    once = true,
    desc = 'bb7: record what the diff merged',
    callback = function()
      vim.schedule(function() finish(session) end)
    end,
  })
  vim.api.nvim_set_current_win(file_win)
end

return M
