"""Driving the chat view in tests: open it as a user does, read its panes and the screen, and
check the messages a sitting gives (each one line, never a wait for Enter; what was said is
read with editor.py's helpers)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from editor import VERSIONS, never_waiting, notifications, screen, type_command, wait_for

from waits import WAIT_MS, until

ROWS, COLS = 24, 80


class Display(NamedTuple):
    """A terminal's size and the chat view's `layout` option."""

    rows: int
    cols: int
    layout: str

    def __str__(self) -> str:
        return f"{self.cols}x{self.rows}-{self.layout}"


# The screens a new user tries: a small and a large terminal, each layout.
DISPLAYS = tuple(
    Display(rows, cols, layout)
    for layout in ("tab", "split")
    for rows, cols in ((24, 80), (40, 120))
)


def on_every_screen() -> pytest.MarkDecorator:
    """Parametrizes a test's `nvim_binary` (indirectly, by version) and `display`: 80x24 in the
    tab layout on every Neovim version, the other screens on the newest only (the view's Lua is
    the same on both; each start costs time)."""
    first, *others = DISPLAYS
    params = [pytest.param(v, first, id=f"{v}-{first}") for v in VERSIONS]
    params += [pytest.param(VERSIONS[-1], d, id=f"{VERSIONS[-1]}-{d}") for d in others]
    return pytest.mark.parametrize(("nvim_binary", "display"), params, indirect=["nvim_binary"])


def pane_screen(nvim: Any, pane: str) -> list[str]:
    """The screen rows of one pane of the view (its bar first), only its columns."""
    nvim.command("redraw!")
    rows: list[str] = nvim.exec_lua(
        """
        local win = require('bb7.chat').win(...)
        local info = vim.fn.getwininfo(win)[1]
        local rows = {}
        for r = info.winrow, info.winrow + info.winbar + info.height - 1 do
          local cells = {}
          for c = info.wincol, info.wincol + info.width - 1 do
            cells[#cells + 1] = vim.fn.screenstring(r, c)
          end
          rows[#rows + 1] = table.concat(cells):gsub('%s+$', '')
        end
        return rows
        """,
        pane,
    )
    return rows


OPEN = "require('bb7.chat').is_open()"
STREAMING = "require('bb7.chat.view').streaming()"


def conversation(nvim: Any) -> list[str]:
    lines: list[str] = nvim.exec_lua(
        "return vim.api.nvim_buf_get_lines(require('bb7.chat').buf('conversation'), 0, -1, false)"
    )
    return lines


def open_view(nvim: Any, expect: str) -> list[str]:
    """`:BB7Chat` as a user types it; waits until `expect` is in the conversation."""
    type_command(nvim, "BB7Chat")
    wait_for(nvim, OPEN)
    wait_for_conversation(nvim, expect)
    return screen(nvim)


def wait_for_conversation(nvim: Any, needle: str, timeout_ms: int = WAIT_MS) -> None:
    buf = "require('bb7.chat').buf('conversation')"
    wait_for(
        nvim,
        f"table.concat(vim.api.nvim_buf_get_lines({buf}, 0, -1, false), '\\n')"
        f":find({needle!r}, 1, true) ~= nil",
        timeout_ms,
    )


def wait_for_screen(nvim: Any, needle: str, timeout_ms: int = WAIT_MS) -> list[str]:
    """The screen once a row shows `needle`."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        rows = screen(nvim)
        if any(needle in row for row in rows):
            return rows
        if time.monotonic() > deadline:
            raise AssertionError(f"{needle!r} never showed:\n" + "\n".join(rows))
        nvim.exec_lua("vim.wait(20)")


# With a UI, a message longer than the command line waits for Enter (and holds every request
# of the test); notifications go to the history only, as with a notification plugin.
QUIET_NOTIFY = """
vim.notify = function(msg, level)
  table.insert(_G.notifications, { msg = msg, level = level })
  vim.cmd('silent echomsg ' .. vim.fn.string(msg))
end
"""


def with_ui(nvim: Any, setup: str = "{}", *args: Any) -> Any:
    """Attaches a UI of ROWS x COLS (confirm() and input() prompts wait for keys only with one,
    as for a user) and calls `setup(<setup>)`."""
    nvim.exec_lua(QUIET_NOTIFY)
    nvim.ui_attach(COLS, ROWS, rgb=True)
    nvim.exec_lua(f"require('bb7').setup({setup})", *args)
    return nvim


def open_chat_list(nvim: Any) -> list[str]:
    nvim.input("gl")
    return wait_for_screen(nvim, "bb7 chats")


def files_panel(nvim: Any) -> list[str]:
    lines: list[str] = nvim.exec_lua(
        "return vim.api.nvim_buf_get_lines(require('bb7.chat').buf('files'), 0, -1, false)"
    )
    return lines


def focus(nvim: Any, pane: str, line: int | None = None) -> None:
    nvim.exec_lua("require('bb7.chat').focus(...)", pane)
    if line is not None:
        nvim.current.window.cursor = (line, 0)


def send(nvim: Any, text: str) -> None:
    """Types `text` in the input and sends it with <CR>, as a user does."""
    focus(nvim, "input")
    nvim.input(f"ggdGi{text}<Esc><CR>")


def answered(nvim: Any, text: str) -> None:
    """Waits until the answer is stored and drawn again (the stream is over): `text` first,
    which comes with the answer (before it starts, nothing is streaming yet either)."""
    wait_for_conversation(nvim, text)
    wait_for(nvim, f"not {STREAMING}")


def pick_with(nvim: Any, choice: str) -> None:
    """A picker in place of the built-in vim.ui.select (as telescope or fzf-lua install one):
    it keeps what it was offered in `_G.offered` and chooses `choice`."""
    nvim.exec_lua(
        "local choice = ... vim.ui.select = function(items, opts, on_choice)"
        "  _G.offered = { prompt = opts.prompt, items = items }"
        "  on_choice(vim.tbl_contains(items, choice) and choice or nil) end",
        choice,
    )


def view_on_server(nvim: Any, project: Any, base_url: str, *files: str) -> Any:
    """The chat view open on a new chat "Work" with `files` added, talking to the scripted
    server at `base_url` as 'test/tools-model'."""
    from chat_state import Seeded

    seeded = Seeded(project)
    chat = seeded.chat("Work")
    for path in files:
        seeded.add(chat, path)
    seeded.store.close()
    with_ui(nvim, "{ provider = { base_url = ..., model = 'test/tools-model' } }", base_url)
    open_view(nvim, f"Context added: {files[0]}")
    return nvim


def gone(nvim: Any, needle: str) -> None:
    """Waits until no row shows `needle`; the mode is asked first (a prompt waiting for a key
    holds every other request)."""

    def away() -> bool:
        never_waiting(nvim)
        return not any(needle in row for row in screen(nvim))

    until(away, f"{needle!r} to leave the screen")


def choosing(nvim: Any) -> None:
    """Waits until Neovim's built-in vim.ui.select (inputlist()) waits for a number."""
    until(lambda: nvim.api.get_mode()["mode"] == "c", "a list to choose from")


def all_fit(nvim: Any) -> None:
    """Every message shown fits one line of the command area, and whole: nothing cut off."""
    room = nvim.exec_lua("return vim.v.echospace")
    for message in notifications(nvim):
        assert "\n" not in message, message
        width = nvim.exec_lua("return vim.api.nvim_strwidth(...)", message)
        assert width <= room < nvim.exec_lua("return vim.o.columns"), (message, width, room)
        assert "…" not in message, message


def on_screen(launch: Callable[..., Any], display: Display = DISPLAYS[0], **spawn: Any) -> Any:
    """An editor with a screen of `display`'s size."""
    nvim = launch(**spawn)
    nvim.command(f"set lines={display.rows} columns={display.cols}")
    nvim.ui_attach(display.cols, display.rows, rgb=True)
    return nvim
