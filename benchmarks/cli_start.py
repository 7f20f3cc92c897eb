"""How fast `bb7` starts: `bb7 --version` and `bb7 status` against a bare `python -c pass` of
the same interpreter (medians of many runs, each a fresh process).

Both the wall time and the CPU time (user + sys of the process) are shown; the ratios use the
CPU time, which other work on a busy machine does not inflate (on an idle machine the two agree).

Targets: `bb7 --version` <= 3x the bare interpreter (issue 10), and `bb7 status` <= 1.5x the floor
of any command that reads the state, `python -c 'import msgspec, sqlite3'` (issue 20: msgspec
alone is 4x a bare interpreter, so a bare `python -c pass` is no fair floor for it). `status`
runs in a temporary initialised project with one chat and one context file, so it opens the
database and computes a status like a user's call does. Bytecode is cached as on a user's
machine (PYTHONDONTWRITEBYTECODE is dropped, and warm-up runs write the .pyc files): compiling
bb7's sources on every start would measure the compiler, not the start.

Usage: python benchmarks/cli_start.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Each target: the command, the ratio, and the case its CPU time is divided by.
TARGETS = {"bb7 --version": (3.0, "python -c pass"), "bb7 status": (1.5, "msgspec, sqlite3")}
# What a command that needs none of them must not import: the HTTP stack, the edit engine and
# the corpus tools (each a sign that the command table stopped being lazy), the crash recovery
# and the apply machinery it brings (needed only when a killed apply left an intent), and
# tempfile (needed only to write a file).
HEAVY = (
    "httpx",
    "bb7.provider.client",
    "bb7.edits.replace",
    "bb7.corpus.commands",
    "bb7.state.recovery",
    "bb7.state.merge",
    "tempfile",
)
SHOW_HEAVY = (
    "import contextlib, io, sys\n"
    "from bb7.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
    "    main(sys.argv[1:])\n"
    f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules) or 'none')"
)


def bb7_command() -> list[str]:
    """The installed console script next to this interpreter (what a user runs)."""
    script = Path(sys.executable).parent / "bb7"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from bb7.cli import main; sys.exit(main())"]


def medians_ms(argv: list[str], cwd: Path, env: dict[str, str], runs: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds of `runs` runs of `argv`."""
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
        walls.append((time.perf_counter() - started) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()[-300:]}")
    return statistics.median(walls), statistics.median(cpus)


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
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for setup in (["init"], ["add", "app.py"]):
            subprocess.run([*bb7, *setup], cwd=root, env=env, capture_output=True, check=True)
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            # The floor of any command that reads the state (its records are msgspec Structs).
            "import msgspec": [sys.executable, "-c", "import msgspec"],
            "msgspec, sqlite3": [sys.executable, "-c", "import msgspec, sqlite3"],
            "bb7 --version": [*bb7, "--version"],
            "bb7 --help": [*bb7, "--help"],
            "bb7 status": [*bb7, "status"],
        }
        for argv in cases.values():  # warm the file cache and write the .pyc files
            medians_ms(argv, root, env, 2)
        times = {name: medians_ms(argv, root, env, args.runs) for name, argv in cases.items()}
        heavy = {
            name: subprocess.run(
                [sys.executable, "-c", SHOW_HEAVY, name.split()[1]],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            for name in TARGETS
        }
    bare_cpu = times["python -c pass"][1]
    print(f"{'command':16} {'wall ms':>8} {'cpu ms':>7} {'x bare':>7}  target")
    met = True
    for name, (wall, cpu) in times.items():
        mark = ""
        if name in TARGETS:
            target, floor = TARGETS[name]
            ratio = cpu / times[floor][1]
            mark = f"{ratio:.2f}x {floor} (<= {target:g}x {'ok' if ratio <= target else 'MISSED'})"
            met = met and ratio <= target
        print(f"{name:16} {wall:8.1f} {cpu:7.1f} {cpu / bare_cpu:7.2f}  {mark}")
    for name, loaded in heavy.items():
        met = met and loaded == "none"
        print(f"{name}: heavy modules imported: {loaded}")
    print(f"interpreter: {sys.executable} ({sys.version.split()[0]}), {args.runs} runs each")
    print("targets met" if met else "targets NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
