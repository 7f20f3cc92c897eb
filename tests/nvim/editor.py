"""Driving a real headless Neovim from tests: start it, wait on it, read its screen and messages."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pynvim
import pytest

from neovims import NVIM
from neovims import NVIMS as NVIMS  # for the tests that import them from here
from neovims import VERSIONS as VERSIONS
from waits import WAIT_MS, until

ROOT = Path(__file__).resolve().parents[2]
# A test of what bb7's Lua and host do the same on every Neovim (a rule, a message, what a key
# or command leads to) runs on the newest only; each area keeps its sittings on every version
# where Neovim itself takes part (drawing, folds, signs, extmarks, diff mode, completion,
# windows, keys as typed). Each sitting costs about half a second of CPU.
NEWEST_ONLY = pytest.mark.parametrize("nvim_binary", VERSIONS[-1:], indirect=True)
LINES, COLUMNS = 12, 60


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Point every XDG dir (config, data, state: logs, venv) of the child into `home`."""
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(home / var.lower()))
    monkeypatch.setenv("BB7_LOG_LEVEL", "debug")
    monkeypatch.delenv("NVIM_RPLUGIN_MANIFEST", raising=False)
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)  # never a real provider


def spawn(project: Path, *, root: Path = ROOT, cmd: tuple[str, ...] = (), nvim: Path = NVIM) -> Any:
    """Start `nvim --embed --headless` (the binary `nvim`) in `project` with the plugin at
    `root`."""
    argv = [str(nvim), "--embed", "--headless", "-n", "-i", "NONE"]
    argv += ["-u", str(root / "tests" / "nvim" / "minimal_init.lua")]
    argv += ["--cmd", f"set lines={LINES} columns={COLUMNS}"]
    argv += ["--cmd", f"cd {project}"]
    for c in cmd:
        argv += ["--cmd", c]
    return pynvim.attach("child", argv=argv)


def wait_for(nvim: Any, condition: str, timeout_ms: int = WAIT_MS) -> None:
    """Let Neovim run its loop until the Lua expression `condition` is true, in waits of
    100 ms: keys just typed (`nvim_input`, `nvim_feedkeys`) are read only between calls, and
    a request handled before them (in the same round of Neovim's loop) would hold them in the
    typeahead for as long as its one `vim.wait()` lasted."""
    check = f"return vim.wait(100, function() return {condition} end, 5)"
    until(lambda: nvim.exec_lua(check), condition, timeout_ms / 1000, every=0)


def poll(nvim: Any, condition: str) -> None:
    """Waits until the Lua expression `condition` is true, asking in short calls from here:
    keys fed to Neovim (a completion menu, a picker's Terminal mode) are handled between
    them, not while a vim.wait() runs."""
    until(lambda: nvim.exec_lua(f"return {condition}"), condition)


def start_host(nvim: Any) -> dict[str, Any]:
    """Starts the host through a real request and returns the `ready` info."""
    err = nvim.exec_lua("return require('bb7.backend').request_sync('ping', {}, ...)", WAIT_MS)
    assert err is None, err
    info: dict[str, Any] = nvim.exec_lua("return require('bb7.backend').status().info")
    return info


def messages(nvim: Any) -> str:
    text: str = nvim.api.exec2("messages", {"output": True})["output"]
    return text


def wait_for_message(nvim: Any, needle: str, timeout_ms: int = WAIT_MS) -> str:
    """Waits until `needle` appears in the message history; returns the history."""
    wait_for(
        nvim,
        f"vim.api.nvim_exec2('messages', {{output = true}}).output:find({needle!r}, 1, true)",
        timeout_ms,
    )
    return messages(nvim)


def screen(nvim: Any) -> list[str]:
    """The screen as a user sees it: one string per row, trailing blanks removed."""
    nvim.command("redraw!")
    rows: list[str] = nvim.exec_lua(
        """
        local rows = {}
        for r = 1, vim.o.lines do
          local cells = {}
          for c = 1, vim.o.columns do cells[c] = vim.fn.screenstring(r, c) end
          rows[r] = table.concat(cells):gsub('%s+$', '')
        end
        return rows
        """
    )
    return rows


def emit(nvim: Any, *events: tuple[str, Any], interval_ms: float = 0) -> None:
    """Has the real host emit `(name, payload)` events from a worker thread (as streaming)."""
    err = nvim.exec_lua(
        "return require('bb7.backend').request_sync('echo_events', ...)",
        {"events": [list(e) for e in events], "interval_ms": interval_ms},
    )
    assert err is None, err


def python_without_pynvim(tmp_path: Path) -> Path:
    """A real interpreter lacking bb7's dependencies (a bare venv)."""
    venv = tmp_path / "bare-venv"
    subprocess.run(["python3", "-m", "venv", "--without-pip", str(venv)], check=True)
    return venv / "bin" / "python"


def type_command(nvim: Any, command: str) -> None:
    """Types `:command<CR>` as a user would (errors become messages, not API errors)."""
    nvim.input(f":{command.replace('<', '<lt>')}<CR>")


def press(nvim: Any, keys: str) -> None:
    """Types `keys` through the typeahead, mappings applied, as `nvim_input` would, except for
    `<C-c>`: given to `nvim_input` while Neovim is busy (drawing a streaming answer), it sets
    got_int and is flushed before any mapping of it runs (Neovim's `process_ctrl_c`)."""
    nvim.exec_lua("vim.api.nvim_feedkeys(vim.keycode(...), 'm', false)", keys)


def publish_status(nvim: Any, path: Path, status: str, lines: Sequence[int] = ()) -> None:
    """Has the host send a `status_changed` event for one file and waits until Lua has it."""
    emit(nvim, ("status_changed", {"files": {str(path): {"status": status, "lines": list(lines)}}}))
    wait_for_status(nvim, path, status)


def wait_for_status(nvim: Any, path: Path, status: str | None, timeout_ms: int = WAIT_MS) -> None:
    """Waits until Lua's status cache has `status` for `path` (None: not in the chat), asking
    in short calls from here: a status follows an edit through `TextChanged`, which Neovim fires
    only between calls. An edit made through the API and a `wait_for` right after it can be
    handled in one round of Neovim's loop (a host event drawn just then reads the next call in),
    and its `vim.wait()` then holds `TextChanged` back until it times out."""
    entry = f"require('bb7.status').files()[{str(path)!r}]"
    condition = f"{entry} == nil" if status is None else f"({entry} or {{}}).status == {status!r}"
    until(lambda: nvim.exec_lua(f"return {condition}"), condition, timeout_ms / 1000, every=0.005)


# What the editor said. Every `vim.notify` message is kept in `_G.notifications` (see
# minimal_init.lua); three questions are asked of them, each with its own helper:
# - what did this command say? `said_by` (its request is answered before it returns);
# - what did this action lead to? `said_after` (an answer that comes later: the next one);
# - was this said? `wait_for_notification` (one holding a needle, waited for).
# Their waits ask from here, in short calls: keys fed to Neovim (a picker's Terminal mode)
# are handled only between calls, and a hit-enter prompt, which holds every other request,
# fails the test at once (`never_waiting`).


def notifications(nvim: Any) -> list[str]:
    """Every `vim.notify` message so far."""
    found: list[str] = nvim.exec_lua(
        "return vim.tbl_map(function(n) return n.msg end, _G.notifications)"
    )
    return found


def never_waiting(nvim: Any) -> None:
    """Fails if Neovim waits for Enter (naming what stopped it) or for any other key."""
    mode = nvim.api.get_mode()  # answered even at a hit-enter prompt
    if mode["mode"] in ("r", "rm"):
        nvim.input("<CR>")  # to read what stopped it
        history = nvim.api.exec2("messages", {"output": True})["output"].splitlines()
        raise AssertionError(f"Press ENTER after: {history[-3:]}")
    assert not mode["blocking"], mode


def wait_for_notification(nvim: Any, needle: str, since: int = 0) -> str:
    """The first notification after the first `since` that holds `needle`, waited for."""

    def found() -> str:
        never_waiting(nvim)
        return next((n for n in notifications(nvim)[since:] if needle in n), "")

    try:
        return until(found, f"a notification holding {needle!r}")
    except AssertionError:
        raise AssertionError(f"no {needle!r} in {notifications(nvim)[since:]}") from None


def without_chat_name(text: str) -> str:
    """`text` without the chat's name (a date) after `to Chat`/`in Chat`."""
    return re.sub(r" (to|in) Chat \d{4}-\d\d-\d\d \d\d:\d\d", "", text)


def run(nvim: Any, command: str) -> str:
    """Runs a bb7 command once the host is ready (its request is answered before this
    returns) and gives the notifications it produced, one per line."""
    before = len(notifications(nvim))
    nvim.command(command)
    return "\n".join(notifications(nvim)[before:])


def said_by(nvim: Any, command: str) -> str:
    """What a bb7 command said (`run`), without the chat's name."""
    return without_chat_name(run(nvim, command))


def said_after(nvim: Any, *, lua: str = "", keys: str = "", args: tuple[Any, ...] = ()) -> str:
    """Runs `lua` (given `args`) or types `keys`, then waits for the notification that leads
    to (an add from a picker is answered later); gives it without the chat's name."""
    before = len(notifications(nvim))
    if lua:
        nvim.exec_lua(lua, *args)
    if keys:
        nvim.input(keys)
    found = until(lambda: notifications(nvim)[before:], f"a notification after {before}")
    return without_chat_name(found[0])


SIGNS = """
  local ns = require('bb7.status').ns
  local marks = vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })
  return vim.tbl_map(function(m) return { m[2] + 1, m[4].sign_text } end, marks)
"""


def signs(nvim: Any) -> list[list[Any]]:
    """bb7's signs in the current buffer: [line, text] pairs."""
    found: list[list[Any]] = nvim.exec_lua(SIGNS)
    return found
