"""The chat view (`:BB7Chat`) in a real headless Neovim with the real host, read from the
screen: conversation, reasoning folds, files panel and its keys, chat list, fork and edit,
drafts, help, the retry banner, 80 columns and `layout = 'split'`."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import (
    COLS,
    OPEN,
    conversation,
    files_panel,
    focus,
    open_chat_list,
    open_view,
    pick_with,
    wait_for_conversation,
    wait_for_screen,
    with_ui,
)
from editor import (
    NEWEST_ONLY,
    notifications,
    poll,
    screen,
    type_command,
    wait_for,
    wait_for_notification,
)

from bb7.provider.models import cache_file, default_cache_dir
from bb7.state.records import Usage


@pytest.fixture
def seeded(project: Path, launch: Callable[..., Any]) -> Seeded:
    # `launch` first: it points the XDG dirs (the global store) into the test's temp dir.
    return Seeded(project)


@pytest.fixture
def editor(launch: Callable[..., Any], seeded: Seeded) -> Any:
    return with_ui(launch())


def cache_prices(model: str) -> None:
    """The models list as bb7 caches it for OpenRouter, with `model` at Anthropic's prices."""
    url = "https://openrouter.ai/api/v1"
    pricing = {"prompt": 3e-6, "completion": 15e-6, "cache_read": 3e-7, "cache_write": 3.75e-6}
    listed = {
        "base_url": url,
        "fetched_at": time.time(),
        "models": [{"id": model, "pricing": pricing}],
    }
    path = cache_file(default_cache_dir(), url)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(listed))


def test_bb7chat_opens_a_tab_with_the_conversation_files_and_input(
    editor: Any, seeded: Seeded
) -> None:
    cache_prices("anthropic/claude-sonnet-4.5")
    chat = seeded.chat("Parser work")
    seeded.add(chat, "a.py")
    seeded.ask(chat, "Rename one to uno")
    usage = Usage(prompt_tokens=1200, completion_tokens=40, cost=0.0042)
    seeded.answer(chat, "Here it is:\n\n```python\nuno = 1\n```", model="test/model", usage=usage)
    open_view(editor, "uno = 1")
    # The input's bar: the next request's estimate (the previous one's prefix from the cache).
    rows = wait_for_screen(editor, " cached) · ~$")
    # The conversation's bar: name (cut to fit), model, the chat's totals.
    assert any(
        row.startswith(" Parser wo… · claude-sonnet-4.5 · 1.2k tokens · $0.0042") for row in rows
    ), "\n".join(rows)
    assert any(row.startswith("## Assistant · test/model") for row in rows)
    assert any(row.startswith("```python") for row in rows)
    assert any("Files · ~" in row for row in rows)
    assert any(re.search(r"│   a\.py +7$", row) for row in rows), "\n".join(rows)
    assert any(
        re.search(r" Message · ~[\d.]+k tok \([\d.]+k cached\) · ~\$0\.\d+ · <CR> send", row)
        for row in rows
    ), "\n".join(rows)
    assert editor.exec_lua("return #vim.api.nvim_list_tabpages()") == 2
    panes = editor.exec_lua(
        "local c = require('bb7.chat') return { vim.bo[c.buf('conversation')].filetype,"
        " vim.bo[c.buf('input')].filetype, vim.bo[c.buf('files')].filetype,"
        " vim.api.nvim_get_current_buf() == c.buf('input') }"
    )
    assert panes == ["markdown", "markdown", "bb7_files", True]
    editor.input("<Esc>gC")  # on demand: today's spend, this chat's, the credit
    wait_for(editor, "#_G.notifications > 0")
    assert notifications(editor)[-1] == (
        "bb7: today $0 (0 req) · chat $0.0042 · credit unknown (:BB7Log)"
    )
    editor.input("q")
    wait_for(editor, f"not {OPEN}")
    assert editor.exec_lua("return #vim.api.nvim_list_tabpages()") == 1


def test_reasoning_is_folded_and_za_opens_it(editor: Any, seeded: Seeded) -> None:
    chat = seeded.chat("Thinking")
    seeded.ask(chat, "Why?")
    seeded.answer(chat, "Because.", reasoning="secret step one\nsecret step two")
    rows = open_view(editor, "Because.")
    assert any(row.startswith("▸ Reasoning (2 lines)") for row in rows)
    assert not any("secret step" in row for row in rows)
    line = conversation(editor).index("> **Reasoning**") + 1
    focus(editor, "conversation", line)
    editor.input("za")
    rows = wait_for_screen(editor, "> secret step two")
    assert any(row.startswith("> secret step one") for row in rows)


def test_the_files_panel_shows_statuses_and_its_keys_act_on_them(
    editor: Any, seeded: Seeded, project: Path
) -> None:
    chat = seeded.chat("Files")
    seeded.add(chat, "a.py")
    seeded.add(chat, "b.py")
    seeded.model_writes(chat, "a.py", "uno = 1\ntwo = 2\nthree = 3\n")
    open_view(editor, "Assistant modified: a.py")
    assert files_panel(editor) == ["M  a.py", "   b.py"]
    focus(editor, "files", 2)
    editor.input("r")  # read-only
    wait_for(
        editor,
        "vim.api.nvim_buf_get_lines(require('bb7.chat').buf('files'), 1, 2, false)[1] == 'R  b.py'",
    )
    (project / "b.py").write_text("print('changed')\n")
    editor.input("r")  # writable again, and now out of sync with the file
    wait_for_conversation(editor, "Set writable: b.py")
    assert files_panel(editor)[1] == "~  b.py"
    editor.input("u")  # update the snapshot from the file
    wait_for_conversation(editor, "Context updated: b.py")
    assert files_panel(editor)[1] == "   b.py"
    editor.input("X")  # remove, after a confirm
    editor.input("1<CR>")  # Yes (vim.ui.select)
    wait_for_conversation(editor, "Context removed: b.py")
    assert files_panel(editor) == ["M  a.py"]
    focus(editor, "files", 1)
    editor.input("d")  # the pending change as a diff
    rows = wait_for_screen(editor, "+uno = 1")
    assert any("-one = 1" in row for row in rows)
    editor.input("q")
    editor.input("D")  # merge in vimdiff (:BB7Diff): a diff tab of its own
    wait_for(editor, "vim.wo.diff and vim.fn.tabpagenr('$') == 3")


def test_the_chat_list_switches_renames_pins_and_deletes(editor: Any, seeded: Seeded) -> None:
    first = seeded.chat("Alpha chat")
    seeded.ask(first, "alpha question")
    second = seeded.chat("Beta chat")
    seeded.ask(second, "beta question")
    open_view(editor, "beta question")
    rows = open_chat_list(editor)
    assert any("│●  Beta chat" in row for row in rows), "\n".join(rows)
    assert any("│   Alpha chat" in row for row in rows)
    editor.input("j<CR>")  # the second row: Alpha
    wait_for_conversation(editor, "alpha question")
    assert any(row.startswith(" Alpha chat · ") for row in screen(editor))
    open_chat_list(editor)
    editor.input("r<C-u>Renamed alpha<CR>")
    wait_for_screen(editor, "│●  Renamed alpha")
    editor.input("jp")  # pin Beta: it moves to the top
    wait_for_screen(editor, "│ ! Beta chat")
    assert editor.current.buffer[:] == [" ! Beta chat", "●  Renamed alpha"]
    editor.input("ggd")  # delete Beta
    editor.input("1<CR>")  # Yes (vim.ui.select)
    wait_for(editor, "#vim.api.nvim_buf_get_lines(0, 0, -1, false) == 1")
    assert editor.current.buffer[:] == ["●  Renamed alpha"]
    assert [c.id for c in seeded.store.chats()] == [first]
    assert second != first


@NEWEST_ONLY
def test_search_lists_the_chats_whose_messages_match(editor: Any, seeded: Seeded) -> None:
    one = seeded.chat("One")
    seeded.ask(one, "how do tokenizers split words")
    three = seeded.chat("Three")
    seeded.ask(three, "and tokenizers of a language that writes very long words, and the rest")
    two = seeded.chat("Two")
    seeded.ask(two, "unrelated")
    open_view(editor, "unrelated")
    open_chat_list(editor)
    editor.input("/tokenizer<CR>")
    rows = wait_for_screen(editor, 'chats matching "tokenizer"')
    listed = editor.current.buffer[:]
    assert "   One — how do tokenizers split words" in listed
    # At 80 columns a long excerpt is cut a space before the date instead of running into it.
    assert any(
        re.search(r"   Three — and tokenizers .*… \d{4}-\d\d-\d\d \d\d:\d\d", row) for row in rows
    ), rows
    editor.input(f"{listed.index('   One — how do tokenizers split words') + 1}G")
    editor.input("<CR>")
    wait_for_conversation(editor, "tokenizers")


@NEWEST_ONLY
def test_ctrl_n_and_ctrl_p_show_the_diff_of_the_next_changed_file_from_any_pane(
    editor: Any, seeded: Seeded, project: Path
) -> None:
    (project / "c.py").write_text("three = 3\n")
    chat = seeded.chat("Changes")
    for path in ("a.py", "b.py", "c.py"):
        seeded.add(chat, path)
    seeded.model_writes(chat, "a.py", "uno = 1\n")
    seeded.model_writes(chat, "c.py", "tres = 3\n")
    open_view(editor, "Assistant modified: c.py")
    focus(editor, "input")
    # The files panel's cursor is on a.py: from the input, on to c.py (b.py has no change).
    editor.input("<C-n>")
    wait_for_screen(editor, "+tres = 3")
    editor.input("<C-n>")  # from the diff: round the end to a.py
    wait_for_screen(editor, "+uno = 1")
    editor.input("<C-p>")  # back to c.py
    wait_for_screen(editor, "+tres = 3")
    editor.input("q")
    focus(editor, "conversation")
    editor.input("<C-p>")  # and back to a.py from the conversation
    wait_for_screen(editor, "+uno = 1")
    row = editor.exec_lua(
        "return vim.api.nvim_win_get_cursor(require('bb7.chat.view').win('files'))"
    )
    assert files_panel(editor)[row[0] - 1].endswith("a.py")


@NEWEST_ONLY
def test_a_fork_keeps_the_history_up_to_the_message(editor: Any, seeded: Seeded) -> None:
    chat = seeded.chat("Long chat")
    seeded.ask(chat, "first question")
    seeded.answer(chat, "first answer")
    seeded.ask(chat, "second question")
    seeded.answer(chat, "second answer")
    open_view(editor, "second answer")
    focus(editor, "conversation", conversation(editor).index("second question"))
    editor.input("gF")
    wait_for_screen(editor, "Fork of Long chat")
    lines = conversation(editor)
    assert "first answer" in lines
    assert "second question" not in lines and "second answer" not in lines
    wait_for(editor, "vim.api.nvim_get_current_buf() == require('bb7.chat').buf('input')")
    assert editor.current.buffer[:] == ["second question"]


@NEWEST_ONLY
def test_gn_capital_starts_a_chat_with_the_same_context_and_no_history(
    editor: Any, seeded: Seeded, project: Path
) -> None:
    chat = seeded.chat("Context chat")
    seeded.add(chat, "a.py")
    seeded.add(chat, "b.py", readonly=True)
    seeded.ask(chat, "old question")
    seeded.answer(chat, "old answer")
    open_view(editor, "old answer")
    focus(editor, "conversation")
    editor.input("gN")
    wait_for(editor, "#_G.notifications > 0")
    assert notifications(editor)[-1].startswith("bb7: new chat with the same context (2 files)")
    wait_for(
        editor,
        "table.concat(vim.api.nvim_buf_get_lines(require('bb7.chat').buf('conversation'), 0, -1,"
        " false), '\\n'):find('old answer', 1, true) == nil",
    )
    assert files_panel(editor) == ["   a.py", "R  b.py"]
    assert "Context chat" not in " ".join(conversation(editor))


@NEWEST_ONLY
def test_editing_a_message_drops_what_follows_and_drafts_it(editor: Any, seeded: Seeded) -> None:
    chat = seeded.chat("Edit me")
    seeded.ask(chat, "first question")
    seeded.answer(chat, "first answer")
    open_view(editor, "first answer")
    focus(editor, "conversation", conversation(editor).index("## You") + 1)
    editor.input("gE")
    editor.input("1<CR>")  # Yes (vim.ui.select)
    wait_for(
        editor,
        "vim.api.nvim_buf_get_lines(require('bb7.chat').buf('input'), 0, 1, false)[1]"
        " == 'first question'",
    )
    assert "first answer" not in conversation(editor)
    assert [m.role for m in seeded.store.messages(chat)] == []


@NEWEST_ONLY
def test_the_draft_survives_closing_the_view(editor: Any, seeded: Seeded) -> None:
    chat = seeded.chat("Drafts")
    seeded.ask(chat, "hello")
    open_view(editor, "hello")
    editor.input("iunfinished thought<Esc>")
    editor.input("q")
    wait_for(editor, f"not {OPEN}")
    chat_row = seeded.store.chat(chat)
    assert chat_row is not None and chat_row.draft == "unfinished thought"
    open_view(editor, "hello")
    assert editor.current.buffer[:] == ["unfinished thought"]


def test_every_key_has_a_description_shown_by_the_help_popup(editor: Any, seeded: Seeded) -> None:
    seeded.chat("Keys")
    open_view(editor, "")
    for pane in ("conversation", "input", "files"):
        keys = editor.exec_lua("return require('bb7.chat.keys').list(...)", pane)
        for lhs, mode, _ in keys:
            desc = editor.exec_lua(
                "local pane, lhs, mode = ... return vim.api.nvim_buf_call("
                "require('bb7.chat').buf(pane), function()"
                " return vim.fn.maparg(lhs, mode, false, true).desc end)",
                pane,
                lhs,
                mode,
            )
            assert desc.startswith("bb7: "), (pane, lhs, desc)
    focus(editor, "files")
    editor.input("?")
    rows = wait_for_screen(editor, "bb7 keys: files")
    if any("j/k: more" in row for row in rows):  # taller than the screen: the rest by scrolling
        editor.input("G")
        rows += wait_for_screen(editor, "bb7 keys: files")
    for key in (
        r"p +apply the pending output",
        r"D +merge the pending change in vimdiff \(:BB7Diff\)",
    ):
        assert any(re.search(r"│ " + key, row) for row in rows), key
    assert not any("|" in row.replace("│", "") for row in rows)  # no help-file markup
    popup = editor.current.buffer[:]  # taller than the screen: it scrolls
    assert any(re.match(r" X +remove the file", line) for line in popup)
    editor.input("q")
    wait_for(editor, "vim.bo.filetype == 'bb7_files'")
    # Every pane's popup shows each description whole at 80 columns (it does not wrap).
    for pane in ("conversation", "input", "files", "chats"):
        win = editor.exec_lua("return require('bb7.chat.keys').help(...)", pane)
        width = editor.exec_lua("return vim.api.nvim_win_get_width(...)", win)
        lines = editor.exec_lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
        for line in lines:
            assert editor.exec_lua("return vim.api.nvim_strwidth(...)", line) <= width, (pane, line)
        editor.input("q")
        wait_for(editor, "vim.bo.filetype ~= 'bb7_help'")


@NEWEST_ONLY
def test_the_retry_banner_shows_after_a_failed_edit(editor: Any, seeded: Seeded) -> None:
    chat = seeded.chat("Retry")
    seeded.ask(chat, "change a.py")
    seeded.store.update_chat(chat, retry_context="the edit of a.py did not match")
    rows = open_view(editor, "failed to apply")
    assert any("⚠ The last answer's file changes failed to apply." in r for r in rows)
    assert any("Your next message asks the model to repair them." in r for r in rows)
    assert any("⚠ next send repairs edits · gR drop" in r for r in rows)


@pytest.mark.parametrize("layout", ["tab", "split"])
def test_the_view_fits_80_columns(editor: Any, seeded: Seeded, layout: str) -> None:
    chat = seeded.chat("A chat with a rather long name that goes on")
    seeded.add(chat, "a.py")
    seeded.ask(chat, "word " * 40)
    seeded.answer(chat, "done", usage=Usage(prompt_tokens=1234, completion_tokens=56, cost=0.0031))
    seeded.store.update_chat(chat, retry_context="the edit of a.py did not match")
    editor.command("edit a.py")
    editor.exec_lua("require('bb7').setup({ layout = ... })", layout)
    rows = open_view(editor, "done")
    text = "\n".join(rows)
    assert all(len(row) <= COLS for row in rows), text
    assert any(row.startswith("done") or "│done" in row for row in rows), text
    assert any(re.search(r"   a\.py +7$", row) for row in rows), text
    tabs = editor.exec_lua("return #vim.api.nvim_list_tabpages()")
    assert tabs == (2 if layout == "tab" else 1)
    # The retry note stays whole on the input's bar; the files panel shows its file.
    assert any(
        row.endswith("│ ⚠ next send repairs edits · gR drop")
        or row == " ⚠ next send repairs edits · gR drop"
        for row in rows
    ), text
    files_height = "vim.api.nvim_win_get_height(require('bb7.chat').win('files'))"
    assert editor.exec_lua(f"return {files_height}") >= 4
    # The bar keeps the chat's totals; the name gives way first, and nothing is cut by
    # Neovim at the bar's start ("<").
    bar = rows[0].split("│")[-1] if layout == "split" else rows[1].split("│")[0]
    assert bar.endswith(" · 1.3k tokens · $0.0031"), text
    assert not bar.startswith("<"), text
    if layout == "split":
        # At 24 lines three lines of input leave the conversation room (it was 40x7), and a
        # wrapped note goes on under its text, not at the left edge.
        conversation_size = (
            "local w = require('bb7.chat').win('conversation')"
            " return { vim.api.nvim_win_get_width(w), vim.api.nvim_win_get_height(w) }"
        )
        width, height = editor.exec_lua(conversation_size)
        assert width >= 40 and height >= 12, (width, height)
        assert any(row.endswith("│  to apply.") for row in rows), text
        # The code stays on the left; the view is a column on the right.
        assert rows[0].lstrip().startswith("one = 1"), text
        assert bar == " claude-sonnet… · 1.3k tokens · $0.0031", text
    else:
        assert bar.startswith(" A chat wi… · claude-sonnet-4.5 · 1.3k tokens"), text
    editor.input("q")
    wait_for(editor, f"not {OPEN}")
    assert editor.exec_lua("return vim.api.nvim_buf_get_name(0)").endswith("a.py")


@NEWEST_ONLY
def test_outside_a_project_bb7chat_opens_a_global_chat_with_a_hint(
    launch: Callable[..., Any], project: Path
) -> None:
    nvim = with_ui(launch())  # the project has no .bb7/
    open_view(nvim, "")
    wait_for_screen(nvim, " [global] Chat ")
    wait_for(nvim, "vim.iter(_G.notifications):any(function(n) return n.msg:find(':BB7Init') end)")
    (hint,) = [n for n in notifications(nvim) if ":BB7Init" in n]
    assert hint == "bb7: a global chat: no bb7 project here (:BB7Init makes one)"
    type_command(nvim, f"BB7Add {project / 'a.py'}")
    wait_for(nvim, "#_G.notifications >= 2")
    assert notifications(nvim)[-1].startswith("bb7: added "), notifications(nvim)
    wait_for_conversation(nvim, f"{project / 'a.py'}")
    assert any(line.startswith("Context added") for line in conversation(nvim))
    # The file's directory, too long for the panel, keeps its end and leaves its tokens room.
    rows = wait_for_screen(nvim, "R    a.py")
    assert any(re.search(r"│   …\S*/project/ +7$", row) for row in rows), "\n".join(rows)
    assert not (project / ".bb7").exists()  # nothing written into the directory
    # :BB7Init with the view open: the view shows the new project's first chat, and the one
    # message says so (the redraw said twice more that there was no chat: Press ENTER).
    before = len(notifications(nvim))
    type_command(nvim, "BB7Init")
    wait_for(nvim, "require('bb7.chat').state().chat.scope == 'project'")
    wait_for_screen(nvim, " Chat ")
    (said,) = notifications(nvim)[before:]
    assert said.startswith("bb7: project ready in ") and said.endswith("(its state in .bb7/)")


@NEWEST_ONLY
def test_the_chat_list_moves_a_chat_between_the_project_and_the_global_chats(
    editor: Any, seeded: Seeded
) -> None:
    chat = seeded.chat("Movable")
    seeded.ask(chat, "where am I")
    open_view(editor, "where am I")
    open_chat_list(editor)
    editor.input("m")
    rows = wait_for_screen(editor, "global · ")
    assert any("Movable" in row and "global · " in row for row in rows), "\n".join(rows)
    assert seeded.store.chat(chat) is None  # out of the project's store
    editor.input("m")  # and back
    moved = "vim.iter(_G.notifications):any(function(n) return n.msg:find('project chat') end)"
    wait_for(editor, moved)
    assert seeded.store.chat(chat) is not None


def test_the_picker_and_at_completion_add_project_files(
    editor: Any, seeded: Seeded, project: Path
) -> None:
    seeded.chat("Picking")
    # A git repository where only b.py is tracked: it comes first.
    (project / "notes.txt").write_text("todo\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(["git", "-C", str(project), "add", "b.py"], check=True)
    open_view(editor, "")
    focus(editor, "conversation")
    pick_with(editor, "b.py")
    editor.input("ga")
    wait_for_conversation(editor, "Context added: b.py")
    assert editor.exec_lua("return _G.offered") == {
        "prompt": "bb7: add to the chat",
        "items": ["b.py", "a.py", "notes.txt"],
    }
    assert files_panel(editor) == ["   b.py"]
    focus(editor, "input")
    editor.input("ilook at @")
    poll(editor, "vim.fn.pumvisible() == 1")  # the completion menu
    info = editor.exec_lua("return vim.fn.complete_info({ 'selected', 'items' })")
    # The live parts first, then the project's files.
    words = [item["word"] for item in info["items"]]
    assert words == ["diagnostics", "diff", "terminal", "b.py", "a.py", "notes.txt"]
    # Nothing put in as the menu opens: a path typed on goes after the `@`, not after b.py
    # (which would be added when the menu closes).
    assert editor.current.line == "look at @"
    # The second file, a.py (the first item may be preselected, by 'completeopt').
    editor.input("<C-n>" * (4 - info["selected"]) + "<C-y>")
    wait_for_conversation(editor, "Context added: a.py")
    assert editor.current.buffer[:] == ["look at @a.py"]


@NEWEST_ONLY
def test_bb7add_without_a_path_in_the_view_picks_a_file(editor: Any, seeded: Seeded) -> None:
    seeded.chat("Adding")
    open_view(editor, "")
    pick_with(editor, "a.py")
    type_command(editor, "BB7Add")
    wait_for_conversation(editor, "Context added: a.py")


def test_review_and_merge_typed_in_the_view_open_the_file_beside_it(
    editor: Any, seeded: Seeded
) -> None:
    chat = seeded.chat("Reviewing")
    seeded.add(chat, "a.py")
    seeded.model_writes(chat, "a.py", "uno = 1\ntwo = 2\nthree = 3\n")
    open_view(editor, "Assistant modified: a.py")
    # The panes keep their buffers: the file opens in a tab of its own.
    type_command(editor, "BB7Review a.py")
    wait_for_notification(editor, "bb7: reviewing a.py: 1 hunk")
    assert editor.exec_lua("return vim.fn.expand('%:t')") == "a.py"
    assert editor.exec_lua("return #vim.api.nvim_list_tabpages()") == 3
    editor.command("BB7Review")  # ends it
    editor.command("tabprevious")
    focus(editor, "files")
    type_command(editor, "BB7Merge a.py")
    wait_for(editor, "vim.fn.expand('%:t') == 'a.py' and vim.bo.modified")
    assert editor.current.buffer[:] == ["uno = 1", "two = 2", "three = 3"]
    assert not editor.api.get_mode()["blocking"]


@NEWEST_ONLY
def test_bb7add_errors_name_the_file_as_the_project_does(
    editor: Any, seeded: Seeded, project: Path
) -> None:
    seeded.chat("Adding")
    (project / "data.bin").write_bytes(b"\x00\x01" * 50)
    open_view(editor, "")
    # Relative, not the absolute path the command sends: what went wrong fits 80 columns.
    for command, said in [
        ("BB7Add nosuch.py", "bb7: nosuch.py does not exist; check the path"),
        ("BB7Add data.bin", "bb7: data.bin is a binary file"),
    ]:
        before = len(notifications(editor))
        type_command(editor, command)
        wait_for(editor, f"#_G.notifications > {before}")
        message = notifications(editor)[-1]
        assert message.startswith(said), message


@NEWEST_ONLY
def test_a_fork_says_in_one_whole_line_that_a_file_changed_since(
    editor: Any, seeded: Seeded, project: Path
) -> None:
    chat = seeded.chat("Stale")
    seeded.add(chat, "a.py")
    seeded.ask(chat, "first question")
    seeded.answer(chat, "first answer")
    (project / "a.py").write_text("one = 111\n")
    open_view(editor, "first answer")
    focus(editor, "conversation", conversation(editor).index("first question"))
    editor.input("gF")
    wait_for_conversation(editor, "Changed since this message was sent: a.py")
    wait_for(editor, "vim.iter(_G.notifications):any(function(n) return n.msg:find('a.py') end)")
    (said,) = [n for n in notifications(editor) if "a.py" in n]
    assert said == "bb7: a.py: modified since that message; the chat has it as it was"


@NEWEST_ONLY
def test_editing_a_message_two_files_changed_since_says_so_in_one_line(
    editor: Any, seeded: Seeded, project: Path
) -> None:
    chat = seeded.chat("Stale two")
    seeded.add(chat, "a.py")
    seeded.add(chat, "b.py")
    seeded.ask(chat, "first question")
    seeded.answer(chat, "first answer")
    (project / "a.py").write_text("one = 111\n")
    (project / "b.py").write_text("print('bb')\n")
    open_view(editor, "first answer")
    focus(editor, "conversation", conversation(editor).index("first question"))
    editor.input("gE")
    editor.input("1<CR>")  # Yes (vim.ui.select)
    wait_for(editor, "vim.iter(_G.notifications):any(function(n) return n.msg:find('since') end)")
    said = [n for n in notifications(editor) if "since" in n]
    # Counted in one line (two would stop at Press ENTER), the files listed in :BB7Log.
    assert said == ["bb7: 2 files changed since; the chat has them as they were (:BB7Log)"]
