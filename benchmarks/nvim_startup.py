"""What bb7 costs Neovim's start-up, and how soon a file of a bb7 project shows its status
after Neovim is reopened on it (no bb7 command); prints a table.

Targets (issue 26, item 3): `--startuptime` grows by < 5 ms with bb7 set up (its plugin file,
`setup()`, and the autocmd that wakes the host when a project file opens); the file's status
(`M`, a pending change) within 1 s of starting Neovim, host start included.

- Start-up: `nvim --headless --startuptime LOG a.py +qa` in a project whose a.py has a pending
  change, with an init that puts bb7 on 'runtimepath' and calls `setup()`, against the same
  init without bb7; the time of `--- NVIM STARTED ---`, runs alternated, medians compared.
- Status: a real embedded Neovim started on a.py (pynvim), polled until `require('bb7').status()`
  is `M`; measured from before the process starts.
Run: .venv/bin/python benchmarks/nvim_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pynvim

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the Neovims the tests run (tests/neovims.py)
sys.path.insert(0, str(ROOT / "tests" / "nvim"))  # the chat state the tests seed, one Neovim
sys.path.insert(0, str(ROOT / "benchmarks"))

from chat_state import Seeded  # noqa: E402
from editor import NVIM  # noqa: E402

from timings import Row, print_table  # noqa: E402

# Both inits: no shada/swap, and no python3 provider probe (its ~1 s would drown the rest).
BASE = "vim.o.swapfile = false\nvim.g.loaded_python3_provider = 0\n"
WITH_BB7 = BASE + f"vim.opt.runtimepath:prepend({str(ROOT)!r})\nrequire('bb7').setup()\n"


def project(home: Path) -> Path:
    root = home / "project"
    root.mkdir()
    (root / "a.py").write_text("one = 1\ntwo = 2\nthree = 3\n")
    seeded = Seeded(root)
    chat = seeded.chat("Pending")
    seeded.add(chat, "a.py")
    seeded.model_writes(chat, "a.py", "one = 1\ntwo = 22\nthree = 3\n")
    seeded.store.close()
    return root


def started_ms(init: Path, root: Path, log: Path) -> tuple[float, float]:
    """ms until `--- NVIM STARTED ---`, and of bb7's own entries in the log: the self times
    (nested entries left out) of every `require('bb7…')` and every sourcing of a `bb7.lua`
    (the init that calls `setup()`, `plugin/bb7.lua`), so the rest of a loaded machine's
    noise stays out of it."""
    log.unlink(missing_ok=True)
    argv = [str(NVIM), "--headless", "-n", "-i", "NONE", "-u", str(init)]
    argv += ["--startuptime", str(log), "a.py", "+qa!"]
    done = subprocess.run(argv, cwd=root, check=True, capture_output=True, timeout=30)
    assert b"bb7" not in done.stderr, done.stderr  # quitting at once says nothing
    lines = log.read_text().splitlines()
    started = float([line for line in lines if "NVIM STARTED" in line][-1].split()[0])
    own = 0.0
    for line in lines:
        fields = line.split(None, 3)
        if len(fields) == 4 and fields[2].endswith(":") and "bb7" in fields[3]:
            own += float(fields[2].rstrip(":"))
    return started, own


def status_ms(init: Path, root: Path) -> float:
    argv = [str(NVIM), "--embed", "--headless", "-n", "-i", "NONE", "-u", str(init), "a.py"]
    cwd = os.getcwd()
    os.chdir(root)
    try:
        started = time.monotonic()
        nvim = pynvim.attach("child", argv=argv)
        try:
            shown = nvim.exec_lua(
                "return vim.wait(10000, function() return require('bb7').status() == 'M' end, 2)"
            )
            took = (time.monotonic() - started) * 1000
        finally:
            nvim.close()
    finally:
        os.chdir(cwd)
    assert shown, "the status never showed"
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            os.environ[var] = str(home / var.lower())
        os.environ["BB7_LOG_LEVEL"] = "warn"
        root = project(home)
        plain, bb7 = home / "plain.lua", home / "bb7.lua"
        plain.write_text(BASE)
        bb7.write_text(WITH_BB7)
        log = home / "startuptime.log"
        without, with_, own = [], [], []
        for _ in range(runs):
            without.append(started_ms(plain, root, log)[0])
            started, mine = started_ms(bb7, root, log)
            with_.append(started)
            own.append(mine)
        statuses = [status_ms(bb7, root) for _ in range(max(3, runs // 3))]
    grown = statistics.median(with_) - statistics.median(without)
    rows: list[Row] = [
        ("start-up, without bb7", without, ""),
        ("start-up, bb7 set up", with_, ""),
        ("bb7's own entries in --startuptime", own, "< 5"),
        ("status of a reopened file (M)", statuses, "< 1000"),
    ]
    print_table(rows)
    print(f"start-up growth, medians of whole start-ups (noisy on a busy machine): {grown:.2f} ms")


if __name__ == "__main__":
    main()
