"""Reliability of the state layer: thousands of random user and model actions on a real project.

Runs add, remove, update, local edits (including line-ending-only ones), model outputs (through
`record_outputs`, sometimes against stale bases), apply (plain, forced, merged, raced by a local
edit), apply all, discard, vimdiff-style merges, undo, sending, fork, edit-message, read-only
toggles, restarts (reopening the database), real crashes (a child process SIGKILLed at a random
moment while it applies, forced or rebased onto the user's edits, undoes an apply, or records
a model's answer; half the time the user edits the file before the next open, as when the
editor's host dies and they keep typing), a second writer (another program writes the file
while an apply is stopped before its rename), an appender (another program appends a line
while an apply runs: stopped at a step of its write, or at a random moment from a thread) and
link swaps (a context file replaced by a symlink to a file outside the project, as a hostile
pull would, then a send: its edits followed and its request built, with an AGENTS.md that links
out too) against a project in a temp dir. After every operation it checks:

- every project file holds exactly what a simple model says (no local change is lost unless
  the user applied over it explicitly),
- every status equals the model's own status rules,
- after a crash: the file is the old or the new text, the text an apply replaced is kept in its
  undo record, the model's output is pending or applied, no temp file is left, and the
  database opens (the next open settles what the killed process left),
- `PRAGMA integrity_check` and `foreign_key_check` find nothing;
- no line another program appended is lost, and no request holds a byte of a file outside
  the project (both counted and printed).

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
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from bb7.files.fsio import CRASH_ENV, STOP_ENV
from bb7.prompt.config import SendConfig
from bb7.prompt.instructions import load_instructions
from bb7.prompt.turn import build_turn
from bb7.refusal import Problem
from bb7.state import chats, context, history, outputs
from bb7.state.context import Target
from bb7.state.local import LocalView, same_text
from bb7.state.merge import finish_merge
from bb7.state.records import ContextEntry
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
    "crash_apply": 1,
    "crash_undo": 1,
    "crash_chat": 0.5,
    "second_writer": 0.5,
    "appender": 3,
    "link_swap": 3,
}

# The text of the files outside the project that links lead to: no request may hold it.
OUTSIDE = "OUTSIDE-THE-PROJECT: key material\n"

CRASH_STEPS = ["after_temp_write", "after_rename", "before_commit"]
PATHS = ["a.txt", "b.txt", "dir/c.txt", "d.txt", "new1.txt", "dir/new2.txt"]
SECTION = ("a.txt", 1, 2)

# A real process applies (forced, or rebased onto the user's edits), undoes an apply, or
# records a model's answer (a chat's user message and its outputs), and is SIGKILLed at a
# random moment, or stopped before its rename while a second writer writes the file.
_CHILD = """
import sys
from pathlib import Path
from bb7.state import chats
from bb7.state.outputs import apply_output, undo_apply
from bb7.state.responses import record_outputs
from bb7.state.store import init_project
root, chat_id, action, path = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
store = init_project(root)
if action == "apply":
    print(apply_output(store, chat_id, path, force=sys.argv[5] == "force"), flush=True)
elif action == "undo":
    print(undo_apply(store, chat_id, path), flush=True)
else:
    chats.append_user_message(store, chat_id, "a request")
    print(record_outputs(store, chat_id, {path: sys.argv[5]}), flush=True)
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
            return "~R" if out_of_sync else "R"
        output = self.outputs.get(path)
        pending = output is not None and not same_text(output, entry.snapshot)
        if pending:
            return "M" if not out_of_sync or self.rebased(path) is not None else "~M"
        return "~" if out_of_sync else ""

    def rebased(self, path: str) -> str | None:
        """The output rebased onto the user's edits, when they touch other lines (status M:
        a plain apply writes this); None when they overlap or there is nothing to rebase."""
        entry, local, output = self.entries.get(path), self.local.get(path), self.outputs[path]
        if entry is None or local is None:
            return None
        merged = merge3(entry.snapshot, local, output)
        return None if merged.conflicts else merged.text

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
        # What the appender and the link swaps found: lines appended and lost, requests built
        # and those that held outside text.
        self.appended = self.lost_lines = self.requests = self.leaks = 0
        self.outside = root.parent / "outside.txt"
        self.outside.write_text(OUTSIDE)
        (root / "AGENTS.md").symlink_to(self.outside)
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
        entry = self.model.entries.get(path)
        if entry is not None:  # adding it again brings its snapshot up to date
            if entry.readonly:
                self.expect_refused(got, "exists", f"add {path} (read-only)")
            else:
                self.updated(path, got, f"add {path} again")
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
        self.updated(path, got, f"update {path}")

    def updated(self, path: str, got: object, what: str) -> None:
        """The model after an update of `path` (which exists locally and in the context)."""
        if isinstance(got, Problem) and got.kind == "conflict" and path in self.model.outputs:
            return  # overlapping edits: refused, nothing changed
        if self.expect_ok(got, what):
            self.model.entries[path].snapshot = self.model.local[path] or ""
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
            rebased = self.model.rebased(path)
            if rebased is not None:
                if self.expect_ok(got, what):
                    self._applied(path, rebased)
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
                rebased = None
                if self.model.would_lose_local(report.path):
                    rebased = self.model.rebased(report.path)
                self._applied(report.path, rebased or self.model.outputs[report.path])

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
        # A merge that took none of the model's own hunks (the user kept only their edits) is
        # `none`: nothing recorded, the output stays pending, as the ops after it check.
        if outcome != want and not (want == "partial" and outcome in ("full", "none")):
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

    def _child(self, *args: str, stop: str = "") -> subprocess.Popen[bytes]:
        """The child, which half the time kills itself at a named step of its write (the
        rest of the time it is killed at a random moment, `_kill_at_random`), or stops at the
        step `stop` names."""
        self.store.close()
        env = dict(os.environ)
        if stop:
            env[STOP_ENV] = stop
        elif self.rng.random() < 0.5:
            env[CRASH_ENV] = self.rng.choice(CRASH_STEPS)
        command = [sys.executable, "-c", _CHILD, str(self.root), self.chat_id, *args]
        return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)

    def _kill_at_random(self, child: subprocess.Popen[bytes]) -> None:
        time.sleep(self.rng.uniform(0.0, 0.6))  # a child takes about 0.3 s to start
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
        child.wait()

    def _reopen(self, path: str) -> None:
        """The next open after a kill: settle what the child left, remove its temp files."""
        self.store = init_project(self.root)
        recover(self.store)
        leftovers = list((self.root / path).parent.glob("*.bb7-tmp"))
        if leftovers:
            self.violation(f"crash {path}: temp files left {leftovers}")
            for leftover in leftovers:
                leftover.unlink()

    def _disk(self, path: str) -> str | None:
        target = self.root / path
        return target.read_bytes().decode("utf-8") if target.exists() else None

    def _maybe_edit_after_crash(self, path: str) -> str | None:
        """Half the time the user edits the file before the next bb7 command (the host died,
        they kept typing); returns what the file held before that edit."""
        disk = self._disk(path)
        if disk is not None and self.rng.random() < 0.5:
            self.write_local(path, disk + f"typed after the crash {self.rng.randrange(10**6)}\n")
        return disk

    def op_crash_apply(self) -> None:
        """A forced or rebased apply, killed; maybe an edit before the next open."""
        if not self.model.outputs:
            return
        path = self.rng.choice(sorted(self.model.outputs))
        before, output = self.model.local.get(path), self.model.outputs[path]
        force = self.rng.random() < 0.6 or self.model.rebased(path) is None
        if not force and self.model.would_lose_local(path):
            output = self.model.rebased(path) or output
        elif not force and self.model.status(path) not in ("M", "A"):
            return
        self._kill_at_random(self._child("apply", path, "force" if force else "plain"))
        written = self._maybe_edit_after_crash(path)
        if written not in (before, output):
            self.violation(f"crash apply {path}: the file is neither old nor new")
        self._reopen(path)
        edited = self.model.local.get(path) != written
        if self.store.output(self.chat_id, path) is None:
            # Finished (by the child or by recovery): the user's text is kept for undo.
            self.model.local[path] = before
            self._applied(path, output)
            self.model.local[path] = self._disk(path)
            self._check_kept(path, before, "crash apply")
        elif written == output and before != output and not edited:
            self.violation(f"crash apply {path}: the file was replaced, the output is pending")
        elif written == output and before != output and before is not None:
            self.violation(f"crash apply {path}: replaced and edited, the old text is lost")

    def _check_kept(self, path: str, before: str | None, what: str) -> None:
        """The text an apply replaced stays in its undo record until undone."""
        record = self.store.last_undo(self.chat_id, path)
        kept = None if record is None or record.prev_local is None else record.prev_local
        if (None if kept is None else self.store.blob(kept)) != before:
            self.violation(f"{what} {path}: the text it replaced is not kept for undo")

    def op_crash_undo(self) -> None:
        """An undo, killed; maybe an edit before the next open."""
        candidates = [
            p
            for p, stack in self.model.undo.items()
            if stack
            and p not in self.model.outputs
            and same_text(self.model.local.get(p), stack[-1].written)
        ]
        if not candidates:
            return
        path = self.rng.choice(sorted(candidates))
        last = self.model.undo[path][-1]
        before = self.model.local.get(path)
        self._kill_at_random(self._child("undo", path))
        written = self._maybe_edit_after_crash(path)
        if written not in (before, last.prev_local):
            self.violation(f"crash undo {path}: the file is neither old nor new")
        self._reopen(path)
        if self.store.output(self.chat_id, path) is not None:  # the undo finished
            self.model.undo[path].pop()
            self.model.local[path] = self._disk(path)
            if last.prev_entry is None:
                self.model.entries.pop(path, None)
            else:
                self.model.entries[path] = last.prev_entry
            self.model.outputs[path] = last.prev_output
        elif written != before:
            # Rolled back after the file was put back: both texts must still be in the record.
            record = self.store.last_undo(self.chat_id, path)
            if record is None or self.store.blob(record.written) != last.written:
                self.violation(f"crash undo {path}: the model's text is lost")
            self._check_kept(path, last.prev_local, "crash undo")

    def op_crash_chat(self) -> None:
        """A model's answer being recorded (user message, outputs), killed: all or nothing."""
        candidates = [p for p in PATHS if not self._readonly(p)]
        path = self.rng.choice(candidates)
        base = self.model.entries.get(path)
        text = self.mutate(base.snapshot if base is not None else self.random_text())
        self._kill_at_random(self._child("record", path, text))
        self._reopen(path)
        got = self.store.output(self.chat_id, path)
        if got is not None and self.store.blob(got.blob) == text:
            self.model.outputs[path] = text
        elif got is not None and self.model.outputs.get(path) != self.store.blob(got.blob):
            self.violation(f"crash chat {path}: a pending output neither old nor new")

    def op_second_writer(self) -> None:
        """Another program writes the file while an apply writes it: the apply is refused."""
        rows = [p for p in self.model.outputs if self.model.status(p) == "M"]
        if not rows:
            return
        path = self.rng.choice(sorted(rows))
        child = self._child("apply", path, "plain", stop="after_temp_write")
        _, status = os.waitpid(child.pid, os.WUNTRACED)
        if os.WIFSTOPPED(status):
            theirs = self.random_text()
            self.write_local(path, theirs)
            os.kill(child.pid, signal.SIGCONT)
            child.wait()
        else:  # it wrote nothing (e.g. the rebase found nothing to do): just reopen
            child.returncode = os.waitstatus_to_exitcode(status)
        self._reopen(path)
        if self.store.output(self.chat_id, path) is None:
            self.violation(f"second writer {path}: the apply went ahead over the other write")

    def op_appender(self) -> None:
        """Another program appends a line to a file while an apply writes it: the line is in
        the file afterwards, whether the apply went ahead (the line merged in) or was refused."""
        rows = [p for p in self.model.outputs if self.model.status(p) == "M"]
        if not rows:
            return
        path = self.rng.choice(sorted(rows))
        output = expected = self.model.outputs[path]
        if self.model.would_lose_local(path):
            expected = self.model.rebased(path) or expected
        snapshot = self.model.entries[path].snapshot
        self.appended += 1
        line = f"appended by another program {self.appended}\n"
        in_child = self.rng.random() < 0.5
        if in_child:
            applied = self._append_during_child(path, line)
        else:
            applied = self._append_during_apply(path, line)
        disk = self._disk(path) or ""
        if line.rstrip("\n") not in disk:  # (a file without a last line break takes it in)
            self.lost_lines += 1
            how = "in a child" if in_child else "from a thread"
            done = "applied" if applied else "refused"
            self.violation(f"appender {path}: the line appended {how} is lost ({done})")
        if applied:
            # A line that came before the apply's first look is the user's edit: rebased onto.
            with_line = (self.model.local[path] or "") + line
            early = merge3(snapshot, with_line, output)
            entry = self.store.entry(self.chat_id, path)
            written = None if entry is None else self.store.blob(entry.blob)
            if written != expected and not early.conflicts and written == early.text:
                self.model.local[path] = with_line  # what the apply replaced, kept for undo
            elif written != expected:
                self.violation(f"appender {path}: the apply wrote neither text it could")
            self._applied(path, written or expected)
        self.model.local[path] = disk

    def _append_during_child(self, path: str, line: str) -> bool:
        """The apply in a child stopped at a step of its write; the line goes in meanwhile."""
        step = self.rng.choice(["after_temp_write", "before_rename"])
        child = self._child("apply", path, "plain", stop=step)
        _, status = os.waitpid(child.pid, os.WUNTRACED)
        if os.WIFSTOPPED(status):
            with (self.root / path).open("a") as late:
                late.write(line)
        while os.WIFSTOPPED(status):  # the write that keeps the line stops there too
            os.kill(child.pid, signal.SIGCONT)
            _, status = os.waitpid(child.pid, os.WUNTRACED)
        child.returncode = os.waitstatus_to_exitcode(status)
        self._reopen(path)
        return self.store.output(self.chat_id, path) is None

    def _append_during_apply(self, path: str, line: str) -> bool:
        """The apply in this process; a thread appends the line at a random moment of it."""
        delay = self.rng.uniform(0.0, 0.004)

        def append() -> None:
            time.sleep(delay)
            with (self.root / path).open("a") as late:
                late.write(line)

        thread = threading.Thread(target=append)
        thread.start()
        got = outputs.apply_output(self.store, self.chat_id, path)
        thread.join()
        # Refused when the line came first: it changed the file (or, as the user's edit,
        # overlaps the model's change).
        if isinstance(got, Problem) and got.kind not in ("changed", "conflict"):
            self.violation(f"appender {path}: refused for {got.kind}: {got.message}")
        return not isinstance(got, Problem)

    def op_link_swap(self) -> None:
        """A pull replaces a context file with a link out of the project, then a send: the
        edits are followed and the request built (with the AGENTS.md that links out). The link
        is not read, the other files' edits are followed, and nothing outside is sent."""
        candidates = [p for p in sorted(self.model.entries) if self.model.local.get(p) is not None]
        if not candidates:
            return
        path = self.rng.choice(candidates)
        target = self.root / path
        target.unlink()
        target.symlink_to(self.outside)
        try:
            results = context.follow_edits(self.store, self.chat_id)
            instructions = load_instructions(self.root, {})
            turn = build_turn(
                self.store, self.chat_id, "a request", SendConfig(), instructions=instructions
            )
        finally:
            target.unlink()
            target.write_bytes((self.model.local[path] or "").encode("utf-8"))
        self.requests += 1
        if OUTSIDE.encode("utf-8") in msgspec.json.encode(turn.request):
            self.leaks += 1
            self.violation(f"link swap {path}: the request holds the outside file's text")
        for label, got in results:
            if label == path:
                self.expect_refused(got, "outside_root", f"link swap {path}")
            elif label in PATHS and self.model.local.get(label) is None:
                self.expect_refused(got, "missing", f"follow {label}")
            elif label in PATHS:
                self.updated(label, got, f"follow {label}")
        if path not in {label for label, _ in results}:
            self.violation(f"link swap {path}: the swapped file was not looked at")

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
    print(f"appended lines: {run.appended}, lost: {run.lost_lines}")
    print(f"requests built over a swapped link: {run.requests}, holding outside text: {run.leaks}")
    print(f"invariant violations: {len(run.violations)}")
    for message in run.violations[:20]:
        print(f"  {message}")
    print(f"database size: {size / 1024:.0f} KiB; time: {elapsed:.1f} s")
    return 1 if run.violations else 0


if __name__ == "__main__":
    sys.exit(main())
