"""Speed of the Neovim plugin core in a real headless Neovim with the real host; prints a table.

Targets (issue 6): setup() < 1 ms (it starts nothing); first command to host ready, cold,
< 300 ms; keypress latency while a response streams at 200 chunks/s, p99 < 30 ms; a status
refresh for 500 context files < 50 ms. Also shown: the quick requests (each must stay well
under 10 ms) and the RPC round trip.

- Keypress latency: a UI is attached (so Neovim redraws as for a user), a response streams
  from the local OpenAI-compatible server (tests/llm_server.py) at 200 chunks/s through
  `require('bb7').send()`, the real host and the send loop, and each chunk is appended to a
  visible buffer (as a chat view would). Meanwhile the client types a key into a file buffer
  in insert mode and times `nvim_input` until a request sees the key in the buffer.
- Status refresh: 500 files in the chat (50 of them loaded), `statuses {all}` until
  `User BB7StatusChanged` has run (the host reads every file and computes every status).
Run: .venv/bin/python benchmarks/nvim_plugin.py [--runs N]
"""

from __future__ import annotations

import argparse
import logging
import os
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

from editor import spawn, start_host, wait_for  # noqa: E402

from bb7.host.handlers import WARM_UP_DELAY  # noqa: E402
from llm_server import LLMServer, finish, stream, text_chunk  # noqa: E402
from timings import Row, print_table  # noqa: E402


@contextmanager
def editor(home: Path, name: str = "project") -> Iterator[Any]:
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.environ[var] = str(home / var.lower())
    os.environ["BB7_LOG_LEVEL"] = "warn"
    project = home / name
    project.mkdir(parents=True, exist_ok=True)
    nvim = spawn(project)
    try:
        yield nvim
    finally:
        nvim.close()


def setup_cost(home: Path, runs: int, loader: bool) -> tuple[list[float], list[float]]:
    """ms of the first setup() in a fresh editor (modules load) and of later calls; `loader`
    enables vim.loader's byte-code cache first, as lazy.nvim does."""
    cold, warm = [], []
    timed = "local t = vim.uv.hrtime(); require('bb7').setup(); return (vim.uv.hrtime() - t) / 1e6"
    for _ in range(runs + 1 if loader else runs):
        with editor(home) as nvim:
            if loader:
                nvim.exec_lua("vim.loader.enable()")
            cold.append(nvim.exec_lua(timed))
            warm += [nvim.exec_lua(timed) for _ in range(5)]
            assert nvim.exec_lua("return require('bb7.backend').state()") == "stopped"
    return (cold[1:] if loader else cold), warm


def cold_start(home: Path, runs: int) -> list[float]:
    """ms from a first bb7 request (host not running) to its reply."""
    out = []
    for _ in range(runs):
        with editor(home) as nvim:
            nvim.exec_lua("require('bb7').setup()")
            out.append(
                nvim.exec_lua(
                    """
                    local t, done = vim.uv.hrtime(), false
                    require('bb7.backend').request('ping', {}, function() done = true end)
                    vim.wait(5000, function() return done end, 1)
                    return (vim.uv.hrtime() - t) / 1e6
                    """
                )
            )
    return out


# ms of one request made from Lua (the host is ready, so it is answered before this returns).
TIMED_REQUEST = """
  local method, args = ...
  local t, err = vim.uv.hrtime(), nil
  require('bb7.backend').request(method, args, function(e) err = e end)
  local ms = (vim.uv.hrtime() - t) / 1e6
  assert(err == nil, method .. ': ' .. vim.inspect(err))
  return ms
"""


def timed(nvim: Any, method: str, args: dict[str, Any]) -> float:
    ms: float = nvim.exec_lua(TIMED_REQUEST, method, args)
    return ms


def round_trip(nvim: Any, count: int) -> list[float]:
    return [timed(nvim, "ping", {}) for _ in range(count)]


def quick_requests(nvim: Any, project: Path, runs: int) -> dict[str, list[float]]:
    """ms of the requests commands make, on a loaded file of the chat."""
    path = str(project / "a.py")
    (project / "a.py").write_text("one = 1\ntwo = 2\nthree = 3\n")
    nvim.command("edit a.py")
    buffer = "return require('bb7.buffer').for_request(...)"
    out: dict[str, list[float]] = {
        "add": [],
        "statuses (1 buffer)": [],
        "paste": [],
        "apply (through the buffer)": [],
        "remove": [],
    }
    for run in range(runs):
        out["add"].append(timed(nvim, "add_paths", {"specs": [path], "cwd": str(project)}))
        bufs = nvim.exec_lua(buffer, path)
        out["statuses (1 buffer)"].append(timed(nvim, "statuses", {"buffers": bufs}))
        new = f"two = {run + 3}"
        old = nvim.current.buffer[1]
        text = f"a.py\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"
        out["paste"].append(timed(nvim, "paste", {"text": text}))
        bufs = nvim.exec_lua(buffer, path)
        out["apply (through the buffer)"].append(
            timed(nvim, "apply", {"path": path, "buffers": bufs})
        )
        assert nvim.current.buffer[1] == new
        out["remove"].append(timed(nvim, "remove", {"path": path}))
    return out


def status_refresh(nvim: Any, project: Path, runs: int) -> list[float]:
    """ms from asking for every status of a 500-file chat (50 files loaded) to the end of
    `User BB7StatusChanged`."""
    paths = []
    for i in range(500):
        path = project / f"f{i:03}.py"
        path.write_text(f"x = {i}\n" * 20)
        paths.append(str(path))
    for path in paths:
        timed(nvim, "add_paths", {"specs": [path], "cwd": str(project)})
    for path in paths[:50]:
        nvim.command(f"badd {path}")
    nvim.exec_lua("for _, b in ipairs(vim.api.nvim_list_bufs()) do vim.fn.bufload(b) end")
    time.sleep(0.2)  # let the status events of the adds arrive first
    nvim.exec_lua(
        "vim.api.nvim_create_autocmd('User', { pattern = 'BB7StatusChanged', callback ="
        " function(ev) if #ev.data.paths >= 500 then _G.changed_at = vim.uv.hrtime() end end })"
    )
    out = []
    for _ in range(runs):
        # Apart, as a user's refreshes are: back to back, the ~30 flushes/s limit would hold
        # each event until a 30th of a second after the previous one.
        time.sleep(0.05)
        out.append(
            nvim.exec_lua(
                """
                _G.changed_at = nil
                local t = vim.uv.hrtime()
                local bufs = vim.tbl_map(require('bb7.buffer').text, vim.tbl_filter(
                  vim.api.nvim_buf_is_loaded, vim.api.nvim_list_bufs()))
                require('bb7.backend').request('statuses', { buffers = bufs, all = true })
                vim.wait(5000, function() return _G.changed_at ~= nil end, 1)
                return (_G.changed_at - t) / 1e6
                """
            )
        )
    assert len(nvim.exec_lua("return vim.tbl_keys(require('bb7.status').files())")) == 500
    return out


def keypress_latency(nvim: Any, server: LLMServer, seconds: float) -> tuple[list[float], int]:
    """ms from `nvim_input` of a key to a request seeing it in the buffer, while an answer
    streams at 200 chunks/s; also the number of chunks that arrived meanwhile."""
    chunks = int(200 * seconds) + 200
    steps: list[dict[str, Any]] = []
    for i in range(chunks):
        steps += [text_chunk(f"token {i} "), {"sleep": 0.005}]
    server.push(stream(*steps, finish()))
    nvim.exec_lua(
        """
        vim.cmd('botright new')
        local buf = vim.api.nvim_get_current_buf()
        vim.bo[buf].buftype = 'nofile'
        _G.chunks = 0
        require('bb7.events').on('chunk', function(p)
          _G.chunks = _G.chunks + 1
          local last = vim.api.nvim_buf_line_count(buf)
          vim.api.nvim_buf_set_lines(buf, last, last, false, { p.event.text })
          vim.api.nvim_win_set_cursor(vim.fn.bufwinid(buf), { last + 1, 0 })
        end)
        vim.cmd('wincmd p')
        vim.cmd('enew')
        vim.cmd('startinsert')
        require('bb7').send('stream for the benchmark')
        """
    )
    wait_for(nvim, "_G.chunks > 20", 10000)
    out = []
    typed = ""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        typed += "x"
        start = time.perf_counter()
        nvim.input("x")
        while nvim.call("getline", ".") != typed:
            pass
        out.append((time.perf_counter() - start) * 1000)
        time.sleep(0.02)
    received: int = nvim.exec_lua("return _G.chunks")
    nvim.exec_lua("require('bb7.backend').notify('cancel', vim.empty_dict())")
    return out, received


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    # pynvim's child sessions leave asyncio warnings on close; they are not results.
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    rows: list[Row] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, LLMServer() as server:
        home = Path(tmp)
        cold, warm = setup_cost(home, runs, loader=False)
        rows.append(("setup(), first call (modules load)", cold, "< 1"))
        rows.append(("setup(), again", warm, "< 1"))
        cached, _ = setup_cost(home, runs, loader=True)
        rows.append(("setup(), first call, vim.loader on", cached, "< 1"))
        rows.append(("first command -> host reply (cold)", cold_start(home, runs), "< 300"))
        with editor(home, "bench-project") as nvim:
            project = home / "bench-project"
            nvim.exec_lua(
                "require('bb7').setup({ provider = { base_url = ..., model = 'test/m' } })",
                server.base_url,
            )
            start_host(nvim)
            # Quick requests are measured warm: after the host's background import of the send
            # path, which starts WARM_UP_DELAY seconds after `ready`.
            time.sleep(WARM_UP_DELAY + 0.5)
            nvim.command("BB7Init")
            rows.append(("request round trip (ping)", round_trip(nvim, 200), "< 10"))
            for name, values in quick_requests(nvim, project, runs * 3).items():
                rows.append((f"request: {name}", values, "< 10"))
            nvim.ui_attach(100, 30, rgb=True)
            latency, received = keypress_latency(nvim, server, 3.0)
            rows.append(("keypress while streaming 200 chunks/s", latency, "p99 < 30"))
            notes.append(f"{received} chunks reached the chat buffer while typing")
            nvim.ui_detach()
            rows.append(("status refresh, 500 files", status_refresh(nvim, project, runs), "< 50"))
    print_table(rows, 40)
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
