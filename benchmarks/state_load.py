"""Load figures of the state layer on a real project in a temp dir.

- status of a chat with N pending outputs (each a writable file changed by the model):
  `file_statuses` in-process, and `bb7 status --json` as a user runs it; target under 1 s;
  and in-process again once the user edited every file away from the model's change (each
  status is then a diff3: the change rebases onto the edit and stays M);
- apply-all of those outputs: total time and ms per file; target ~5 ms per file (each file is
  an intent commit, an atomic write with fsyncs and a commit of the apply).

Usage: python benchmarks/state_load.py [--files N] [--runs R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bb7.refusal import Problem
from bb7.state import context
from bb7.state.chats import new_chat
from bb7.state.context import Target
from bb7.state.outputs import apply_all
from bb7.state.responses import edit_bases, record_outputs
from bb7.state.status import file_statuses
from bb7.state.store import Store, init_project
from bb7.state.workspace import Workspace


def _project(root: Path, files: int) -> tuple[Store, str]:
    store = init_project(root)
    chat = new_chat(store)
    Workspace(root, store).set_active(store, chat.id)
    paths = [f"src/pkg{i // 100}/mod{i}.py" for i in range(files)]
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(f"line {n} of {path}\n" for n in range(40)))
    added = context.add_many(store, chat.id, [Target(p) for p in paths])
    assert not isinstance(added, Problem), added
    changed = {p: (root / p).read_text() + "# changed by the model\n" for p in paths}
    got = record_outputs(store, chat.id, changed, bases=edit_bases(store, chat.id))
    assert not isinstance(got, Problem), got
    return store, chat.id


def _timed(runs: int, work: Callable[[], object]) -> list[float]:
    """Seconds of each of `runs` calls of `work`."""
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        out.append(time.perf_counter() - started)
    return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bb7-load-") as tmp:
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "xdg")
        root = Path(tmp) / "project"
        store, chat_id = _project(root, args.files)
        in_process = _timed(args.runs, lambda: file_statuses(store, chat_id))
        rows = file_statuses(store, chat_id)
        assert sum(r.status == "M" for r in rows) == args.files
        status_json = [sys.executable, "-m", "bb7.cli", "status", "--json"]
        run = partial(subprocess.run, status_json, cwd=root, check=True, capture_output=True)
        cli = _timed(args.runs, run)
        originals = {r.path: (root / r.path).read_text() for r in rows}
        for path, text in originals.items():
            (root / path).write_text("# the user's line\n" + text)
        rebased = _timed(args.runs, lambda: file_statuses(store, chat_id))
        rows = file_statuses(store, chat_id)
        assert sum(r.status == "M" for r in rows) == args.files
        for path, text in originals.items():
            (root / path).write_text(text)
        started = time.perf_counter()
        reports = apply_all(store, chat_id)
        applied = time.perf_counter() - started
        assert all(r.applied for r in reports) and len(reports) == args.files
        store.close()
    print(f"{'measure':44} {'ms':>8}  target")
    print(
        f"{'status, ' + str(args.files) + ' pending outputs (in-process)':44} "
        f"{_ms(statistics.median(in_process))}  < 1000"
    )
    print(
        f"{'bb7 status --json, ' + str(args.files) + ' pending outputs':44} "
        f"{_ms(statistics.median(cli))}  < 1000"
    )
    print(
        f"{'status, the same, each edited by the user':44} "
        f"{_ms(statistics.median(rebased))}  < 1000"
    )
    print(f"{'apply-all, ' + str(args.files) + ' files (total)':44} {_ms(applied)}")
    print(f"{'apply-all, per file':44} {_ms(applied / args.files)}  ~5")
    return 0


if __name__ == "__main__":
    sys.exit(main())
