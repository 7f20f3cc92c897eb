"""How long a newcomer waits: the first `make demo` of a fresh clone until the demo screen shows
(in a real terminal: tmux), and `:BB7Install` from no environment until "installed".

Each run starts from a copy of the checkout as a clone has it (tracked and new files, no .venv)
and empty download caches for uv and pip (`--warm` keeps the user's), so the figures include
the downloads. `:BB7Install` runs without uv on $PATH (a fresh machine: uv is bootstrapped with
pip) and with it. Targets: the demo screen within 15 s, `:BB7Install` within 10 s.

    .venv/bin/python benchmarks/install.py [--runs N] [--warm]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the Neovims the tests run (tests/neovims.py)
sys.path.insert(0, str(ROOT / "tests" / "nvim"))
from editor import NVIMS  # noqa: E402

from timings import Row, print_table  # noqa: E402

DEMO_SCREEN = "bb7 demo: greet.py and README.md are in the chat"
DEMO_TARGET_S, INSTALL_TARGET_S = 15.0, 10.0


def fresh_clone(target: Path) -> Path:
    """The files a clone of this checkout has (committed or about to be), nothing generated."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def environment(work: Path, *, warm: bool, uv_on_path: bool = False) -> dict[str, str]:
    """The user's environment with XDG dirs (and, unless `warm`, download caches) in `work`;
    uv on $PATH only if `uv_on_path` (a fresh machine has none)."""
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        env[var] = str(work / var.lower())
    env.pop("VIRTUAL_ENV", None)
    env.pop("OPENROUTER_API_KEY", None)
    if not warm:
        env["UV_CACHE_DIR"] = str(work / "uv-cache")
        env["PIP_CACHE_DIR"] = str(work / "pip-cache")
    dirs = [d for d in env["PATH"].split(os.pathsep) if d != str(ROOT / ".venv" / "bin")]
    dirs = [d for d in dirs if not Path(d, "uv").exists()]
    if uv_on_path:
        (work / "bin").mkdir(exist_ok=True)
        (work / "bin" / "uv").symlink_to(Path(sys.executable).parent / "uv")  # the test extra's
        dirs.insert(0, str(work / "bin"))
    env["PATH"] = os.pathsep.join(dirs)
    return env


def first_demo(work: Path, *, warm: bool) -> float:
    """Seconds from `make demo` in a fresh clone until its screen shows in a 100x30 terminal."""
    clone = fresh_clone(work / "clone")
    session = f"bb7-bench-{os.getpid()}"
    env = environment(work, warm=warm)
    start = time.monotonic()
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "30", "make demo"],
        cwd=clone,
        env=env,
        check=True,
    )
    try:
        while time.monotonic() - start < 300:
            screen = subprocess.run(
                ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
            if DEMO_SCREEN in screen:
                return time.monotonic() - start
            time.sleep(0.05)
        raise SystemExit(f"the demo screen did not show within 300 s:\n{screen}")
    finally:
        # Quit as a user would (make's trap then removes its temporary copy) before cleaning up.
        subprocess.run(["tmux", "send-keys", "-t", session, "Escape", ":qa!", "Enter"])
        while (
            subprocess.run(["tmux", "has-session", "-t", session], capture_output=True).returncode
            == 0
        ):
            if time.monotonic() - start > 320:
                subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
            time.sleep(0.05)


def bb7_install(work: Path, *, warm: bool, uv_on_path: bool) -> tuple[float, str]:
    """Seconds of `:BB7Install` (through `install.run`, as the command calls it) in a Neovim
    with a fresh clone of the plugin, and the message it ended with."""
    clone = fresh_clone(work / "plugin")
    result = work / "result"
    lua = f"""
local start = vim.uv.hrtime()
require('bb7.install').run({{ wait = true, on_done = function(ok, message)
  local seconds = tostring((vim.uv.hrtime() - start) / 1e9)
  vim.fn.writefile({{ tostring(ok), message, seconds }}, '{result}')
end }})
"""
    script = work / "install.lua"
    script.write_text(lua)
    nvim = next(iter(NVIMS.values()))
    argv = [str(nvim), "--headless", "-u", "NONE", "-i", "NONE", "--cmd", f"set rtp^={clone}"]
    argv += ["-c", f"luafile {script}", "-c", "qa!"]
    env = environment(work, warm=warm, uv_on_path=uv_on_path)
    subprocess.run(argv, env=env, check=True, capture_output=True)
    ok, message, seconds = result.read_text().splitlines()
    if ok != "true":
        raise SystemExit(f":BB7Install failed: {message}")
    return float(seconds), message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--warm", action="store_true", help="keep the user's download caches")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("needs tmux (Debian: apt-get install tmux)")
    demo: list[float] = []
    installs: dict[str, list[float]] = {"uv bootstrapped by pip": [], "uv on $PATH": []}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bb7-bench-", ignore_cleanup_errors=True) as work:
            demo.append(first_demo(Path(work), warm=args.warm))
        for name, values in installs.items():
            with tempfile.TemporaryDirectory(
                prefix="bb7-bench-", ignore_cleanup_errors=True
            ) as work:
                seconds, _ = bb7_install(
                    Path(work), warm=args.warm, uv_on_path=name == "uv on $PATH"
                )
                values.append(seconds * 1000)
    caches = "the user's download caches" if args.warm else "empty download caches"
    print(f"fresh clone, {caches}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    rows: list[Row] = [("first `make demo` to its screen", [s * 1000 for s in demo], "15 s")]
    rows += [(f":BB7Install, {name}", values, "10 s") for name, values in installs.items()]
    print_table(rows)
    met = max(demo) <= DEMO_TARGET_S and all(
        max(v) <= INSTALL_TARGET_S * 1000 for v in installs.values()
    )
    print("targets met" if met else "targets NOT met")


if __name__ == "__main__":
    main()
