"""Speed of the chat view (`:BB7Chat`) in a real headless Neovim with the real host; prints a
table.

Targets (issue 7): `:BB7Chat` to an interactive view, cold host start included, < 300 ms;
(issue 26) the first `:BB7Chat` of a fresh Neovim in a new project, as a new user meets it (no
`.bb7` yet, no state or logs, the host started by it), < 500 ms;
keypress latency in the input while an answer streams at 200 chunks/s, p99 < 30 ms (from the
key leaving the client to Neovim handling it, `InsertCharPre`), and (issue 35) the same with a
message queued behind the answer; drawing a chat of 500 messages
< 100 ms (host rendering and Lua drawing, shown apart too); (issue 35) `:BB7Edit`'s preview,
from the server's first token to its first line on the screen, p99 <= 100 ms.

The two keypress measures take turns (plain, queued, queued, plain) and each starts once the
view has been drawn again after the answer before (a 500-message chat: its drawing and its
parse took the first keys of the next measure, which were counted against it).
Run: .venv/bin/python benchmarks/chat_view.py [--runs N]
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the local LLM server
sys.path.insert(0, str(ROOT / "tests" / "nvim"))  # the test harness's way to start an editor

from chat_state import Seeded  # noqa: E402
from editor import poll, spawn, wait_for  # noqa: E402

from llm_server import LLMServer, finish, stream, text_chunk  # noqa: E402
from timings import Row, print_table  # noqa: E402
from waits import WAIT_MS  # noqa: E402

OPEN = "require('bb7.chat').is_open() and require('bb7.chat.view').state.chat ~= nil"


@contextmanager
def editor(home: Path, project: Path) -> Iterator[Any]:
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.environ[var] = str(home / var.lower())
    nvim = spawn(project)
    try:
        nvim.ui_attach(120, 40, rgb=True)
        nvim.exec_lua("require('bb7').setup()")
        yield nvim
    finally:
        nvim.close()


def seed(home: Path, name: str, messages: int) -> Path:
    """A project whose active chat has `messages` messages (questions, answers with code and
    reasoning) and a few context files."""
    project = home / name
    if project.exists():
        shutil.rmtree(project)
    project.mkdir(parents=True)
    for i in range(5):
        (project / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n" * 20)
    seeded = Seeded(project)
    chat = seeded.chat("Benchmark")
    for i in range(5):
        seeded.add(chat, f"m{i}.py")
    for i in range(messages // 2):
        seeded.ask(chat, f"Question {i}: how should f{i % 5} handle negative numbers?")
        answer = f"Answer {i}:\n\n```python\ndef f(x):\n    return abs(x) + {i}\n```\n\nDone."
        seeded.answer(chat, answer, reasoning=f"step one\nstep two of {i}" if i % 3 else "")
    seeded.store.close()
    return project


def open_cold(home: Path, project: Path, runs: int) -> list[float]:
    """ms from `:BB7Chat` (host not running) to the view drawn with the chat, input focused."""
    out = []
    for _ in range(runs):
        with editor(home, project) as nvim:
            out.append(
                nvim.exec_lua(
                    f"""
                    local t = vim.uv.hrtime()
                    vim.cmd('BB7Chat')
                    vim.wait(5000, function() return {OPEN} end, 1)
                    assert({OPEN}, 'the view did not open')
                    return (vim.uv.hrtime() - t) / 1e6
                    """
                )
            )
    return out


def open_first(home: Path, runs: int) -> list[float]:
    """ms from the first `:BB7Chat` of a fresh Neovim in a new project (no `.bb7`, fresh XDG
    dirs) to its view drawn: the host's start, the database's creation and a new chat."""
    out = []
    for run in range(runs):
        fresh = home / f"first{run}"
        project = fresh / "project"
        project.mkdir(parents=True)
        (project / "main.py").write_text("print('hello')\n")
        subprocess.run(["git", "init", "-q", str(project)], check=True)  # a user's repository
        out += open_cold(fresh, project, 1)
    return out


def draw_times(nvim: Any, runs: int) -> tuple[list[float], list[float]]:
    """ms of a full redraw of the open view (request + draw), and of the Lua drawing alone."""
    total, lua = [], []
    for _ in range(runs):
        got = nvim.exec_lua(
            """
            local chat = require('bb7.chat')
            local t = vim.uv.hrtime()
            local view
            require('bb7.backend').request('chat_view', { buffers = {} }, function(err, v)
              assert(not err, err and err.message)
              view = v
            end)
            local got = vim.uv.hrtime()
            chat.draw(view)
            vim.cmd('redraw')
            local drawn = vim.uv.hrtime()
            return { (drawn - t) / 1e6, (drawn - got) / 1e6, #view.conversation.lines }
            """
        )
        assert got[2] > 1500, got
        total.append(got[0])
        lua.append(got[1])
    return total, lua


def keypress_latency(
    nvim: Any, server: LLMServer, seconds: float, queued: bool = False
) -> list[float]:
    """ms from a key sent by the client to Neovim handling it in the input (`InsertCharPre`),
    while an answer streams into the conversation at 200 chunks/s through the real send (with
    `queued`, a message waits behind it: the input's bar says so)."""
    count = int(200 * seconds) + 200
    steps: list[dict[str, Any]] = []
    for i in range(count):
        steps += [text_chunk(f"token {i} " + ("\n" if i % 12 == 0 else "")), {"sleep": 0.005}]
    server.push(stream(*steps, finish()))
    nvim.exec_lua(
        """
        _G.bench_keys = {}
        vim.api.nvim_create_autocmd('InsertCharPre', {
          group = vim.api.nvim_create_augroup('bench_keys', { clear = true }),
          buffer = require('bb7.chat').buf('input'),
          callback = function() table.insert(_G.bench_keys, vim.uv.hrtime()) end,
        })
        require('bb7.chat').focus('input')
        vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'stream, please' })
        require('bb7.chat.input').send()
        if ... then
          vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'and then this' })
          require('bb7.chat.input').send()
          assert(require('bb7.chat.queue').get(require('bb7.chat.view').state.chat.id))
        end
        vim.cmd('startinsert')
        """,
        queued,
    )
    conversation = "require('bb7.chat').buf('conversation')"
    # This answer's text, not the chat's older answers (the second measure comes after one).
    tail = f"table.concat(vim.api.nvim_buf_get_lines({conversation}, -30, -1, false), ' ')"
    wait_for(nvim, f"{tail}:find('token 60 ', 1, true) ~= nil", 10000)
    sent = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sent.append(time.monotonic_ns())
        nvim.input("x")
        time.sleep(0.02)
    handled = nvim.exec_lua(
        "local n = ... vim.wait(1000, function() return #_G.bench_keys >= n end, 5)"
        " return _G.bench_keys",
        len(sent),
    )
    assert nvim.exec_lua("return require('bb7.chat.view').streaming()"), "ended early"
    nvim.exec_lua("require('bb7.chat').cancel()")
    if queued:  # the cancelled answer kept it: it is not sent into the next measure
        nvim.exec_lua("require('bb7.chat.queue').take(require('bb7.chat.view').state.chat.id)")
    settle(nvim)
    return [(h - s) / 1e6 for s, h in zip(sent, handled, strict=True)]


def settle(nvim: Any) -> None:
    """Waits until the answer has ended and the view is drawn again from the store (the
    host answers in order: a redraw asked now is drawn after the one the end asked for)."""
    wait_for(nvim, "not require('bb7.chat.view').streaming()", 10000)
    nvim.exec_lua(
        "local drawn = false"
        " require('bb7.chat').refresh(nil, function() drawn = true end)"
        " assert(vim.wait(..., function() return drawn end, 5), 'the view was not drawn')",
        WAIT_MS,
    )


# Lines 2-3 of the file `:BB7Edit` edits, and what its screen watcher records: the time its
# preview's first line of text is on the screen (the row under the selection).
EDITED = "def f(x):\n    return x + 1\n    # two\n"
WATCH = """
local row, want = ...
_G.bench_shown = nil
local timer = assert(vim.uv.new_timer())
timer:start(0, 1, vim.schedule_wrap(function()
  local cells = {}
  for c = 1, vim.o.columns do cells[c] = vim.fn.screenstring(row, c) end
  if table.concat(cells):find(want, 1, true) then
    _G.bench_shown = _G.bench_shown or vim.uv.hrtime()
    timer:stop()
    timer:close()
  end
end))
"""


def edit_preview(nvim: Any, server: LLMServer, runs: int) -> list[float]:
    """ms from the server's first token (a gate opened) to `:BB7Edit`'s preview showing it
    under the selection; the answer changes nothing, so each run edits the same lines."""
    out = []
    nvim.command("edit edited.py")
    for run in range(runs):
        gate = f"edit{run}"
        server.push(
            stream({"gate": gate}, text_chunk(f"Renaming {run}."), {"gate": f"{gate}."}, finish())
        )
        nvim.input(f"2GVj:BB7Edit rename f {run}<CR>")
        # The preview's header (row 4: after three lines of text) says the request is out.
        wait_for(nvim, "require('bb7.inline').preview(vim.fn.bufnr('edited.py')) ~= nil")
        wait_for(nvim, "require('bb7').answer_state() == 'streaming'")
        nvim.exec_lua(WATCH, 5, f"Renaming {run}.")
        first = time.monotonic_ns()
        server.open_gate(gate)
        poll(nvim, "_G.bench_shown ~= nil")  # from here: Neovim redraws between the asks
        out.append((nvim.exec_lua("return _G.bench_shown") - first) / 1e6)
        server.open_gate(f"{gate}.")
        wait_for(nvim, "require('bb7.inline').preview(vim.fn.bufnr('edited.py')) == nil")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    # pynvim's child sessions leave asyncio warnings on close; they are not results.
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        small = seed(home, "small", 20)
        rows.append((":BB7Chat -> view (cold host)", open_cold(home, small, runs), "< 300"))
        rows.append(("first :BB7Chat, new project", open_first(home, runs), "< 500"))
        large = seed(home, "large", 500)
        rows.append((":BB7Chat -> view, 500 messages", open_cold(home, large, runs), ""))
        with editor(home, large) as nvim, LLMServer() as server:
            nvim.exec_lua(
                "require('bb7').setup({ provider = { base_url = ..., model = 'test/m' } })",
                server.base_url,
            )
            nvim.command("BB7Chat")
            nvim.exec_lua(f"vim.wait(5000, function() return {OPEN} end, 1)")
            total, lua = draw_times(nvim, runs)
            rows.append(("draw a 500-message chat", total, "< 100"))
            rows.append(("  of which Lua drawing", lua, ""))
            plain: list[float] = []
            queued: list[float] = []
            # Plain, queued, queued, plain: each answer lengthens the chat, and neither
            # measure always gets the longer one.
            for first in (False, True):
                for queue in (first, not first):
                    got = keypress_latency(nvim, server, 2.0, queued=queue)
                    (queued if queue else plain).extend(got)
            rows.append(("keypress while streaming 200/s", plain, "p99 < 30"))
            rows.append(("  with a message queued", queued, "p99 < 30"))
        (large / "edited.py").write_text(EDITED)
        with editor(home, large) as nvim, LLMServer() as server:
            nvim.exec_lua(
                "require('bb7').setup({ provider = { base_url = ..., model = 'test/m' } })",
                server.base_url,
            )
            rows.append(
                (":BB7Edit first token -> preview", edit_preview(nvim, server, runs), "p99 <= 100")
            )
    print_table(rows, 34)
    return 0


if __name__ == "__main__":
    sys.exit(main())
