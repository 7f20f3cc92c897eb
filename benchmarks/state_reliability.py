"""Reliability of the state layer: thousands of random user and model actions on a real project.

Runs add, remove, update, local edits (including line-ending-only ones), model outputs (through
`record_outputs`, sometimes against stale bases), apply (plain, forced, merged, raced by a local
edit), apply all, discard, vimdiff-style merges, undo, sending, fork, edit-message, read-only
toggles, restarts (reopening the database) and real crashes (a child process SIGKILLed while it
applies; the next open settles the interrupted apply) against a project in a temp dir. After
every operation it checks:

- every project file holds exactly what a simple model says (no local change is lost unless
  the user applied over it explicitly),
- every status equals the model's own status rules,
- `PRAGMA integrity_check` and `foreign_key_check` find nothing.

Usage: python benchmarks/state_reliability.py [--ops N] [--seed S]
"""

from __future__ import annotations

import argparse
import difflib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bb7.state import chats, context, history, outputs
from bb7.state.context import Target
from bb7.state.local import LocalView, same_text
from bb7.state.merge import finish_merge
from bb7.state.records import ContextEntry, Problem
from bb7.state.recovery import recover
from bb7.state.responses import edit_bases, record_outputs
from bb7.state.status import file_statuses
from bb7.state.store import init_project
from bb7.text.merge import merge3

# How often each operation runs (relative weights).
WEIGHTS = {
    "add": 8,
    "remove": 3,
    "update": 6,
    "edit_local": 18,
    "stream": 16,
    "apply": 14,
    "apply_all": 3,
    "discard": 5,
    "merge": 6,
    "undo": 5,
    "readonly": 3,
    "send": 5,
    "fork": 2,
    "edit_message": 2,
    "restart": 2,
    "crash_apply": 0.5,
}

PATHS = ["a.txt", "b.txt", "dir/c.txt", "d.txt", "new1.txt", "dir/new2.txt"]
SECTION = ("a.txt", 1, 2)

_CRASH_APPLY = """
import sys
from pathlib import Path
from bb7.state.outputs import apply_output
from bb7.state.store import init_project
apply_output(init_project(Path(sys.argv[1])), sys.argv[2], sys.argv[3], force=True)
"""


@dataclass
class Entry:
    snapshot: str
    readonly: bool = False


@dataclass
class Undo:
    prev_local: str | None
    written: str
    prev_entry: Entry | None
    prev_output: str


@dataclass
class Model:
    """What the state should be, kept by rules written independently of the code under test."""

    local: dict[str, str | None] = field(default_factory=dict)
    entries: dict[str, Entry] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    undo: dict[str, list[Undo]] = field(default_factory=dict)
    # Per user message id: the whole-file snapshots and outputs it was sent with.
    sent: dict[int, tuple[dict[str, Entry], dict[str, str]]] = field(default_factory=dict)
    section: str = ""

    def status(self, path: str) -> str:
        entry = self.entries.get(path)
        local = self.local.get(path)
        if entry is None:
            return "!A" if local is not None else "A"
        out_of_sync = not same_text(local, entry.snapshot)
        if entry.readonly:
            return "~" if out_of_sync else "R"
        output = self.outputs.get(path)
        pending = output is not None and not same_text(output, entry.snapshot)
        if pending:
            return "~M" if out_of_sync else "M"
        return "~" if out_of_sync else ""

    def expected_statuses(self) -> dict[tuple[str, int], str]:
        rows = {(p, 0): self.status(p) for p in set(self.entries) | set(self.outputs)}
        rows[(SECTION[0], SECTION[1])] = "S"
        return rows

    def would_lose_local(self, path: str) -> bool:
        """Applying the output would replace local text found in neither snapshot nor output."""
        local = self.local.get(path)
        output = self.outputs[path]
        if same_text(local, output):
            return False
        entry = self.entries.get(path)
        if entry is None:
            return local is not None
        return not same_text(local, entry.snapshot)


class Run:
    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.rng = random.Random(seed)
        self.model = Model()
        self.store = init_project(root)
        self.chat_id = chats.new_chat(self.store, name="reliability").id
        self.violations: list[str] = []
        self.counts: dict[str, int] = {}
        self.stale_bases = edit_bases(self.store, self.chat_id)
        for path in PATHS[:4]:
            self.write_local(path, self.random_text())
        self.add(SECTION[0])
        got = context.add(self.store, self.chat_id, Target(*SECTION))
        self.expect_ok(got, "add section")
        self.model.section = self.store.blob(got.blob) if isinstance(got, ContextEntry) else ""

    # -- helpers ------------------------------------------------------------------------------

    def violation(self, message: str) -> None:
        self.violations.append(message)

    def expect_ok(self, got: object, what: str) -> bool:
        if isinstance(got, Problem):
            self.violation(f"{what}: unexpected refusal: {got.message}")
            return False
        return True

    def expect_refused(self, got: object, kind: str, what: str) -> None:
        if not isinstance(got, Problem):
            self.violation(f"{what}: expected a '{kind}' refusal, got {got!r}")
        elif got.kind != kind:
            self.violation(f"{what}: expected '{kind}', got '{got.kind}': {got.message}")

    def random_text(self) -> str:
        return "".join(f"line {i}: {self.rng.choice(['x', 'y', 'z'])}\n" for i in range(8))

    def mutate(self, text: str) -> str:
        lines = text.splitlines(keepends=True) or ["\n"]
        roll = self.rng.random()
        i = self.rng.randrange(len(lines))
        if roll < 0.5:
            lines[i] = f"changed {self.rng.randrange(10**6)}\n"
        elif roll < 0.7:
            lines.insert(i, f"inserted {self.rng.randrange(10**6)}\n")
        elif roll < 0.85 and len(lines) > 3:
            del lines[i]
        else:
            lines.append(f"appended {self.rng.randrange(10**6)}\n")
        return "".join(lines)

    def write_local(self, path: str, text: str | None) -> None:
        target = self.root / path
        if text is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
        self.model.local[path] = text

    def read_store_output(self, path: str) -> None:
        """Take the output the store now holds for `path` (after a three-way merge)."""
        got = self.store.output(self.chat_id, path)
        if got is None:
            self.model.outputs.pop(path, None)
        else:
            self.model.outputs[path] = self.store.blob(got.blob)

    # -- operations ---------------------------------------------------------------------------

    def add(self, path: str) -> None:
        got = context.add(self.store, self.chat_id, Target(path))
        if self.model.local.get(path) is None:
            self.expect_refused(got, "missing", f"add {path}")
            return
        if path in self.model.entries:
            return
        if self.expect_ok(got, f"add {path}"):
            self.model.entries[path] = Entry(self.model.local[path] or "")

    def op_add(self) -> None:
        self.add(self.rng.choice(PATHS))

    def op_remove(self) -> None:
        path = self.rng.choice(PATHS)
        got = context.remove(self.store, self.chat_id, Target(path))
        entry = self.model.entries.get(path)
        if entry is None:
            self.expect_refused(got, "not_in_context", f"remove {path}")
        elif not entry.readonly and path in self.model.outputs:
            self.expect_refused(got, "pending_output", f"remove {path}")
        elif self.expect_ok(got, f"remove {path}"):
            del self.model.entries[path]

    def op_update(self) -> None:
        path = self.rng.choice(PATHS)
        got = context.update(self.store, self.chat_id, Target(path))
        entry = self.model.entries.get(path)
        local = self.model.local.get(path)
        if entry is None:
            self.expect_refused(got, "not_in_context", f"update {path}")
            return
        if local is None:
            self.expect_refused(got, "missing", f"update {path}")
            return
        if isinstance(got, Problem) and got.kind == "conflict" and path in self.model.outputs:
            return  # overlapping edits: refused, nothing changed
        if self.expect_ok(got, f"update {path}"):
            entry.snapshot = local
            if path in self.model.outputs:
                self.read_store_output(path)

    def op_edit_local(self) -> None:
        path = self.rng.choice(PATHS)
        local = self.model.local.get(path)
        roll = self.rng.random()
        if local is None:
            if roll < 0.3:
                self.write_local(path, self.random_text())
        elif roll < 0.1:
            self.write_local(path, None)
        elif roll < 0.2:
            self.write_local(path, local.replace("\n", "\r\n"))  # never out of sync
        elif roll < 0.25:
            self.write_local(path, local.rstrip("\n"))
        else:
            self.write_local(path, self.mutate(local))

    def op_stream(self) -> None:
        """A model response writing 1-3 files, recorded like the send loop will."""
        stale = self.rng.random() < 0.1
        bases = self.stale_bases if stale else edit_bases(self.store, self.chat_id)
        self.stale_bases = edit_bases(self.store, self.chat_id)
        current = self.stale_bases
        candidates = [p for p in PATHS if not self._readonly(p)]
        contents: dict[str, str] = {}
        for path in self.rng.sample(candidates, min(len(candidates), self.rng.randint(1, 3))):
            base = bases.get(path)
            if base is not None:
                contents[path] = self.mutate(base.content)
            else:
                contents[path] = self.random_text()
        if not stale and self.rng.random() < 0.05 and self.model.entries:
            ro = self.rng.choice(list(self.model.entries))
            if self._readonly(ro):
                contents[ro] = "the model must not write this\n"
        got = record_outputs(self.store, self.chat_id, contents, bases=bases)
        if any(self._readonly(p) for p in contents):
            self.expect_refused(got, "readonly", "stream into a read-only file")
            return
        changed = any(
            (bases.get(p) is None) != (current.get(p) is None)
            or (bases.get(p) is not None and bases[p].file_id != current[p].file_id)
            for p in contents
        )
        if changed:
            self.expect_refused(got, "stale_base", "stream on stale bases")
            return
        if not self.expect_ok(got, "stream"):
            return
        for path, text in contents.items():
            base = current.get(path)
            entry = self.model.entries.get(path)
            if base is not None and text == base.content:
                continue
            if entry is not None and text == entry.snapshot:
                self.model.outputs.pop(path, None)
            else:
                self.model.outputs[path] = text

    def _readonly(self, path: str) -> bool:
        entry = self.model.entries.get(path)
        return entry is not None and entry.readonly

    def _applied(self, path: str, text: str) -> None:
        entry = self.model.entries.get(path)
        prev = None if entry is None else Entry(entry.snapshot, entry.readonly)
        self.model.undo.setdefault(path, []).append(
            Undo(self.model.local.get(path), text, prev, self.model.outputs.pop(path))
        )
        self.model.local[path] = text
        self.model.entries[path] = Entry(text)

    def op_apply(self) -> None:
        path = self.rng.choice(PATHS)
        mode = self.rng.choice(["plain", "plain", "force", "merge", "race"])
        seen = None
        if mode == "race" and path in self.model.outputs:
            row = next(r for r in file_statuses(self.store, self.chat_id) if r.path == path)
            seen = LocalView(row.local_hash, row.changedtick)
            local = self.model.local.get(path)
            self.write_local(path, self.mutate(local) if local is not None else "typed\n")
        got = outputs.apply_output(
            self.store,
            self.chat_id,
            path,
            seen=seen,
            force=mode == "force",
            merge=mode == "merge",
        )
        what = f"apply ({mode}) {path}"
        if path not in self.model.outputs:
            self.expect_refused(got, "no_output", what)
            return
        if seen is not None:
            self.expect_refused(got, "changed", what)
            return
        output = self.model.outputs[path]
        if mode != "force" and self.model.would_lose_local(path):
            entry = self.model.entries.get(path)
            local = self.model.local.get(path)
            if mode == "merge" and entry is not None and local is not None:
                merged = merge3(entry.snapshot, local, output)
                if not merged.conflicts:
                    if self.expect_ok(got, what):
                        self._applied(path, merged.text)
                    return
            kind = "exists"
            if path in self.model.entries:
                kind = "gone" if self.model.local.get(path) is None else "conflict"
            self.expect_refused(got, kind, what)
            return
        if self.expect_ok(got, what):
            self._applied(path, output)

    def op_apply_all(self) -> None:
        expected = {p: self.model.status(p) in ("M", "A") for p in self.model.outputs}
        for report in outputs.apply_all(self.store, self.chat_id):
            if report.applied != expected.get(report.path):
                self.violation(f"apply all {report.path}: {report.message}")
            elif report.applied:
                self._applied(report.path, self.model.outputs[report.path])

    def op_discard(self) -> None:
        path = self.rng.choice(PATHS)
        got = outputs.discard_output(self.store, self.chat_id, path)
        if path not in self.model.outputs:
            self.expect_refused(got, "no_output", f"discard {path}")
        elif self.expect_ok(got, f"discard {path}"):
            del self.model.outputs[path]

    def op_merge(self) -> None:
        """A vimdiff session: take some of the output's hunks into the local file, close."""
        if not self.model.outputs:
            return
        path = self.rng.choice(sorted(self.model.outputs))
        local = self.model.local.get(path)
        if local is None or self._readonly(path):
            return
        output = self.model.outputs[path]
        a = local.splitlines(keepends=True)
        b = output.splitlines(keepends=True)
        taken: list[str] = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
            take = tag != "equal" and self.rng.random() < 0.5
            taken += b[j1:j2] if take else a[i1:i2]
        self.write_local(path, "".join(taken))
        got = finish_merge(self.store, self.chat_id, path)
        if not self.expect_ok(got, f"merge {path}"):
            return
        new_local = self.model.local[path] or ""
        entry = self.model.entries.get(path)
        if same_text(new_local, output):
            want = "full"
        elif entry is not None and same_text(new_local, entry.snapshot):
            want = "none"
        else:
            want = "partial"
        outcome = getattr(got, "outcome", "")
        if outcome != want and not (want == "partial" and outcome == "full"):
            self.violation(f"merge {path}: outcome {outcome}, expected {want}")
        if outcome == "none":
            return
        self.model.entries[path] = Entry(new_local)
        self.read_store_output(path)
        if outcome == "partial" and same_text(self.model.outputs.get(path), new_local):
            self.violation(f"merge {path}: partial, yet nothing remains")

    def op_undo(self) -> None:
        path = self.rng.choice(PATHS)
        got = outputs.undo_apply(self.store, self.chat_id, path)
        stack = self.model.undo.get(path)
        if not stack:
            self.expect_refused(got, "nothing_to_undo", f"undo {path}")
            return
        last = stack[-1]
        if not same_text(self.model.local.get(path), last.written):
            self.expect_refused(got, "changed", f"undo {path}")
            return
        if path in self.model.outputs:
            self.expect_refused(got, "pending_output", f"undo {path}")
            return
        if not self.expect_ok(got, f"undo {path}"):
            return
        stack.pop()
        self.model.local[path] = last.prev_local
        if last.prev_entry is None:
            self.model.entries.pop(path, None)
        else:
            self.model.entries[path] = last.prev_entry
        self.model.outputs[path] = last.prev_output

    def op_readonly(self) -> None:
        path = self.rng.choice(PATHS)
        entry = self.model.entries.get(path)
        flag = self.rng.random() < 0.5
        got = context.set_readonly(self.store, self.chat_id, Target(path), flag)
        if entry is None:
            self.expect_refused(got, "not_in_context", f"readonly {path}")
        elif flag and not entry.readonly and path in self.model.outputs:
            self.expect_refused(got, "pending_output", f"readonly {path}")
        elif self.expect_ok(got, f"readonly {path}"):
            entry.readonly = flag

    def op_send(self) -> None:
        message = chats.append_user_message(self.store, self.chat_id, f"request {time.time()}")
        self.model.sent[message.id] = (
            {p: Entry(e.snapshot, e.readonly) for p, e in self.model.entries.items()},
            dict(self.model.outputs),
        )

    def op_fork(self) -> None:
        if not self.model.sent:
            return
        message_id = self.rng.choice(sorted(self.model.sent))
        got = history.fork_chat(self.store, self.chat_id, message_id)
        if not self.expect_ok(got, "fork") or isinstance(got, Problem):
            return
        entries, _ = self.model.sent[message_id]
        self.check_restored(got.chat.id, entries, "fork")
        if self.store.outputs(got.chat.id):
            self.violation("fork copied pending outputs")
        chats.delete_chat(self.store, got.chat.id)

    def op_edit_message(self) -> None:
        if not self.model.sent or self.rng.random() < 0.7:
            return
        message_id = self.rng.choice(sorted(self.model.sent))
        got = history.edit_message(self.store, self.chat_id, message_id)
        if not self.expect_ok(got, "edit message"):
            return
        entries, outs = self.model.sent[message_id]
        self.model.entries = {p: Entry(e.snapshot, e.readonly) for p, e in entries.items()}
        self.model.outputs = dict(outs)
        self.model.sent = {k: v for k, v in self.model.sent.items() if k < message_id}
        self.check_restored(self.chat_id, entries, "edit message")

    def check_restored(self, chat_id: str, entries: dict[str, Entry], what: str) -> None:
        got = {
            e.path: self.store.blob(e.blob)
            for e in self.store.entries(chat_id)
            if e.start_line == 0
        }
        want = {p: e.snapshot for p, e in entries.items()}
        if got != want:
            self.violation(f"{what}: restored {sorted(got)} differs from the message's snapshot")

    def op_restart(self) -> None:
        self.store.close()
        self.store = init_project(self.root)

    def op_crash_apply(self) -> None:
        """A real process applies (forced) and is SIGKILLed at a random moment."""
        if not self.model.outputs:
            return
        path = self.rng.choice(sorted(self.model.outputs))
        before = self.model.local.get(path)
        output = self.model.outputs[path]
        self.store.close()
        child = subprocess.Popen(
            [sys.executable, "-c", _CRASH_APPLY, str(self.root), self.chat_id, path]
        )
        time.sleep(self.rng.uniform(0.0, 0.15))
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
        child.wait()
        # The next open settles the interrupted apply: finished if the file was replaced (undo
        # brings the old text back), else rolled back; either way no temp file is left.
        self.store = init_project(self.root)
        recover(self.store)
        leftovers = list((self.root / path).parent.glob("*.bb7-tmp"))
        if leftovers:
            self.violation(f"crash apply {path}: temp files left {leftovers}")
            for leftover in leftovers:
                leftover.unlink()
        target = self.root / path
        disk = target.read_bytes().decode("utf-8") if target.exists() else None
        if disk not in (before, output):
            self.violation(f"crash apply {path}: the file is neither old nor new")
            self.model.local[path] = disk
            self.resync()
            return
        if self.store.output(self.chat_id, path) is None:
            self._applied(path, output)  # the child committed, or recovery finished the apply
        elif disk != before:
            self.violation(f"crash apply {path}: the file was replaced, the output is pending")

    # -- invariants ---------------------------------------------------------------------------

    def check(self, op: str) -> None:
        for path in PATHS:
            target = self.root / path
            disk = target.read_bytes().decode("utf-8") if target.exists() else None
            if disk != self.model.local.get(path):
                self.violation(f"after {op}: {path} on disk differs from the model (lost work)")
                self.model.local[path] = disk
        got = {(r.path, r.start_line): r.status for r in file_statuses(self.store, self.chat_id)}
        want = self.model.expected_statuses()
        if got != want:
            diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want)}
            diff = {k: v for k, v in diff.items() if v[0] != v[1]}
            self.violation(f"after {op}: statuses (got, expected) {diff}")
            self.resync()
        problems = self.store.integrity_problems()
        if problems:
            self.violation(f"after {op}: database problems {problems}")

    def resync(self) -> None:
        """After a reported violation, take the store's view so later checks stay meaningful."""
        self.model.entries = {
            e.path: Entry(self.store.blob(e.blob), e.readonly)
            for e in self.store.entries(self.chat_id)
            if e.start_line == 0
        }
        self.model.outputs = {
            o.path: self.store.blob(o.blob) for o in self.store.outputs(self.chat_id)
        }

    def step(self) -> None:
        names = list(WEIGHTS)
        op = self.rng.choices(names, weights=[WEIGHTS[n] for n in names])[0]
        getattr(self, f"op_{op}")()
        self.counts[op] = self.counts.get(op, 0) + 1
        self.check(op)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=4)
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bb7-reliability-") as tmp:
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "xdg")
        run = Run(Path(tmp) / "project", args.seed)
        for _ in range(args.ops):
            run.step()
        size = os.path.getsize(run.store.path)
        run.store.close()
    elapsed = time.perf_counter() - started
    print(f"{'operation':14} {'count':>7}")
    for name in sorted(run.counts, key=lambda n: -run.counts[n]):
        print(f"{name:14} {run.counts[name]:7}")
    print(f"{'total':14} {sum(run.counts.values()):7}")
    print(f"invariant violations: {len(run.violations)}")
    for message in run.violations[:20]:
        print(f"  {message}")
    print(f"database size: {size / 1024:.0f} KiB; time: {elapsed:.1f} s")
    return 1 if run.violations else 0


if __name__ == "__main__":
    sys.exit(main())
