"""How fast `bb7` starts: `bb7 --version` and `bb7 status` against a bare `python -c pass` of
the same interpreter (median wall time of many runs, each a fresh process).

Targets (issue 10): `bb7 --version` <= 3x and `bb7 status` <= 4x the bare interpreter. `status`
runs in a temporary initialised project with one chat and one context file, so it opens the
database and computes a status like a user's call does.

Usage: python benchmarks/cli_start.py [--runs N]
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

TARGETS = {"bb7 --version": 3.0, "bb7 status": 4.0}


def bb7_command() -> list[str]:
    """The installed console script next to this interpreter (what a user runs)."""
    script = Path(sys.executable).parent / "bb7"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from bb7.cli import main; sys.exit(main())"]


def median_ms(argv: list[str], cwd: Path, env: dict[str, str], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
        times.append((time.perf_counter() - started) * 1000)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()[-300:]}")
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    bb7 = bb7_command()
    with tempfile.TemporaryDirectory(prefix="bb7-cli-start-") as scratch:
        root = Path(scratch) / "project"
        root.mkdir()
        (root / "app.py").write_text("def main():\n    return 1\n")
        env = dict(os.environ, XDG_DATA_HOME=str(Path(scratch) / "data"))
        for setup in (["init"], ["add", "app.py"]):
            subprocess.run([*bb7, *setup], cwd=root, env=env, capture_output=True, check=True)
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "bb7 --version": [*bb7, "--version"],
            "bb7 --help": [*bb7, "--help"],
            "bb7 status": [*bb7, "status"],
        }
        median_ms(cases["bb7 status"], root, env, 3)  # warm the file cache and .pyc files
        times = {name: median_ms(argv, root, env, args.runs) for name, argv in cases.items()}
    bare = times["python -c pass"]
    print(f"{'command':16} {'median ms':>10} {'x bare':>7} {'target':>7}")
    met = True
    for name, ms in times.items():
        target = TARGETS.get(name)
        ratio = ms / bare
        mark = "" if target is None else f"<= {target:g}x {'ok' if ratio <= target else 'MISSED'}"
        met = met and (target is None or ratio <= target)
        print(f"{name:16} {ms:10.1f} {ratio:7.2f} {mark:>7}")
    print(f"interpreter: {sys.executable} ({sys.version.split()[0]}), {args.runs} runs each")
    print("targets met" if met else "targets NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
