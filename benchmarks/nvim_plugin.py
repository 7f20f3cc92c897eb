"""Speed of the Neovim plugin core in a real headless Neovim with the real host; prints a table.

Targets (issue 6): setup() < 1 ms (it starts nothing); first command to host ready, cold,
< 300 ms; a status refresh of 500 files through the event path < 50 ms. Also shown: the RPC
round trip, and how fast Neovim answers a client while the host streams 200 events/s into a
buffer (a stand-in for keypress latency during a response).
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
sys.path.insert(0, str(ROOT / "tests" / "nvim"))  # the test harness's way to start an editor

from editor import emit, spawn, start_host  # noqa: E402

from timings import Row, print_table  # noqa: E402


@contextmanager
def editor(home: Path) -> Iterator[Any]:
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.environ[var] = str(home / var.lower())
    project = home / "project"
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


def round_trip(nvim: Any, count: int) -> list[float]:
    return list(
        nvim.exec_lua(
            """
            local out, backend = {}, require('bb7.backend')
            for i = 1, ... do
              local t = vim.uv.hrtime()
              backend.request('ping', {}, function() end)
              out[i] = (vim.uv.hrtime() - t) / 1e6
            end
            return out
            """,
            count,
        )
    )


def status_refresh(nvim: Any, project: Path, runs: int) -> list[float]:
    """ms from asking the host for a 500-file status event to `User BB7StatusChanged` done,
    with 50 of the files loaded in buffers (signs, b:bb7_status)."""
    paths = []
    for i in range(500):
        path = project / f"f{i:03}.py"
        path.write_text(f"x = {i}\n" * 20)
        paths.append(str(path))
    for path in paths[:50]:
        nvim.command(f"badd {path}")
    nvim.exec_lua("for _, b in ipairs(vim.api.nvim_list_bufs()) do vim.fn.bufload(b) end")
    nvim.exec_lua(
        "vim.api.nvim_create_autocmd('User', { pattern = 'BB7StatusChanged',"
        " callback = function() _G.changed_at = vim.uv.hrtime() end })"
    )
    out = []
    for run in range(runs):
        status = "M" if run % 2 else "~M"
        files = {p: {"status": status, "lines": [2, 3]} for p in paths}
        out.append(
            nvim.exec_lua(
                """
                _G.changed_at = nil
                local t = vim.uv.hrtime()
                require('bb7.backend').request_sync('echo_events', ...)
                vim.wait(5000, function() return _G.changed_at ~= nil end, 1)
                return (_G.changed_at - t) / 1e6
                """,
                {"events": [["status_changed", {"files": files, "full": True}]]},
            )
        )
    return out


def responsiveness(nvim: Any, seconds: float) -> list[float]:
    """ms for Neovim to answer a client request while 200 events/s are appended to a buffer."""
    nvim.exec_lua(
        """
        local buf = vim.api.nvim_create_buf(false, true)
        vim.api.nvim_set_current_buf(buf)
        require('bb7.events').on('chunk', function(text)
          local last = vim.api.nvim_buf_line_count(buf)
          vim.api.nvim_buf_set_lines(buf, last, last, false, { text })
        end)
        """
    )
    count = int(200 * seconds)
    emit(nvim, *[("chunk", f"token {i} " * 8) for i in range(count)], interval_ms=5)
    out = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        start = time.perf_counter()
        nvim.eval("1")
        out.append((time.perf_counter() - start) * 1000)
        time.sleep(0.01)
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
        cold, warm = setup_cost(home, runs, loader=False)
        rows.append(("setup(), first call (modules load)", cold, "< 1"))
        rows.append(("setup(), again", warm, "< 1"))
        cached, _ = setup_cost(home, runs, loader=True)
        rows.append(("setup(), first call, vim.loader on", cached, "< 1"))
        rows.append(("first command -> host reply (cold)", cold_start(home, runs), "< 300"))
        with editor(home) as nvim:
            nvim.exec_lua("require('bb7').setup()")
            start_host(nvim)
            rows.append(("request round trip (ping)", round_trip(nvim, 200), "< 10"))
            project = home / "project"
            rows.append(("status refresh, 500 files", status_refresh(nvim, project, runs), "< 50"))
            rows.append(("answer while streaming 200/s", responsiveness(nvim, 3.0), "p99 < 30"))
    print_table(rows, 38)
    return 0


if __name__ == "__main__":
    sys.exit(main())
