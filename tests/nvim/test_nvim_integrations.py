"""The optional integrations of `lua/bb7/integrations/`, each against a small stub of its
plugin (tests/nvim/stubs, behaving as the plugin does at the calls bb7 makes) in a real editor
with the real host: telescope, fzf-lua and snacks pickers multi-select project files and add
them at once; an oil.nvim action adds the file or directory under the cursor; a neo-tree
command adds its node; the blink.cmp and nvim-cmp sources complete `@` in the input and add
the accepted file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from chat_view_helpers import OPEN, pick_with
from editor import notifications, wait_for

STUBS = Path(__file__).parent / "stubs"

IN_CHAT = "require('bb7.status').files()[vim.fn.fnamemodify(%r, ':p')] ~= nil"


def said(nvim: Any, lua: str, *args: Any) -> str:
    """Runs `lua`, then waits for the notification it leads to (an add is answered later);
    gives it without the chat's name (a date) at the end."""
    before = len(notifications(nvim))
    nvim.exec_lua(lua, *args)
    wait_for(nvim, f"#_G.notifications > {before}")
    return re.sub(r" to Chat .*$", "", notifications(nvim)[before])


def wait_in_chat(nvim: Any, *names: str) -> None:
    wait_for(nvim, " and ".join(IN_CHAT % name for name in names))


def input_line(nvim: Any, text: str) -> None:
    """The input pane focused, holding `text`."""
    nvim.exec_lua(
        "require('bb7.chat').focus('input') vim.api.nvim_buf_set_lines(0, 0, -1, false, { ... })",
        text,
    )


# As blink.cmp calls a source: get_completions(ctx, callback), then execute(ctx, item, callback,
# default_implementation) with the item accepted (its textEdit applied by the default).
BLINK = """
local want = ...
local source = require('bb7.integrations.blink').new({})
local line = vim.api.nvim_get_current_line()
-- In Insert mode after typing, the cursor is past the line's last character.
local ctx = { bufnr = vim.api.nvim_get_current_buf(), line = line, cursor = { 1, #line } }
local got
source:get_completions(ctx, function(response) got = response end)
vim.wait(2000, function() return got ~= nil end)
local item = vim.iter(got.items):find(function(i) return i.label == want end)
local edit = vim.deepcopy(item.textEdit)
source:execute(ctx, item, function() end, function()
  vim.lsp.util.apply_text_edits({ item.textEdit }, vim.api.nvim_get_current_buf(), 'utf-8')
end)
return { enabled = source:enabled(), triggers = source:get_trigger_characters(), count = #got.items,
  edit = edit, text = vim.api.nvim_get_current_line() }
"""

# As nvim-cmp calls a registered source: is_available(), complete(params, callback) with the
# text before the cursor, then execute(item, callback) for the confirmed item.
CMP = """
local want = ...
local registered = require('cmp').sources[1]
local source = registered.source
local params = { context = { cursor_before_line = vim.api.nvim_get_current_line() } }
local got
source:complete(params, function(response) got = response end)
vim.wait(2000, function() return got ~= nil end)
local item = vim.iter(got.items):find(function(i) return i.label == want end)
source:execute(item, function() end)
return { name = registered.name, available = source:is_available(), count = #got.items,
  pattern = source:get_keyword_pattern() }
"""


def test_pickers_sources_and_file_tree_actions_add_to_the_chat(ready: Any, project: Path) -> None:
    for name in "cdefghijklmn":
        (project / f"{name}.py").write_text(f"{name} = 1\n")
    (project / "lib").mkdir()
    for i in range(21):
        (project / "lib" / f"m{i:02}.py").write_text(f"m = {i}\n")
    ready.exec_lua("vim.opt.runtimepath:prepend(...)", str(STUBS))
    ready.command("BB7Chat")
    wait_for(ready, OPEN)

    # `:BB7Add` without a path in the chat view: telescope, the first picker installed. Its
    # entries are the project's files (sorted: a.py b.py c.py ...); <Tab> on c.py and d.py
    # selects both, <CR> adds them in one request.
    ready.command("BB7Add")
    entries = ready.exec_lua(
        "local _, picker = next(require('telescope.pickers').open)"
        " return vim.tbl_map(function(e) return e.value end, picker.finder.entries)"
    )
    assert entries[:4] == ["a.py", "b.py", "c.py", "d.py"]
    before = len(notifications(ready))
    ready.input("<Down><Down><Tab><Tab><CR>")
    wait_for(ready, f"#_G.notifications > {before}")
    assert notifications(ready)[before].startswith("bb7: added 2 files")
    wait_in_chat(ready, "c.py", "d.py")

    # A user's own telescope picker (entries as find_files makes them) with the action mapped.
    out = said(
        ready,
        "local root = ... require('telescope.pickers').new({}, {"
        "  finder = require('telescope.finders').new_table({ results = { 'e.py' },"
        "    entry_maker = function(f) return { value = f, path = f, cwd = root } end }),"
        "  attach_mappings = function(_, map)"
        "    map('n', '<C-a>', require('bb7.integrations.telescope').add_selected_readonly)"
        "    return true end }):find()"
        " vim.api.nvim_feedkeys(vim.keycode('<C-a>'), 'x', false)",
        str(project),
    )
    assert out == "bb7: added e.py (readonly)"

    # fzf-lua and snacks likewise, named by the `picker` option.
    ready.exec_lua("require('bb7').setup({ picker = 'fzf_lua' })")
    out = said(
        ready,
        "vim.cmd('BB7Add') vim.wait(2000, function() return require('fzf-lua').running end)"
        " require('fzf-lua').accept({ 6, 7 })",
    )
    assert out == "bb7: added 2 files"
    ready.exec_lua("require('bb7').setup({ picker = 'snacks' })")
    out = said(
        ready,
        "vim.cmd('BB7Add') vim.wait(2000, function() return require('snacks').picker.last end)"
        " local picker = require('snacks').picker.last picker:select(8) picker:select(9)"
        " picker:confirm()",
    )
    assert out == "bb7: added 2 files"
    wait_in_chat(ready, "e.py", "f.py", "g.py", "h.py", "i.py")

    # oil: the file under the cursor, then a directory (21 files: asked first).
    ready.exec_lua(
        "vim.cmd('tabnew') vim.api.nvim_buf_set_name(0, 'oil://' .. ... .. '/')"
        " vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'j.py', 'lib/' })"
        " vim.bo.filetype = 'oil'",
        str(project),
    )
    assert said(ready, "require('bb7.integrations.oil').add()") == "bb7: added j.py (writable)"
    pick_with(ready, "Add 21 files, 42 tokens")
    ready.command("normal! j")
    out = said(ready, "require('bb7.integrations.oil').add()")
    assert out == "bb7: added 21 files"
    assert ready.exec_lua("return _G.offered.prompt") == "bb7: Add 21 files, 42 tokens?"
    ready.command("enew")
    out = said(ready, "require('bb7.integrations.oil').add()")
    assert out == "bb7: not an oil buffer: nothing to add"

    # neo-tree: the node of its state.
    out = said(
        ready,
        "local path = ... require('bb7.integrations.neo_tree').add({ tree = {"
        " get_node = function() return { type = 'file', path = path } end } })",
        str(project / "k.py"),
    )
    assert out == "bb7: added k.py (writable)"
    wait_in_chat(ready, "j.py", "k.py", "lib/m20.py")

    # blink.cmp: after `@l` in the input, its paths; accepting l.py puts it there and adds it.
    ready.command("tabclose")
    input_line(ready, "see @l")
    got = ready.exec_lua(BLINK, "l.py")
    assert got["enabled"] and got["triggers"] == ["@"] and got["count"] == len(entries)
    assert got["edit"] == {
        "newText": "l.py",
        "range": {"start": {"line": 0, "character": 5}, "end": {"line": 0, "character": 6}},
    }
    assert got["text"] == "see @l.py"
    wait_in_chat(ready, "l.py")

    # nvim-cmp: registered by setup() once cmp is loaded; the same after `@`.
    ready.exec_lua("require('cmp') require('bb7').setup()")
    input_line(ready, "and @m")
    got = ready.exec_lua(CMP, "m.py")
    assert got == {
        "name": "bb7",
        "available": True,
        "count": len(entries),
        "pattern": r"@\zs[^[:space:]@]*",
    }
    wait_in_chat(ready, "m.py")
