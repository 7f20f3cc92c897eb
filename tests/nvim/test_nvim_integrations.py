"""The optional integrations of `lua/bb7/integrations/`, each against a stub of its plugin
(tests/nvim/stubs: written from the plugin's source, each naming the commit read, returning
what the plugin's functions return) in a real editor with the real host, driven by keys as
the help sets them up: telescope, fzf-lua and snacks pickers multi-select project files and
add them at once (fzf-lua's message seen after its Terminal mode ends), and their
`add_selected` in a user's own picker; an oil.nvim action adds the file or directory under
the cursor; neo-tree commands add the node under the cursor (nui's get_node() returns three
values) and a Visual selection; the blink.cmp source offers and adds the whole path typed
after `@` (blink's keyword stops at `/`); the nvim-cmp source, with cmp loaded lazily on
InsertEnter, completes `@` and adds the accepted file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chat_view_helpers import OPEN, pick_with
from editor import poll, said_after, wait_for

STUBS = Path(__file__).parent / "stubs"

IN_CHAT = "require('bb7.status').files()[vim.fn.fnamemodify(%r, ':p')] ~= nil"


def wait_in_chat(nvim: Any, *names: str) -> None:
    poll(nvim, " and ".join(IN_CHAT % name for name in names))


def input_line(nvim: Any, text: str) -> None:
    """The input pane focused, holding `text`."""
    nvim.exec_lua(
        "require('bb7.chat').focus('input') vim.api.nvim_buf_set_lines(0, 0, -1, false, { ... })",
        text,
    )


def command_line(nvim: Any) -> str:
    """The screen's last row as it is drawn now (no `redraw!`, which would clear it)."""
    row: str = nvim.exec_lua(
        "vim.cmd('redraw') local cells = {}"
        " for c = 1, vim.o.columns do cells[c] = vim.fn.screenstring(vim.o.lines, c) end"
        " return (table.concat(cells):gsub('%s+$', ''))"
    )
    return row


BLINK_SETUP = """require('blink.cmp').setup({ sources = { default = { 'bb7' },
  providers = { bb7 = { name = 'bb7', module = 'bb7.integrations.blink' } } } })"""
# blink has answered for the text up to the cursor (and its menu holds the items).
BLINK_AT_CURSOR = """(function()
  local blink = require('blink.cmp')
  local ctx = blink.context
  return ctx and ctx.line == vim.api.nvim_get_current_line()
    and ctx.cursor[2] == vim.api.nvim_win_get_cursor(0)[2] and blink.is_menu_visible()
end)()"""
BLINK_LABELS = "vim.tbl_map(function(i) return i.label end, require('blink.cmp').get_items())"

# nvim-cmp loaded on the first InsertEnter, as lazy.nvim's `event = 'InsertEnter'` does: its
# plugin file is sourced then (its `User CmpReady` last), then its `config` runs.
CMP_LAZY = """vim.api.nvim_create_autocmd('InsertEnter', { once = true, callback = function()
  vim.cmd.runtime('plugin/cmp.lua')
  require('cmp').setup({ sources = { { name = 'bb7' } } })
end })"""


def test_pickers_sources_and_file_tree_actions_add_to_the_chat(ready: Any, project: Path) -> None:
    for name in "cdefghijklmnop":
        (project / f"{name}.py").write_text(f"{name} = 1\n")
    (project / "lib").mkdir()
    for i in range(21):
        (project / "lib" / f"m{i:02}.py").write_text(f"m = {i}\n")
    # Listed before it (the project's files are sorted): a file blink's `file3` also matches.
    for path in ("pkg00/sub/file30.txt", "pkg42/sub/file3.txt"):
        (project / path).parent.mkdir(parents=True)
        (project / path).write_text("x\n")
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
    assert said_after(ready, keys="<Down><Down><Tab><Tab><CR>") == "bb7: added 2 files"
    # Said once the prompt's Insert mode has ended (its end clears the command line).
    assert command_line(ready).startswith("bb7: added 2 files")
    wait_in_chat(ready, "c.py", "d.py")

    # A user's own find_files with the action mapped, as the help says.
    ready.exec_lua(
        "require('telescope.builtin').find_files({ attach_mappings = function(_, map)"
        " map('i', '<C-a>', require('bb7.integrations.telescope').add_selected_readonly)"
        " return true end })"
    )
    assert said_after(ready, keys="<Down>" * 4 + "<C-a>") == "bb7: added e.py (readonly)"

    # The chat search in telescope too: the chats by name; the one chosen is shown.
    ready.command("BB7Search")
    wait_for(ready, "next(require('telescope.pickers').open) ~= nil")
    listed = ready.exec_lua(
        "local _, picker = next(require('telescope.pickers').open)"
        " return vim.tbl_map(function(e) return e.value end, picker.finder.entries)"
    )
    shown = ready.exec_lua("return require('bb7.chat').state().chat.name")
    assert listed == [shown], listed
    ready.input("<CR>")
    wait_for(ready, "next(require('telescope.pickers').open) == nil")
    wait_for(ready, "require('bb7.chat').is_open()")

    # fzf-lua and snacks likewise, named by the `picker` option; and their `add_selected`
    # in a user's files() picker, as the help says.
    # fzf-lua runs the action in its closed terminal's mode: its message too is seen.
    ready.exec_lua("require('bb7').setup({ picker = 'fzf_lua' })")
    ready.command("BB7Add")
    poll(ready, "vim.api.nvim_get_mode().mode == 't'")
    assert said_after(ready, lua="require('fzf-lua').accept({ 6, 7 })") == "bb7: added 2 files"
    assert command_line(ready).startswith("bb7: added 2 files")
    ready.exec_lua(
        "require('fzf-lua').files({ actions = {"
        " ['ctrl-a'] = require('bb7.integrations.fzf_lua').add_selected } })"
    )
    out = said_after(ready, lua="require('fzf-lua').accept({ 8 }, 'ctrl-a')")
    assert out == "bb7: added h.py (writable)"
    ready.exec_lua("require('bb7').setup({ picker = 'snacks' })")
    ready.command("BB7Add")
    poll(ready, "Snacks and Snacks.picker.last and not Snacks.picker.last.closed")
    assert said_after(ready, keys="<Down>" * 8 + "<Tab><Tab><CR>") == "bb7: added 2 files"
    assert command_line(ready).startswith("bb7: added 2 files")
    ready.exec_lua(
        "Snacks.picker.files({"
        " actions = { bb7_add = require('bb7.integrations.snacks').add_selected },"
        " win = { input = { keys = { ['<C-a>'] = { 'bb7_add', mode = { 'n', 'i' } } } } } })"
    )
    assert said_after(ready, keys="<Down>" * 10 + "<C-a>") == "bb7: added k.py (writable)"
    wait_in_chat(ready, "e.py", "f.py", "g.py", "h.py", "i.py", "j.py", "k.py")

    # oil: the file under the cursor, then a directory (21 files: asked first).
    ready.exec_lua(
        "vim.cmd('tabnew') require('oil').open(...) vim.fn.search(' l.py$')", str(project)
    )
    assert (
        said_after(ready, lua="require('bb7.integrations.oil').add()")
        == "bb7: added l.py (writable)"
    )
    pick_with(ready, "Add 21 files, 42 tokens")
    ready.exec_lua("vim.fn.search(' lib/$')")
    out = said_after(ready, lua="require('bb7.integrations.oil').add()")
    assert out == "bb7: added 21 files"
    assert ready.exec_lua("return _G.offered.prompt") == "bb7: Add 21 files, 42 tokens?"
    ready.command("enew")
    out = said_after(ready, lua="require('bb7.integrations.oil').add()")
    assert out == "bb7: not an oil buffer: nothing to add"

    # neo-tree, set up as the help says: the node under the cursor (nui's tree:get_node()
    # returns the node and its first and last lines), then two nodes selected in Visual mode.
    ready.exec_lua(
        "local bb7 = require('bb7.integrations.neo_tree') require('neo-tree').setup({"
        " commands = { bb7_add = bb7.add, bb7_add_visual = bb7.add_visual },"
        " window = { mappings = { ['<leader>a'] = 'bb7_add' } } })"
        " require('neo-tree.command').execute({ dir = ... })"
        " vim.fn.search('^  m.py$')",
        str(project),
    )
    assert said_after(ready, keys="\\a") == "bb7: added m.py (writable)"
    assert said_after(ready, keys="jVj\\a") == "bb7: added 2 files"
    wait_in_chat(ready, "l.py", "m.py", "n.py", "o.py", "lib/m20.py")

    # blink.cmp: `@pkg42/sub/file3` typed in the input, where blink's keyword is `file3`
    # (it stops at `/`): what it shows is the path typed, and <C-y> adds what it shows first.
    ready.command("tabclose")
    ready.exec_lua(BLINK_SETUP)
    input_line(ready, "see ")
    ready.input("A@pkg42/sub/fi")
    poll(ready, BLINK_AT_CURSOR)
    ready.input("le3")
    poll(ready, BLINK_AT_CURSOR)
    assert ready.exec_lua(f"return {BLINK_LABELS}") == ["pkg42/sub/file3.txt"]
    ready.input("<C-y>")
    wait_in_chat(ready, "pkg42/sub/file3.txt")
    assert ready.current.line == "see @pkg42/sub/file3.txt"
    ready.input("<Esc>")

    # nvim-cmp loaded lazily, on the first InsertEnter (bb7's setup and the input are older):
    # its source is registered all the same, and completes the path typed after `@`.
    ready.exec_lua(CMP_LAZY)
    input_line(ready, "and ")
    ready.input("A@p.")
    poll(ready, "package.loaded.cmp and require('cmp').visible()")
    entries = ready.exec_lua(
        "return vim.tbl_map(function(e) return e.completion_item.label end,"
        " require('cmp').get_entries())"
    )
    assert entries == ["p.py"]
    ready.input("<C-y><Esc>")
    wait_in_chat(ready, "p.py")
    assert ready.current.line == "and @p.py"
