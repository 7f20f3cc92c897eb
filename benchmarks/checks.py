"""The checks' throwaway copy on a generated project of 10,000 files (a git repository, with a
`.venv` of 2,000 more files and an ignored build directory), against a plain `cp -r` of that
project in the same run:

- the copy in the cache directory (where the kernel refuses user namespaces): its first
  preparation, and the next ones (one pending file each), which must stay under 5% of the
  `cp -r`;
- the namespace view (where the kernel allows it): its preparation (the pending file written
  as a layer; nothing of the project is copied);
- bb7's own time around a check that does nothing (`true`), in each: the whole run of
  `run_checks` minus a bare `subprocess.run(["true"])`.

Usage: python benchmarks/checks.py [--files N] [--runs R]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bb7.checks import run as checks_run
from bb7.checks.config import Check
from bb7.checks.process import Cancel
from bb7.checks.run import ISOLATION_ENV, probe, run_checks
from bb7.checks.throwaway import Pending, copied, layered, project_cache
from timings import print_table


def generate(root: Path, files: int) -> None:
    """`files` source files in 100-file directories, a `.venv` of a fifth as many (not
    copied: a tool directory) and an ignored `build/`, committed to git."""
    for i in range(files):
        target = root / f"src/pkg{i // 1000}/mod{i // 100}/file{i}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(f"value_{n} = {n}  # line {n} of file {i}\n" for n in range(24)))
    for i in range(files // 5):
        target = root / f".venv/lib/site-packages/dep{i // 100}/m{i}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"x = {i}\n")
    (root / "build").mkdir()
    (root / "build" / "out.bin").write_bytes(os.urandom(1 << 16))
    (root / ".gitignore").write_text("build/\n.venv/\n")
    who = {
        f"GIT_{role}_{part}": "bench"
        for role in ("AUTHOR", "COMMITTER")
        for part in ("NAME", "EMAIL")
    }
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "generated"]):
        # No auto gc: one left packing in the background races the `cp -r` below.
        git = ["git", "-c", "gc.auto=0", "-C", str(root), *cmd]
        subprocess.run(git, check=True, env={**os.environ, **who})


CPU: dict[str, list[float]] = {"cp": [], "second": []}


def cpu_ms() -> float:
    """CPU time (user and system) of this process and its waited-for children, in ms: what a
    loaded machine's wait for a core does not inflate, as it does wall time."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return (me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime) * 1000


def prepare(root: Path, pending: list[Pending]) -> float:
    """Milliseconds until the copy is ready for a check (what a check then did in it is what
    the next preparation looks at: here, nothing)."""
    preparing = copied(root, pending)
    cpu = cpu_ms()
    took = timed(preparing.__enter__)
    if pending:
        CPU["second"].append(cpu_ms() - cpu)
    preparing.__exit__(None, None, None)
    return took


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bb7-bench-checks-") as scratch:
        base = Path(scratch)
        os.environ["XDG_CACHE_HOME"] = str(base / "cache")
        root = base / "project"
        generate(root, args.files)
        pending = root / "src/pkg0/mod0/file0.py"

        def cp_r() -> None:
            target = base / "cp"
            shutil.rmtree(target, ignore_errors=True)
            cpu = cpu_ms()
            subprocess.run(["cp", "-r", str(root), str(target)], check=True)
            CPU["cp"].append(cpu_ms() - cpu)

        cp = [timed(cp_r) for _ in range(args.runs)]
        path = str(pending.relative_to(root))
        prepared = [prepare(root, [])]
        for n in range(args.runs):
            text = pending.read_bytes() + f"# pending change {n}\n".encode()
            prepared.append(prepare(root, [Pending(path, text)]))
        first, second = prepared[0], prepared[1:]
        entries = sum(1 for _ in (project_cache(root) / "copy").rglob("*"))

        def prepare_layer() -> None:
            with layered(root, [Pending("src/pkg0/mod0/file0.py", b"pending\n")]):
                pass

        layer = [timed(prepare_layer) for _ in range(args.runs)]
        bare = [timed(lambda: subprocess.run(["true"], check=True)) for _ in range(args.runs)]
        nothing = [Check(name="nothing", run=["true"])]
        overhead: dict[str, list[float]] = {}
        isolations = ["copy"] + (["namespace"] if probe().isolation == "namespace" else [])
        for isolation in isolations:
            os.environ[ISOLATION_ENV] = isolation
            checks_run._Isolation.allowed = None
            whole = [
                timed(lambda: run_checks(root, nothing, [], Cancel())) for _ in range(args.runs)
            ]
            overhead[isolation] = [w - statistics.median(bare) for w in whole]

    cp_ms = statistics.median(cp)
    share = statistics.median(second) / cp_ms * 100
    print(f"project: {args.files} files + {args.files // 5} in .venv; copy holds {entries} entries")
    rows = [
        ("cp -r of the project", cp, "the yardstick"),
        ("copy: first preparation", [first], "once per project"),
        ("copy: second preparation (1 pending)", second, f"< 5% of cp -r ({share:.1f}%)"),
        ("namespace: preparation (1 pending)", layer, "nothing of the project copied"),
        ("bare `true`", bare, ""),
    ]
    for isolation, values in overhead.items():
        rows.append((f"bb7 around `true` ({isolation})", values, "bb7's own overhead"))
    print_table(rows)
    verdict = "met" if share < 5 else "MISSED"
    print(f"second preparation: {share:.1f}% of cp -r (target < 5%: {verdict})")
    cpu_share = statistics.median(CPU["second"]) / statistics.median(CPU["cp"]) * 100
    print(
        f"in CPU time (user + system, what load does not inflate): cp -r "
        f"{statistics.median(CPU['cp']):.0f} ms, second preparation "
        f"{statistics.median(CPU['second']):.0f} ms: {cpu_share:.1f}%"
    )


if __name__ == "__main__":
    main()
