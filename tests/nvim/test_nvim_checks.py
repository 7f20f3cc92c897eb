"""The project's checks in one sitting in Neovim, with pytest and ruff from this suite's venv
and the scripted model: an answer breaks a test and adds an unused import, the checks run by
themselves and fail (the statusline, `vim.b.bb7_check`, the files panel, the conversation, the
`User` event), the float shows why and the quickfix list points at the pending text; bb7 asks
the model to make them pass by itself (`checks.auto_fix`), carrying the failures, and the fix
passes; a check that never ends does not hold `:BB7Apply`. The project is never touched by a
check."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_view_helpers import pane_screen, wait_for_conversation
from editor import VERSIONS, notifications, run, start_host, wait_for, wait_for_status

from bb7.files.fileid import entry_file_id
from checks_helpers import processes_named
from llm_server import LLMServer, edits, finish, stream, text_chunk, tool_call

CALC = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
BROKEN = "import os\n\n\ndef add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return b + a\n"
CHECKS = """\
[[check]]
name = "tests"
run = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 pytest -q -p no:cacheprovider"

[[check]]
name = "lint"
run = ["ruff", "check", "--no-cache", "--output-format", "concise", "."]
files = ["*.py"]
"""
LISTEN = """
  _G.checked = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = { 'BB7CheckStarted', 'BB7CheckDone' },
    callback = function(ev) table.insert(_G.checked, { ev.match, ev.data }) end,
  })
"""
SETUP = """
  require('bb7').setup({
    status = { debounce_ms = 20 },
    titles = { enabled = false },
    provider = { base_url = ..., model = 'test/tools-model' },
    checks = { auto_fix = 1, select(2, ...) },
  })
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / ".bb7").mkdir(parents=True)
    (path / "calc.py").write_text(CALC)
    (path / "test_calc.py").write_text(TEST)
    (path / ".bb7" / "checks.toml").write_text(CHECKS)
    (path / ".venv").symlink_to(Path(sys.prefix))  # the project's tools: pytest, ruff
    return path


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer() as running:
        yield running


def project_files(root: Path) -> dict[str, bytes]:
    """Every file of the project but bb7's own state (and the venv it links to)."""
    found = {}
    for path in root.rglob("*"):
        if path.is_file() and ".bb7" not in path.parts and ".venv" not in path.parts:
            found[str(path.relative_to(root))] = path.read_bytes()
    return found


def done(nvim: Any, count: int) -> dict[str, Any]:
    """The `count`th `User BB7CheckDone`'s data."""
    dones = "vim.tbl_filter(function(e) return e[1] == 'BB7CheckDone' end, _G.checked)"
    ok = nvim.exec_lua(f"return vim.wait(30000, function() return #{dones} >= {count} end, 5)")
    assert ok, notifications(nvim)[-6:]
    data: dict[str, Any] = nvim.exec_lua(f"return {dones}[{count}][2]")
    return data


def answer(text: str, old: str, new: str, fid: str, *first: dict[str, Any]) -> dict[str, Any]:
    call = tool_call("edit_file", edits(("calc.py", fid, old, new)))
    return stream(*first, text_chunk(text), *call, finish("tool_calls"))


# On the newest Neovim only: a sitting of real tools (two pytest runs) for the checks' Lua, whose
# API calls (floats, extmarks, the quickfix list) 0.11.4 runs the same in the other sittings.
@pytest.mark.parametrize("nvim_binary", VERSIONS[-1:], indirect=True)
def test_checks_fail_the_model_fixes_them_and_a_stuck_check_never_holds_an_apply(
    launch: Any, project: Path, server: LLMServer
) -> None:
    nvim = launch()
    nvim.exec_lua(SETUP, server.base_url)
    start_host(nvim)
    run(nvim, "BB7Init")
    nvim.command("edit calc.py")
    run(nvim, "BB7Add")
    nvim.exec_lua(LISTEN)
    before = project_files(project)
    server.push(
        answer("Subtracting.", CALC, BROKEN, entry_file_id("calc.py", CALC)),
        # The fix waits for the test to have looked at the failure.
        answer("Adding again.", BROKEN, FIXED, entry_file_id("calc.py", BROKEN), {"gate": "fix"}),
    )
    nvim.exec_lua("require('bb7').send('Make add subtract')")

    failed = done(nvim, 1)
    assert (failed["state"], failed["failed"], failed["total"]) == ("failed", 2, 2)
    assert failed["summary"] == "checks failed 2 of 2: tests, lint"
    assert failed["fix_next"] == 1  # auto_fix: bb7 asks for the fix itself
    started = nvim.exec_lua("return _G.checked[1]")
    assert started[0] == "BB7CheckStarted" and started[1]["checks"] == ["tests", "lint"]
    wait_for_status(nvim, project / "calc.py", "M")
    wait_for(nvim, "vim.b.bb7_check == 'failed 2'")
    assert nvim.exec_lua("return require('bb7').statusline()").startswith("bb7:M ✗2")
    assert project_files(project) == before

    # Why: the float, and the quickfix list at the pending text's lines.
    nvim.command("BB7Check!")
    wait_for(nvim, "vim.api.nvim_win_get_config(0).relative ~= ''")
    floated = "\n".join(nvim.current.buffer[:])
    assert "✗ tests (exit 1)" in floated and "test_add" in floated
    assert "✗ lint (exit 1)" in floated and "F401" in floated
    nvim.input("q")
    items = nvim.exec_lua(
        "return vim.tbl_map(function(i) return { vim.api.nvim_buf_get_name(i.bufnr), i.lnum,"
        " i.col, vim.api.nvim_buf_get_lines(i.bufnr, i.lnum - 1, i.lnum, false)[1] } end,"
        " vim.fn.getqflist())"
    )
    (test_place,) = [i for i in items if i[0] == str(project / "test_calc.py")]
    assert test_place[1:3] == [5, 0]
    (pending,) = [i for i in items if i[0].endswith("bb7://check/calc.py")]
    assert pending[1:] == [1, 8, "import os"]  # line 1 of the pending text, not of the file

    # The chat view: the verdict beside the file, the run under the answer it checked.
    nvim.command("BB7Chat")
    wait_for_conversation(nvim, "✗ checks failed 2 of 2")
    assert any("calc.py" in row and "✗2" in row for row in pane_screen(nvim, "files"))

    server.open_gate("fix")
    passed = done(nvim, 2)
    assert (passed["state"], passed["fix_round"], passed["fix_next"]) == ("passed", 1, 0)
    fix = server.chat_requests()[1]["json"]["messages"][1]["content"]
    carried = fix[fix.rindex("@checks") :]
    assert "- tests: failed (exit 1)" in carried and "test_add" in carried and "F401" in carried
    assert "Make the checks pass." in carried
    wait_for_conversation(nvim, "✓ checks passed: tests, lint")
    wait_for(nvim, "vim.b[vim.fn.bufnr('calc.py')].bb7_check == 'passed'")
    assert project_files(project) == before

    # A check that never ends: the editor goes on, and an apply ends it.
    forever = "{ name = 'tests', enabled = false }, { name = 'lint', enabled = false },"
    forever += " { name = 'forever', run = 'sleep 600' }"
    nvim.exec_lua(SETUP.replace("select(2, ...)", forever), server.base_url)
    run(nvim, "BB7Check")
    wait_for(nvim, "#_G.checked == 5")  # started
    deadline = time.monotonic() + 20
    while not processes_named("forever") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert processes_named("forever"), "the check never started"
    applied = run(nvim, f"BB7Apply {project / 'calc.py'}")
    assert applied == "bb7: applied calc.py", notifications(nvim)[-6:]
    cancelled = done(nvim, 3)
    assert cancelled["cancelled"] is True and cancelled["summary"] == "checks cancelled"
    assert (project / "calc.py").read_text() == FIXED
    assert processes_named("forever") == []

    # :checkhealth lists the checks, found as a check finds them, and how they are kept apart.
    nvim.exec_lua(SETUP, server.base_url, {"name": "missing", "run": ["no-such-checker"]})
    nvim.command("checkhealth bb7")
    report = "\n".join(nvim.current.buffer[:])
    pytest_at = project / ".venv" / "bin" / "pytest"
    assert (
        f"OK tests: PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 pytest -q -p no:cacheprovider ({pytest_at})"
        in report
    )
    assert "OK lint: ruff check --no-cache --output-format concise ." in report
    assert "ERROR missing: no-such-checker: `no-such-checker` not found (looked in" in report
    assert "checks run in a user namespace" in report or "checks run in a copy" in report
