"""Speed of the inline review (`:BB7Review`) in a real headless Neovim with the real host; prints
a table.

Targets (issue 14): drawing the overlay of a 2,000-line pending change < 30 ms; moving between
hunks < 5 ms. The file has 2,000 lines and the model changed every 5th one and inserted two
lines after every 50th (440 hunks). Measured: drawing the hunks (Lua, extmarks, then a redraw),
`:BB7Review` from the command to the overlay drawn (host computing the hunks included), and
`]h` (cursor moved, screen redrawn), beside the same cursor moves without the overlay: the
moves that scroll the window pay Neovim's redraw of the screen, overlay or not.
Run: .venv/bin/python benchmarks/review.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))  # the Neovims the tests run (tests/neovims.py)
sys.path.insert(0, str(ROOT / "tests" / "nvim"))  # the test harness's way to start an editor

from chat_state import Seeded  # noqa: E402
from editor import spawn, start_host, wait_for  # noqa: E402

from timings import Row, print_table  # noqa: E402

LINES = 2000


def seed(project: Path) -> None:
    """A project whose active chat has a pending change of every 5th line of big.py."""
    project.mkdir(parents=True)
    base = [f"value_{i} = compute({i}, factor={i % 7})" for i in range(LINES)]
    (project / "big.py").write_text("\n".join(base) + "\n")
    output: list[str] = []
    for i, line in enumerate(base):
        output.append(line.replace("compute", "compute_fast") if i % 5 == 0 else line)
        if i % 50 == 49:
            output += [f"# checked {i}", f"assert value_{i} is not None"]
    seeded = Seeded(project)
    chat = seeded.chat("Review")
    seeded.add(chat, "big.py")
    seeded.model_writes(chat, "big.py", "\n".join(output) + "\n")
    seeded.store.close()


def measure(nvim: Any, runs: int) -> list[Row]:
    nvim.command("edit big.py")
    start_host(nvim)
    command: list[float] = []
    for _ in range(runs):
        nvim.exec_lua("require('bb7.review').stop(0)")
        command.append(
            nvim.exec_lua(
                """
                local t = vim.uv.hrtime()
                vim.cmd('BB7Review')
                vim.wait(5000, function() return require('bb7.review').active(0) end, 1)
                vim.cmd('redraw')
                return (vim.uv.hrtime() - t) / 1e6
                """
            )
        )
    wait_for(nvim, "require('bb7.review').active(0)")
    hunks = nvim.exec_lua(
        "return #vim.api.nvim_buf_get_extmarks(0, require('bb7.review').ns, 0, -1, {})"
    )
    draw: list[float] = nvim.exec_lua(
        """
        local review, out = require('bb7.review'), {}
        local buf = vim.api.nvim_get_current_buf()
        local hunks = review.hunks(buf)
        for _ = 1, ... do
          local t = vim.uv.hrtime()
          review.draw(buf, hunks)
          vim.cmd('redraw')
          table.insert(out, (vim.uv.hrtime() - t) / 1e6)
        end
        return out
        """,
        runs,
    )
    jump: list[float] = nvim.exec_lua(
        """
        local review, out = require('bb7.review'), {}
        local buf = vim.api.nvim_get_current_buf()
        vim.api.nvim_win_set_cursor(0, { 1, 0 })
        for _ = 1, ... do
          local t = vim.uv.hrtime()
          review.next(buf)
          vim.cmd('redraw')
          table.insert(out, (vim.uv.hrtime() - t) / 1e6)
        end
        return out
        """,
        runs * 20,
    )
    moves = nvim.exec_lua(
        """
        local review = require('bb7.review')
        local rows = vim.tbl_map(function(h) return h.start end, review.hunks(0))
        review.stop(0)
        vim.api.nvim_win_set_cursor(0, { 1, 0 })
        local out = {}
        for i = 1, ... do
          local t = vim.uv.hrtime()
          local row = math.min(rows[i % #rows + 1] + 1, vim.api.nvim_buf_line_count(0))
          vim.api.nvim_win_set_cursor(0, { row, 0 })
          vim.cmd('redraw')
          table.insert(out, (vim.uv.hrtime() - t) / 1e6)
        end
        return out
        """,
        runs * 20,
    )
    nvim.command("BB7Review")
    wait_for(nvim, "require('bb7.review').active(0)")
    count = nvim.exec_lua("return #require('bb7.review').hunks(0)")
    print(f"{LINES}-line file, {count} hunks ({hunks} extmarks)")
    return [
        ("draw the overlay (Lua + redraw)", draw, "< 30"),
        (":BB7Review to overlay (host incl.)", command, ""),
        ("]h to the next hunk (+ redraw)", jump, "< 5"),
        ("same moves, no overlay (Neovim alone)", moves, ""),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            os.environ[var] = str(home / var.lower())
        project = home / "project"
        seed(project)
        nvim = spawn(project)
        try:
            nvim.ui_attach(120, 40, rgb=True)
            nvim.exec_lua("require('bb7').setup()")
            print_table(measure(nvim, args.runs))
        finally:
            nvim.close()


if __name__ == "__main__":
    main()
