"""The verdict of the checks on a chat's pending change, per chat and per file: computed here
once, from the `check` messages the runs leave in the chat and the marker of a run in progress,
for `bb7 status`, the files panel, the statusline and the conversation.

A verdict belongs to the pending outputs it checked (their `fingerprint`): a new answer, an
apply or a discard changes them, and the verdict is `not_run` again until the next run.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Literal

import msgspec

from bb7.files.fileid import sha256_hex
from bb7.process import identity, running
from bb7.refusal import Problem
from bb7.state.records import CheckOutcome, CheckPart, CheckRun, Message, PendingOutput
from bb7.state.store import Store

# What the user's message says when it asks the model to fix what failed (the failures are the
# history's last `@checks` entry, right before it).
FIX_REQUEST = "Make the checks pass."

VerdictState = Literal["passed", "failed", "running", "timed_out", "not_run", "error"]
RUNNING_KEY = "check_running:"
# How far back the last run of one file's change is looked for.
LOOK_BACK = 20


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    """The checks' verdict on a pending change (of the chat, or of one file): `failed` of
    `total` checks did not pass; `message` is the chat message holding the outcomes."""

    state: VerdictState
    failed: int = 0
    total: int = 0
    message: int = 0

    def word(self) -> str:
        """How `vim.b.bb7_check` says it: `passed`, `failed 2`, `running`, `timed out`, `not
        run`, `could not run`."""
        if self.state == "failed":
            return f"failed {self.failed}"
        return _WORDS[self.state]

    def label(self) -> str:
        """In a sentence: `checks failed 2`."""
        return f"checks {self.word()}"

    def mark(self) -> str:
        """How the statusline and the files panel show it, in a cell or two."""
        return f"✗{self.failed}" if self.state == "failed" else _MARKS[self.state]


_WORDS: dict[VerdictState, str] = {
    "passed": "passed",
    "failed": "failed",
    "running": "running",
    "timed_out": "timed out",
    "not_run": "not run",
    "error": "could not run",
}
_MARKS: dict[VerdictState, str] = {
    "passed": "✓",
    "failed": "✗",
    "running": "…",
    "timed_out": "✗T",
    "not_run": "?",
    "error": "✗!",
}


class Running(msgspec.Struct, frozen=True, kw_only=True):
    """A run in progress, as other processes see it: who runs it, on which outputs."""

    pid: int
    started: str
    fingerprint: str
    scope: str = ""
    since: float = 0.0


class CheckStatus(Verdict, frozen=True, kw_only=True):
    """The verdict of the chat's whole pending change, and of each pending file (a file no
    check covers has none): `bb7 status --json`'s `check`."""

    files: dict[str, Verdict] = {}


def verdict_of(outcomes: Sequence[CheckOutcome], message: int = 0) -> Verdict:
    """Passed when every check passed; else failed (a check failed), timed out (one ran
    past its time, none failed) or error (one could not run, none failed or timed out)."""
    failing = [o for o in outcomes if o.state != "passed"]
    states = {o.state for o in failing}
    state: VerdictState = "passed"
    if "failed" in states:
        state = "failed"
    elif "timed_out" in states:
        state = "timed_out"
    elif states:
        state = "error"
    return Verdict(state=state, failed=len(failing), total=len(outcomes), message=message)


def fingerprint(outputs: Sequence[PendingOutput]) -> str:
    """Which pending outputs, in which versions (their paths and blobs)."""
    ordered = sorted(outputs, key=lambda o: o.path)
    return sha256_hex("".join(f"{o.path}\0{o.blob}\n" for o in ordered))[:16]


def last_lines(text: str, lines: int, chars: int) -> str:
    """The end of a check's output: its last `lines` lines, at most `chars` characters (whole
    lines), after a line saying how many came before."""
    kept = text.rstrip("\n").splitlines()[-lines:]
    while kept and sum(len(line) + 1 for line in kept) > chars:
        kept.pop(0)
    if not kept and text.strip():
        kept = [text.rstrip("\n")[-chars:]]
    left = len(text.rstrip("\n").splitlines()) - len(kept)
    head = [f"[... {left} line{'s' if left > 1 else ''} before]"] if left > 0 else []
    return "\n".join(head + kept)


def _key(chat_id: str) -> str:
    return RUNNING_KEY + chat_id


def mark_running(store: Store, chat_id: str, fingerprint: str, scope: str = "") -> Running:
    marker = Running(
        pid=os.getpid(),
        started=identity(),
        fingerprint=fingerprint,
        scope=scope,
        since=time.time(),
    )
    with store.transaction(guarded=False):
        store.set_setting(_key(chat_id), msgspec.json.encode(marker).decode())
    return marker


def clear_running(store: Store, chat_id: str, marker: Running) -> None:
    """Drop this run's marker (not a newer run's)."""
    with store.transaction(guarded=False):
        if running_of(store, chat_id) == marker:
            store.set_setting(_key(chat_id), None)


def running_of(store: Store, chat_id: str) -> Running | None:
    """The chat's run in progress; None when none, or when its process is gone."""
    raw = store.setting(_key(chat_id))
    if raw is None:
        return None
    try:
        marker = msgspec.json.decode(raw, type=Running)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return marker if running(marker.pid, marker.started) else None


def record(store: Store, chat_id: str, run: CheckRun) -> Message:
    """Keep a finished run with the chat: the conversation shows it under the answer it
    checked, and the next request carries its failures."""
    with store.transaction():
        return store.append_message(chat_id, Message(role="check", parts=[CheckPart(run)]))


def fix_request(store: Store, chat_id: str) -> str | Problem:
    """The message that asks the model to make the checks pass, when the last run of the
    chat's checks did not pass."""
    last = store.last_message(chat_id, "check")
    run = None if last is None else run_of(last)
    if run is None:
        return Problem("no_checks", "no checks have run in this chat yet")
    if verdict_of(run.outcomes).state == "passed":
        return Problem("no_checks", "the last checks passed: there is nothing to fix")
    return FIX_REQUEST


def run_of(message: Message) -> CheckRun | None:
    for part in message.parts:
        if isinstance(part, CheckPart):
            return part.run
    return None


def checks_now(store: Store, chat_id: str) -> CheckStatus | None:
    """The verdicts of the chat's pending outputs as they are now; None when nothing is
    pending. (Whether the project declares checks is the caller's to know.)"""
    outputs = store.outputs(chat_id)
    if not outputs:
        return None
    whole = fingerprint(outputs)
    marker = running_of(store, chat_id)
    runs = [r for m in store.last_messages(chat_id, "check", LOOK_BACK) if (r := _with(m))]
    chat = Verdict(state="not_run")
    if marker is not None and not marker.scope and marker.fingerprint == whole:
        chat = Verdict(state="running")
    else:
        for message_id, run in runs:
            if not run.scope and run.fingerprint == whole:
                chat = verdict_of(run.outcomes, message_id)
                break
    files: dict[str, Verdict] = {}
    for output in outputs:
        verdict = _file_verdict(output, whole, marker, runs, chat)
        if verdict is not None:
            files[output.path] = verdict
    return CheckStatus(
        state=chat.state,
        failed=chat.failed,
        total=chat.total,
        message=chat.message,
        files=files,
    )


def _with(message: Message) -> tuple[int, CheckRun] | None:
    run = run_of(message)
    return None if run is None else (message.id, run)


def _file_verdict(
    output: PendingOutput,
    whole: str,
    marker: Running | None,
    runs: list[tuple[int, CheckRun]],
    chat: Verdict,
) -> Verdict | None:
    """A file's verdict: of the checks that cover it, in the newest run of the whole change
    or of this file's change alone; None when that run had no check for it."""
    alone = fingerprint([output])
    if chat.state == "running" or (
        marker is not None and marker.scope == output.path and marker.fingerprint == alone
    ):
        return Verdict(state="running")
    for message_id, run in runs:
        if (run.scope == "" and run.fingerprint == whole) or (
            run.scope == output.path and run.fingerprint == alone
        ):
            mine = [o for o in run.outcomes if output.path in o.files]
            return verdict_of(mine, message_id) if mine else None
    return Verdict(state="not_run")
