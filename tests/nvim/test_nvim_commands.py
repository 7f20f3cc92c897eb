"""Every command exists with `desc` and completion, sends its request to the real host, and a
backend that is not built yet answers with a readable "not available yet" message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from editor import emit, publish_status, start_host, type_command, wait_for, wait_for_message

COMMANDS = [
    "BB7Init",
    "BB7Chat",
    "BB7NewChat",
    "BB7Add",
    "BB7AddReadonly",
    "BB7Remove",
    "BB7Apply",
    "BB7ApplyAll",
    "BB7Discard",
    "BB7Diff",
    "BB7Cancel",
    "BB7Model",
    "BB7Paste",
    "BB7UndoApply",
    "BB7Install",
    "BB7Log",
]


def test_every_command_is_defined_with_a_description(nvim: Any) -> None:
    commands = nvim.api.get_commands({})
    assert sorted(name for name in commands if name.startswith("BB7")) == sorted(COMMANDS)
    for name in COMMANDS:
        assert commands[name]["definition"].startswith("bb7: "), name
        if commands[name]["nargs"] != "0" and name != "BB7NewChat":  # a free-form name
            assert commands[name]["complete"], f"{name} takes an argument but completes nothing"
    assert commands["BB7Apply"]["bang"] is True
    assert commands["BB7Add"]["range"] == "."


# (what the user types, the host method that answers "not available yet")
AWAITING_BACKEND = [
    ("BB7Init", "init"),
    ("BB7Add a.py", "add"),
    ("2,3BB7Add", "add"),
    ("BB7AddReadonly b.py", "add"),
    ("BB7Remove a.py", "remove"),
    ("BB7Apply a.py", "apply"),
    ("BB7Apply! a.py", "apply"),
    ("BB7ApplyAll", "apply_all"),
    ("BB7Discard a.py", "discard"),
    ("BB7Diff a.py", "diff"),
    ("BB7Model", "models"),
    ("BB7Model openai/gpt-4o", "set_model"),
    ("BB7Paste a", "paste"),
    ("BB7UndoApply a.py", "undo_apply"),
]


@pytest.mark.parametrize(("typed", "method"), AWAITING_BACKEND)
def test_a_command_awaiting_its_backend_says_so(nvim: Any, typed: str, method: str) -> None:
    nvim.command("edit a.py")
    nvim.funcs.setreg("a", "a.py\n<<<<<<< SEARCH\none\n=======\nuno\n>>>>>>> REPLACE\n")
    type_command(nvim, typed)
    wait_for_message(nvim, f"bb7: `{method}` is not available yet in bb7 0.1.0")
    assert nvim.exec_lua("return _G.notifications[#_G.notifications].level") == 4  # ERROR


def test_cancel_and_send_are_notifications_answered_by_events(nvim: Any) -> None:
    type_command(nvim, "BB7Cancel")
    wait_for_message(nvim, "bb7: nothing to cancel")
    assert nvim.exec_lua("return require('bb7.backend').state()") == "stopped"
    start_host(nvim)
    type_command(nvim, "BB7Cancel")
    wait_for_message(nvim, "bb7: `cancel` is not available yet")
    request_id = nvim.exec_lua("return require('bb7').send('hello', { model = 'm' })")
    assert isinstance(request_id, str) and request_id
    wait_for_message(nvim, "bb7: `send` is not available yet")


def test_a_file_command_outside_a_file_buffer_says_what_to_give(nvim: Any) -> None:
    type_command(nvim, "BB7Add")
    wait_for_message(nvim, "bb7: no file: give a path, or run the command from a file buffer")
    assert nvim.exec_lua("return require('bb7.backend').state()") == "stopped"


def test_paste_from_an_empty_register_says_what_to_do(nvim: Any) -> None:
    type_command(nvim, "BB7Paste q")
    wait_for_message(nvim, "bb7: register q is empty: copy the model response first")


def test_file_arguments_complete_the_files_of_the_chat_from_the_cache(
    nvim: Any, project: Path
) -> None:
    start_host(nvim)
    files = {
        str(project / "a.py"): {"status": "M"},
        str(project / "b.py"): {"status": ""},
    }
    emit(nvim, ("status_changed", {"files": files}))
    wait_for(nvim, "vim.tbl_count(require('bb7.status').files()) == 2")
    complete = "return vim.fn.getcompletion(..., 'cmdline')"
    assert nvim.exec_lua(complete, "BB7Remove ") == ["a.py", "b.py"]
    assert nvim.exec_lua(complete, "BB7Apply ") == ["a.py"]  # only files with a pending change
    assert nvim.exec_lua(complete, "BB7Discard b") == []
    assert "a" in nvim.exec_lua(complete, "BB7Paste ")
    assert "a.py" in nvim.exec_lua(complete, "BB7Add ")


def test_plug_mappings_have_descriptions_and_nothing_is_mapped_globally(nvim: Any) -> None:
    plugs = nvim.exec_lua(
        "return vim.tbl_map(function(p) return { p[1], p[2] } end, require('bb7.commands').plugs)"
    )
    for lhs, mode in plugs:
        mapping = nvim.funcs.maparg(lhs, mode, False, True)
        assert mapping["desc"].startswith("bb7: "), lhs
    for mode in ("n", "x", "i", "o"):
        for mapping in nvim.api.get_keymap(mode):
            if mapping.get("desc", "").startswith("bb7"):
                assert mapping["lhs"].startswith("<Plug>(bb7-"), mapping


def test_next_pending_jumps_to_the_lines_a_pending_change_touches(nvim: Any, project: Path) -> None:
    nvim.command("edit a.py")
    start_host(nvim)
    publish_status(nvim, project / "a.py", "M", [3])
    nvim.input("<Plug>(bb7-next-pending)")
    wait_for(nvim, "vim.fn.line('.') == 3")
    nvim.input("<Plug>(bb7-prev-pending)")  # nothing above line 3: stays
    assert nvim.funcs.line(".") == 3


def test_log_opens_the_log_file_in_a_tab(nvim: Any) -> None:
    start_host(nvim)
    type_command(nvim, "BB7Log")
    wait_for(nvim, "vim.fn.tabpagenr('$') == 2")
    assert nvim.current.buffer.name.endswith("nvim/bb7.log")
    assert any("host ready" in line for line in nvim.current.buffer[:])
