"""`:BB7Add` with several paths, a glob, a directory (asking first when large), a section,
`buffers`, `quickfix sections` and a file that looks like a secret, in a real editor with the
real host. A scripted vim.ui.select stands for the user's answer. Then :BB7EditInstructions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chat_view_helpers import pick_with
from editor import said_by, wait_for

IN_CHAT = (
    "vim.tbl_map(function(p) return vim.fn.fnamemodify(p, ':.') end,"
    " vim.tbl_keys(require('bb7.status').files()))"
)


# The text of the files panel's virtual line, once drawn.
PANEL_NOTE = (
    "(function() local view = require('bb7.chat.view')"
    " local buf = view.state.bufs.files if not buf then return nil end"
    " for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, -1, 0, -1, { details = true })) do"
    " if m[4].virt_lines then return m[4].virt_lines[1][1][1] end end end)()"
)


def in_chat(nvim: Any) -> list[str]:
    return sorted(nvim.exec_lua(f"return {IN_CHAT}"))


def offered(nvim: Any) -> list[Any]:
    got = nvim.exec_lua("local o = _G.offered; _G.offered = nil; return o")
    return [got["prompt"], got["items"]] if got else []


def test_add_in_all_its_forms_asks_for_secrets_and_edit_instructions_opens_the_file(
    ready: Any, project: Path
) -> None:
    for i in range(21):
        (project / "src" / f"m{i:02}.py").parent.mkdir(exist_ok=True)
        (project / "src" / f"m{i:02}.py").write_text(f"m = {i}\n")
    (project / "lib").mkdir()
    for name in ("x.py", "y.py", "z.txt"):
        (project / "lib" / name).write_text("1\n2\n3\n4\n")
    pick_with(ready, "Cancel")
    assert said_by(ready, "BB7Add src") == ""
    assert offered(ready) == [
        "bb7: Add 21 files, 42 tokens?",
        ["Add 21 files, 42 tokens", "Cancel"],
    ]
    assert in_chat(ready) == ["a.py", "b.py"]
    pick_with(ready, "Add 21 files, 42 tokens")
    assert said_by(ready, "BB7Add src") == "bb7: added 21 files"
    wait_for(ready, "vim.tbl_count(require('bb7.status').files()) == 23")
    out = said_by(ready, "BB7Add lib/*.py b.py")
    assert out == "bb7: added 2 files, 1 already up to date"
    ready.exec_lua(
        "vim.fn.setqflist({ { filename = 'lib/z.txt', lnum = 2 }, "
        "{ filename = 'lib/z.txt', lnum = 3, end_lnum = 4 } })"
    )
    assert said_by(ready, "BB7Add quickfix sections") == "bb7: added lib/z.txt:2-4 (section)"
    ready.command("edit lib/z.txt")
    # Typed one by one, paths are added all or none; open buffers add what can be added, and
    # say what they skipped (bb7's own files, one already in the chat as something else).
    out = said_by(ready, "BB7AddReadonly lib/z.txt a.py")
    assert out.startswith("bb7: a.py is already in the context as writable"), out
    (project / ".bb7" / "instructions").write_text("Be brief.\n")
    ready.command("split .bb7/instructions")
    out = said_by(ready, "BB7Add buffers")
    assert out == ("bb7: skipped .bb7/instructions (bb7's own); added lib/z.txt"), out
    wait_for(ready, "vim.tbl_count(require('bb7.status').files()) == 26")
    assert {"lib/z.txt", "lib/x.py", "lib/y.py"} < set(in_chat(ready))
    out = said_by(ready, "BB7AddReadonly buffers")
    assert out == (
        "bb7: skipped 3: a.py (already writable), lib/z.txt (already writable),"
        " .bb7/instructions (bb7's own); nothing new"
    ), out
    ready.command("bwipeout .bb7/instructions")
    (project / ".bb7" / "instructions").unlink()

    # A file that looks like a secret is added only when the user says so.
    (project / ".env").write_text("TOKEN=abc\n")
    pick_with(ready, "Cancel")
    assert said_by(ready, "BB7Add .env") == ""
    assert offered(ready) == [
        "bb7: .env looks like a secret (an .env file): add anyway?",
        ["Add all (1 file, 3 tokens)", "Cancel"],
    ]
    pick_with(ready, "Add all (1 file, 3 tokens)")
    assert said_by(ready, "BB7Add .env") == "bb7: added .env (writable)"
    wait_for(ready, "vim.tbl_count(require('bb7.status').files()) == 27")

    # The project's instructions open in the editor, created.
    assert said_by(ready, "BB7EditInstructions") == "bb7: no instruction file applies yet"
    assert ready.current.buffer.name == str(project / ".bb7" / "instructions")
    # The files panel names the instruction files that apply, below its rows.
    (project / "AGENTS.md").write_text("Run make test.\n")
    ready.command("BB7Chat")
    wait_for(ready, f"({PANEL_NOTE}) ~= nil")
    assert ready.exec_lua(f"return {PANEL_NOTE}") == "instructions: AGENTS.md"
