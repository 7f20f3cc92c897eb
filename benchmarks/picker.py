"""Speed of the file picker (`ga` in the chat view, `:BB7Add` there) over a generated tree of
20,000 files outside git, in a real headless Neovim with the real host; prints a table.

Target (issue 25): its first page shown < 100 ms, measured from the pick to `vim.ui.select`
getting its items (what a picker draws its first page from), the host already running (it
lists the project's files in the background when it opens the project: the first pick is the
first row). The host's listing alone (`bb7.adding.project_files`), cold (the first walk) and
again (only changed directories are listed), is shown apart.
Run: .venv/bin/python benchmarks/picker.py [--runs N] [--files N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "nvim"))  # the test harness's way to start an editor

from editor import spawn, wait_for  # noqa: E402

from bb7.adding.project_files import project_files  # noqa: E402
from timings import Row, print_table  # noqa: E402

PICK = """
_G.picked = nil
local started = vim.uv.hrtime()
vim.ui.select = function(items, opts, on_choice)
  _G.picked = { ms = (vim.uv.hrtime() - started) / 1e6, count = #items }
end
require('bb7.chat.picker').pick()
"""


def tree(root: Path, files: int) -> None:
    """`files` small files, 100 to a directory, two levels deep (no git)."""
    for i in range(files):
        directory = root / f"pkg{i // 1000:02}" / f"mod{i // 100 % 10}"
        if i % 100 == 0:
            directory.mkdir(parents=True)
        (directory / f"file{i % 100:02}.py").write_text(f"x = {i}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--files", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            os.environ[var] = str(home / var.lower())
        project.mkdir()
        tree(project, args.files)
        listing: list[float] = []
        for _ in range(args.runs + 1):
            start = time.perf_counter()
            listed = project_files(project)
            listing.append((time.perf_counter() - start) * 1000)
        nvim = spawn(project)
        try:
            nvim.exec_lua("require('bb7').setup()")
            nvim.exec_lua("require('bb7.backend').request_sync('ping', {}, 5000)")
            nvim.command("BB7Init")
            time.sleep(1)  # the host's listing in the background (a user opens the view first)
            nvim.exec_lua("require('bb7.chat.picker'); require('bb7.chat.ui')")
            picks: list[float] = []
            for _ in range(args.runs):
                nvim.exec_lua(PICK)
                wait_for(nvim, "_G.picked ~= nil", 10_000)
                picked = nvim.exec_lua("return _G.picked")
                assert picked["count"] == len(listed), (picked, len(listed))
                picks.append(picked["ms"])
        finally:
            nvim.close()
    rows: list[Row] = [
        (f"host listing, cold ({len(listed)} files)", listing[:1], ""),
        ("host listing again", listing[1:], ""),
        ("first pick to its first page", picks[:1], "< 100"),
        ("pick again to its first page", picks[1:], "< 100"),
    ]
    print_table(rows)


if __name__ == "__main__":
    main()
