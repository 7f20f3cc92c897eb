"""Running the project's checks on a chat's pending change, for `bb7 check` and the editor host:
the pending outputs as applying would write them, the checks their paths call for, the
throwaway copy, one process per check in turn, and the outcomes as a `CheckRun` (which the
caller keeps with the chat, `bb7.checks.verdict.record`).

The copy is the namespace view where the kernel allows it (tried first, once per process);
when the jail is refused, the copy in the cache directory from then on, where Landlock keeps a
check from writing anywhere but the copy, its TMPDIR and the user's caches. Where the kernel
has neither, checks are not run (each says why in one line) unless the user asks for the copy
unconfined (`BB7_CHECKS_ISOLATION=unconfined`), whose links a check can write through.
"""

from __future__ import annotations

import os
import secrets
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal, cast

import msgspec

from bb7.checks.config import Check, selected
from bb7.checks.jail import landlock_abi
from bb7.checks.process import Cancel, Ended, environment, resolve, run_process
from bb7.checks.throwaway import Isolation, Pending, View, copied, layered
from bb7.checks.verdict import clear_running, fingerprint, mark_running
from bb7.refusal import Problem
from bb7.state.local import Buffers
from bb7.state.outputs import over_local
from bb7.state.records import CheckOutcome, CheckRun, CheckState
from bb7.state.store import Store

# 'copy' makes every check use the copy in the cache directory (a kernel whose namespaces
# misbehave; the tests of the copy); 'namespace' refuses the copy; 'unconfined' uses the copy
# without Landlock (the user's choice where the kernel has none). Unset: the namespace where the
# kernel allows it.
ISOLATION_ENV = "BB7_CHECKS_ISOLATION"
# 'off': act as if the kernel had no Landlock (the tests of a machine without it).
LANDLOCK_ENV = "BB7_CHECKS_LANDLOCK"
UNCONFINED = "not run: no namespace or Landlock here to confine it (:help bb7-checks)"
# The end of a check's output kept with the chat (the float shows it, the model gets less).
STORED_OUTPUT = 64 * 1024

OnOutcome = Callable[[CheckOutcome], None]


class _JailRefused(Exception):
    """The kernel refused the namespace (before any check ran)."""


class _Isolation:
    """Whether this process's checks may use the namespace (learned at the first try)."""

    allowed: bool | None = None
    why: str = ""
    # Whether the jail could confine a check in the copy (None: not tried yet).
    landlock: bool | None = None


def isolation_wanted() -> Isolation | None:
    """The isolation the environment asks for (None: the namespace if the kernel allows)."""
    wanted = os.environ.get(ISOLATION_ENV, "")
    if wanted in ("namespace", "copy", "unconfined"):
        return cast(Isolation, wanted)
    return None


def landlock() -> bool:
    """Whether a check in the copy can be confined here (Landlock, unless `LANDLOCK_ENV`
    says to act as if it were not)."""
    if os.environ.get(LANDLOCK_ENV) == "off":
        return False
    if _Isolation.landlock is None:
        _Isolation.landlock = landlock_abi() > 0
    return _Isolation.landlock


def pending_of(
    store: Store, chat_id: str, root: Path, buffers: Buffers | None = None, scope: str = ""
) -> list[Pending] | Problem:
    """The chat's pending outputs (only `scope`'s when given) as applying them would write
    them: over the user's own edits, with the local file's mode."""
    outputs = [o for o in store.outputs(chat_id) if not scope or o.path == scope]
    if scope and not outputs:
        return Problem("no_output", f"{scope} has no pending output")
    pending: list[Pending] = []
    for output in outputs:
        over = over_local(store, chat_id, output.path, buffers)
        if isinstance(over, Problem):
            return over
        try:
            mode = stat.S_IMODE(os.stat(root / output.path).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
        pending.append(Pending(output.path, over[1].encode("utf-8"), mode))
    return pending


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def outcome_of(check: Check, ended: Ended, paths: Sequence[str]) -> CheckOutcome:
    """A check's outcome from how its process ended (`sh -c`'s 126 and 127: its command
    could not run)."""
    state: CheckState = "error"
    message = ended.message
    if ended.state == "exited":
        state = "passed" if ended.exit_code == 0 else "failed"
        if isinstance(check.run, str) and ended.exit_code in (126, 127):
            lines = [line for line in ended.output.splitlines() if line.strip()]
            state, message = "error", lines[-1].strip() if lines else "command not found"
    elif ended.state == "timed_out":
        state = "timed_out"
    output, dropped = ended.output, ended.dropped
    if len(output) > STORED_OUTPUT:
        cut = output.find("\n", len(output) - STORED_OUTPUT)
        cut = len(output) - STORED_OUTPUT if cut < 0 else cut + 1
        dropped += len(output[:cut].encode("utf-8"))
        output = output[cut:]
    return CheckOutcome(
        name=check.name,
        state=state,
        exit_code=ended.exit_code,
        seconds=round(ended.seconds, 3),
        output=output,
        dropped=dropped,
        message=message,
        files=[p for p in paths if check.applies(p)],
    )


def _run_all(
    checks: Sequence[Check],
    view: View,
    paths: Sequence[str],
    cancel: Cancel,
    base_env: Mapping[str, str],
    on_outcome: OnOutcome | None,
) -> list[CheckOutcome] | None:
    """Each check in turn; None when cancelled. `_JailRefused` when the kernel refused the
    namespace."""
    token = secrets.token_hex(8)
    layer = Path(view.layers[0]) if view.layers else None
    outcomes: list[CheckOutcome] = []
    for check in checks:
        if cancel.cancelled:
            return None
        env = environment(view.cwd, check.name, token, base_env, view.tmp)
        argv = check.argv()
        program = resolve(argv[0], view.cwd, env["PATH"], layer)
        if isinstance(program, Ended):
            ended = program
        else:
            ended = run_process([program, *argv[1:]], view, env, check.timeout, cancel)
        if ended.state == "jail_failed":
            raise _JailRefused(ended.message)
        if ended.state == "cancelled":
            return None
        outcome = outcome_of(check, ended, paths)
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
    return outcomes


def run_checks(
    root: Path,
    checks: Sequence[Check],
    pending: Sequence[Pending],
    cancel: Cancel,
    *,
    on_outcome: OnOutcome | None = None,
    base_env: Mapping[str, str] | None = None,
) -> tuple[list[CheckOutcome], Isolation] | None:
    """Run the checks `pending` calls for on a throwaway copy of `root` with `pending` over
    it; None when cancelled."""
    paths = [p.path for p in pending]
    chosen = selected(checks, paths)
    env = os.environ if base_env is None else base_env
    wanted = isolation_wanted()
    if not sys.platform.startswith("linux"):
        _Isolation.allowed, _Isolation.why = False, f"no user namespaces on {sys.platform}"
    if wanted in (None, "namespace") and _Isolation.allowed is not False:
        try:
            with layered(root, pending) as view:
                done = _run_all(chosen, view, paths, cancel, env, on_outcome)
        except _JailRefused as refused:
            _Isolation.allowed, _Isolation.why = False, str(refused)
        else:
            _Isolation.allowed = True
            return None if done is None else (done, "namespace")
    if wanted == "namespace":
        why = f"{ISOLATION_ENV}=namespace, but the kernel refused it: {_Isolation.why}"
        return _not_run(chosen, why), "namespace"
    confined = wanted != "unconfined"
    if confined and not landlock():
        return _not_run(chosen, UNCONFINED), "copy"
    try:
        with copied(root, pending, confined=confined) as view:
            done = _run_all(chosen, view, paths, cancel, env, on_outcome)
    except _JailRefused as refused:
        _Isolation.landlock = False
        return _not_run(chosen, f"not run: the kernel refused to confine it: {refused}"), "copy"
    return None if done is None else (done, view.isolation)


def _not_run(checks: Sequence[Check], why: str) -> list[CheckOutcome]:
    return [CheckOutcome(name=c.name, state="error", message=why) for c in checks]


def check_chat(
    store: Store,
    chat_id: str,
    root: Path,
    checks: Sequence[Check],
    cancel: Cancel,
    *,
    scope: str = "",
    buffers: Buffers | None = None,
    fix_round: int = 0,
    on_outcome: OnOutcome | None = None,
) -> CheckRun | Problem | None:
    """Run the checks on the chat's pending change (or `scope`'s alone), marked as running
    for other processes meanwhile; None when cancelled."""
    with store.transaction(guarded=False):  # one consistent look at the pending outputs
        pending = pending_of(store, chat_id, root, buffers, scope)
        outputs = [o for o in store.outputs(chat_id) if not scope or o.path == scope]
    if isinstance(pending, Problem):
        return pending
    marker = mark_running(store, chat_id, fingerprint(outputs), scope)
    started = time.monotonic()
    try:
        done = run_checks(root, checks, pending, cancel, on_outcome=on_outcome)
    finally:
        clear_running(store, chat_id, marker)
    if done is None:
        return None
    outcomes, isolation = done
    answer = store.last_message(chat_id, "assistant")
    return CheckRun(
        outcomes=outcomes,
        fingerprint=marker.fingerprint,
        paths=[p.path for p in pending],
        scope=scope,
        answer=0 if answer is None else answer.id,
        seconds=round(time.monotonic() - started, 3),
        isolation=isolation,
        fix_round=fix_round,
    )


class Health(msgspec.Struct, frozen=True):
    """What `:checkhealth bb7` says of the copy: which isolation checks get here (`none`:
    they are not run), and why not the namespace."""

    isolation: Literal[Isolation, "none"]
    why: str = ""


def probe() -> Health:
    """Try the namespace on a scratch project (one `true`, about a twentieth of a second);
    where it is refused, whether Landlock can confine the copy."""
    wanted = isolation_wanted()
    if wanted == "unconfined":
        return Health("unconfined", f"{ISOLATION_ENV}=unconfined")
    health = Health("copy", f"{ISOLATION_ENV}=copy") if wanted == "copy" else _namespace()
    if health.isolation != "copy" or landlock():
        return health
    return Health("none", f"{health.why}; no Landlock either")


def _namespace() -> Health:
    with tempfile.TemporaryDirectory(prefix="bb7-probe-") as scratch:
        root, home = Path(scratch).resolve() / "root", Path(scratch).resolve() / "home"
        root.mkdir()
        with layered(root, [Pending("probe", b"")], home) as view:
            argv = ["/bin/sh", "-c", "test -f probe"]
            env = environment(root, "probe", secrets.token_hex(8), os.environ)
            ended = run_process(argv, view, env, 10.0, Cancel())
    if ended.state == "exited" and ended.exit_code == 0:
        return Health("namespace")
    return Health("copy", ended.message or ended.output.strip() or f"exit {ended.exit_code}")
