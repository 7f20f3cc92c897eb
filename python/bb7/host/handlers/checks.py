"""Routes of the project's checks: `check` (`:BB7Check`), `check_output` (a run's failures for
the float and the quickfix list) and `checks_health`; and `after_answer`, which the send route
calls when an answer left pending outputs (`checks.on_answer`).

A run never holds the editor: the route answers at once, the checks run in a worker thread one
at a time (a new run, a new answer or an apply cancels the one running), and the host tells Lua
with `check_started` and `check_done`, between which the statuses of the pending files say
`running`. `check_done` carries the next "make the checks pass" round when `checks.auto_fix`
allows one; Lua sends it as the user's send would go.
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from bb7.checks import CHECKS_FILE
from bb7.checks.config import Check, load_checks, on_answer, selected
from bb7.checks.locations import locations
from bb7.checks.process import PROJECT_BINS, Cancel
from bb7.checks.run import check_chat, probe, run_checks
from bb7.checks.verdict import last_lines, record, run_of, verdict_of
from bb7.host.editor import to_lines
from bb7.host.handlers.project import publish
from bb7.host.needs import Call, Held, Reading
from bb7.host.protocol import (
    BufferText,
    CheckArgs,
    CheckDetails,
    CheckDone,
    CheckFound,
    CheckOutputArgs,
    CheckPlace,
    ChecksHealth,
    CheckStarted,
    NoArgs,
    Said,
)
from bb7.host.session import Session
from bb7.refusal import Abort, Problem, unwrap
from bb7.state.local import Buffers
from bb7.state.outputs import over_local
from bb7.state.records import CheckRun
from bb7.text.words import plural

log = logging.getLogger(__name__)

NO_CHECKS = f"no checks declared: write {CHECKS_FILE} (`bb7 check --suggest` prints a start)"
# The end of a failing check's output the float shows (the whole kept output is in the chat).
FLOAT_LINES, FLOAT_CHARS = 400, 64 * 1024
# Lua that gives the host the buffers a request about every file of the chat needs.
BUFFERS = "return require('bb7.buffer').for_request()"


@dataclass
class CheckJob:
    """The run in progress: what it checks, and how to stop it."""

    chat_id: str
    scope: str
    paths: list[str]
    buffers: Buffers
    on_answer: bool = False
    fix_round: int = 0
    cancel: Cancel = field(default_factory=Cancel)


def declared(session: Session) -> list[Check] | Problem:
    """The project's checks with `setup()`'s over them."""
    if session.root is None:
        return []
    return load_checks(session.root, session.settings.checks)


def check(h: Held, args: CheckArgs) -> Said:
    """`:BB7Check [path]`: start the checks on the pending change (that file's alone)."""
    scope = h.path(args.path) if args.path else ""
    return Said(start(h, h.buffers(args.buffers).text, scope=scope))


def start(
    r: Reading, buffers: Buffers, *, scope: str = "", on_answer: bool = False, fix_round: int = 0
) -> str:
    """Start a run in a worker thread (the one running is cancelled); what it checks."""
    checks = unwrap(declared(r.session))
    if not checks:
        raise Abort(Problem("no_checks", NO_CHECKS))
    assert r.store.root is not None  # a global chat has no project to check
    outputs = [o for o in r.store.outputs(r.chat.id) if not scope or o.path == scope]
    if scope and not outputs:
        raise Abort(Problem("no_output", f"{scope} has no pending output"))
    paths = [o.path for o in outputs]
    chosen = selected(checks, paths)
    if not chosen:
        return "no check covers the pending files (their `files` globs)"
    r.session.cancel_checks()
    job = CheckJob(r.chat.id, scope, paths, buffers, on_answer=on_answer, fix_round=fix_round)
    r.session.checking = job
    names = [c.name for c in chosen]
    shown_scope = r.editor_path(scope) if scope else ""
    r.emit("check_started", CheckStarted(r.chat.id, names, len(paths), shown_scope))
    if paths:
        publish(r, buffers, paths)
    r.ctx.spawn(_work, r, job, checks, r.store.root, name="checks")
    what = plural(len(paths), "pending file") if paths else "the project as it is"
    return f"checking {what}: {', '.join(names)}"


def _work(r: Reading, job: CheckJob, checks: list[Check], root: Path) -> None:
    """The run, in its worker thread; then `_finish` on the loop thread."""
    problem = ""
    run: CheckRun | None = None
    message = 0
    try:
        if job.paths:
            checked = check_chat(
                r.store,
                job.chat_id,
                root,
                checks,
                job.cancel,
                scope=job.scope,
                buffers=job.buffers,
                fix_round=job.fix_round,
            )
            if isinstance(checked, Problem):
                problem = checked.message
            elif checked is not None:
                run = checked
                message = record(r.store, job.chat_id, checked).id
        else:
            done = run_checks(root, checks, [], job.cancel)
            run = None if done is None else CheckRun(outcomes=done[0], isolation=done[1])
    except Exception as exc:  # a bug, or a disk that failed: the user gets one line
        log.exception("checks in chat %s failed", job.chat_id)
        problem = f"the checks could not run: {exc}"
    r.ctx.post(_finish, r, job, run, message, problem)


def _finish(r: Reading, job: CheckJob, run: CheckRun | None, message: int, problem: str) -> None:
    session = r.session
    if session.checking is job:
        session.checking = None
    cancelled = run is None and not problem
    done = CheckDone(
        chat_id=job.chat_id,
        scope=r.editor_path(job.scope) if job.scope else "",
        cancelled=cancelled,
        problem=problem,
        fix_round=job.fix_round,
        summary=problem or ("checks cancelled" if cancelled else ""),
    )
    if run is not None:
        verdict = verdict_of(run.outcomes)
        fails = verdict.state in ("failed", "timed_out")
        rounds = session.settings.checks.auto_fix
        more = fails and (job.on_answer or job.fix_round > 0) and job.fix_round < rounds
        done = msgspec.structs.replace(
            done,
            state=verdict.state,
            failed=verdict.failed,
            total=verdict.total,
            message=message,
            summary=summary(run),
            fix_next=job.fix_round + 1 if more and message else 0,
        )
    now = r.active()
    if job.paths and now is not None and now.chat.id == job.chat_id:
        publish(now, job.buffers, job.paths)
    r.emit("check_done", done)


def summary(run: CheckRun) -> str:
    """One line for the user: `checks failed 1 of 2: tests`."""
    verdict = verdict_of(run.outcomes)
    if verdict.state == "passed":
        return f"checks passed ({plural(verdict.total, 'check')})"
    names = ", ".join(o.name for o in run.outcomes if o.state != "passed")
    return f"{verdict.label()} of {verdict.total}: {names}"


def after_answer(r: Reading, fix_round: int) -> None:
    """An answer left pending outputs: the checks run on them, when the project declares
    checks and `checks.on_answer` allows (with the editor's buffers as they are now)."""
    checks = declared(r.session)
    if isinstance(checks, Problem) or not on_answer(r.session.settings.checks, checks):
        return
    try:
        listed = r.ctx.lua(BUFFERS)
    except RuntimeError:  # no Neovim (a host driven by tests over its protocol alone)
        listed = []
    buffers = r.buffers(msgspec.convert(listed or [], list[BufferText])).text
    try:
        start(r, buffers, on_answer=True, fix_round=fix_round)
    except Abort as refused:
        r.emit("check_done", CheckDone(r.chat.id, problem=refused.problem.message))


def check_output(r: Reading, args: CheckOutputArgs) -> CheckDetails:
    """The failures of a run (the chat's last when `message` is 0) for the float, and the
    places its checks printed for the quickfix list, in pending files at their pending text."""
    found = (
        r.store.message(r.chat.id, args.message_id)
        if args.message_id
        else r.store.last_message(r.chat.id, "check")
    )
    run = None if found is None else run_of(found)
    if run is None:
        raise Abort(Problem("no_checks", "no checks have run in this chat yet"))
    verdict = verdict_of(run.outcomes)
    lines: list[str] = []
    places: list[CheckPlace] = []
    pending_now = {o.path for o in r.store.outputs(r.chat.id)}
    root = r.store.root or Path("/")
    for outcome in run.outcomes:
        if outcome.state == "passed":
            continue
        exit_code = f" (exit {outcome.exit_code})" if outcome.state == "failed" else ""
        why = f": {outcome.message}" if outcome.message else ""
        lines.append(f"✗ {outcome.name}{exit_code}{why}")
        tail = last_lines(outcome.output, FLOAT_LINES, FLOAT_CHARS)
        lines.extend("  " + line for line in tail.splitlines())
        lines.append("")
        for place in locations(outcome.output, root, root, pending_now, check=outcome.name):
            places.append(
                CheckPlace(
                    path=r.editor_path(place.path),
                    name=place.path,
                    line=place.line,
                    col=place.col,
                    text=place.text,
                    check=place.check,
                    pending=place.pending,
                )
            )
    if not lines:
        lines = [f"every check passed ({', '.join(o.name for o in run.outcomes)})"]
    pending: dict[str, list[str]] = {}
    for path in sorted({p.name for p in places if p.pending}):
        over = over_local(r.store, r.chat.id, path)
        if not isinstance(over, Problem):
            pending[path] = to_lines(over[1]).lines
    scope = f" of {run.scope}" if run.scope else ""
    title = f"{summary(run)}{scope}" if verdict.state != "passed" else "checks passed"
    if lines[-1] == "":
        lines.pop()
    return CheckDetails(title=title, lines=lines, places=places, pending=pending)


def checks_health(c: Call, _args: NoArgs) -> ChecksHealth:
    """For `:checkhealth bb7`: the declared checks and where their commands are (as a check
    finds them), and how checks are kept from the project on this machine."""
    checks = declared(c.session)
    health = probe()
    if isinstance(checks, Problem):
        return ChecksHealth(problem=checks.message, isolation=health.isolation, why=health.why)
    root = c.session.root or Path.cwd()
    path = os.pathsep.join([str(root / b) for b in PROJECT_BINS] + [os.environ.get("PATH", "")])
    found = [_found(one, root, path) for one in checks]
    return ChecksHealth(checks=found, isolation=health.isolation, why=health.why)


def _found(check: Check, root: Path, path: str) -> CheckFound:
    """Where a check's program is: its argv's first word, or a shell command's first word
    after its variable assignments (`FOO=1 pytest -q`: pytest)."""
    if isinstance(check.run, str):
        shown = check.run
        words = [w for w in check.run.split() if "=" not in w.split("/")[0]]
        program = words[0] if words else "sh"
    else:
        shown, program = " ".join(check.run), check.run[0]
    if "/" in program:
        where = str(root / program) if (root / program).exists() else ""
    else:
        where = shutil.which(program, path=path) or ""
    problem = (
        "" if where else f"`{program}` not found (looked in .venv/bin, node_modules/.bin and PATH)"
    )
    return CheckFound(check.name, shown, where, problem)
