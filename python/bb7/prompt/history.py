"""A chat's stored messages as the prompt's history: the one mapping from state records to the
LLM prompt's entries (`bb7.prompt.assemble.HistoryMessage` / `HistoryEvent`).

What the model reads: user, assistant and system texts in order, file events with the prompt's
action names, the project's checks run on the pending changes (their verdicts, the end of a
failing check's output), and before each user message the files it was sent with (a
`HistoryTurn`, where the prompt shows the model what changed in them). Left out: reasoning
(models re-derive it, and resending it only costs tokens) and fork warnings (they concern the
user's copy of a file, and the restored snapshot the model sees is already consistent), and the
messages the user excluded from future requests, with their events (what an answer wrote, too:
the files as they are now reach the model all the same). The files a user message was sent with
stay, excluded or not: they are the chat's context, which the user manages apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal

import msgspec

from bb7.checks.verdict import last_lines, run_of, verdict_of
from bb7.prompt.assemble import (
    ContextFile,
    HistoryCheck,
    HistoryChecks,
    HistoryEntry,
    HistoryEvent,
    HistoryMessage,
    HistoryTurn,
    PendingOutput,
    check_lines,
)
from bb7.prompt.compact import SUMMARY_HEADER
from bb7.prompt.markers import EventAction
from bb7.state.exclusions import summary_places
from bb7.state.records import (
    CheckRun,
    ContextEntry,
    Event,
    EventPart,
    Message,
    OutputRef,
    SnapshotRef,
)
from bb7.state.records import (
    PendingOutput as StoredOutput,
)

# State event actions with the same meaning in the prompt's vocabulary.
_SAME: dict[str, EventAction] = {
    "user_added": "user_added",
    "user_removed": "user_removed",
    "user_updated": "user_updated",
    "user_applied": "user_applied",
    "user_partially_applied": "user_partially_applied",
    "user_discarded": "user_discarded",
    "user_accepted_hunk": "user_accepted_hunk",
    "user_amended_hunk": "user_amended_hunk",
    "user_rejected_hunk": "user_rejected_hunk",
    "user_refused_edit": "user_refused_edit",
    "user_undid_apply": "user_undid_apply",
    "assistant_wrote": "assistant_wrote",
}
# Message roles the model reads as messages (`event` messages carry only events).
_ROLES: dict[str, Literal["user", "assistant", "system"]] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
}


def history_event(event: Event, message: int = 0) -> HistoryEvent | None:
    """The prompt's form of a stored file event; None for events the model does not see."""
    action: EventAction | None
    if event.action == "user_set_readonly":
        # One state action with a flag; two actions in the prompt.
        action = "user_set_readonly" if event.readonly else "user_set_writable"
    else:
        action = _SAME.get(event.action)
    if action is None:
        return None
    return HistoryEvent(
        action=action,
        path=event.path,
        file_id=event.file_id or None,
        prev_file_id=event.prev_file_id or None,
        start_line=event.start_line or None,
        end_line=event.end_line or None,
        reason=event.reason or None,
        diff=event.diff or None,
        message=message,
    )


# What the model reads of a failing check's output: its end, where the failures are summed up.
CHECK_LINES = 60
CHECK_CHARS = 4000


def history_checks(run: CheckRun, message: int = 0) -> HistoryChecks:
    """The prompt's form of a run of the project's checks: every check's verdict, and the end
    of each failing check's output."""
    verdict = verdict_of(run.outcomes)
    return HistoryChecks(
        verdict=verdict.state,
        failed=verdict.failed,
        checks=[
            HistoryCheck(
                name=o.name,
                state=o.state,
                exit_code=o.exit_code,
                message=o.message,
                output=""
                if o.state == "passed"
                else last_lines(o.output, CHECK_LINES, CHECK_CHARS),
            )
            for o in run.outcomes
        ],
        path=run.scope or None,
        message=message,
    )


def unsent_checks(last: Message | None) -> str:
    """For an agent, which is sent the user's message alone: the checks' failures on its
    pending change when their run is the chat's `last` message (nothing was said since), as a
    note to go with the next message; '' when there is none or they passed."""
    run = None if last is None or last.role != "check" else run_of(last)
    if run is None or verdict_of(run.outcomes).state == "passed":
        return ""
    entry = history_checks(run)
    alone = f" ({entry.path} alone)" if entry.path else ""
    head = (
        f"bb7 ran the project's checks on your pending changes{alone}, in a copy of the "
        f"project: {entry.failed} of {len(entry.checks)} did not pass."
    )
    return "\n".join([head, *check_lines(entry.checks)])


def context_file(entry: ContextEntry | SnapshotRef, text: str) -> ContextFile:
    """The prompt's form of a context entry (or of its snapshot in a user message)."""
    facts = entry.facts
    section = facts.sent_as == "section"
    return ContextFile(
        path=entry.path,
        content=text,
        readonly=not facts.writable,
        start_line=entry.start_line if section else None,
        end_line=entry.end_line if section else None,
        external=facts.sent_as == "external",
        file_id=entry.file_id,
        image=facts.sent_as == "image",
    )


def pending_output(output: StoredOutput | OutputRef, text: str) -> PendingOutput:
    """The prompt's form of a pending output (or of its snapshot in a user message)."""
    return PendingOutput(path=output.path, content=text, file_id=output.file_id, added=output.added)


def _summary(message: Message) -> HistoryMessage:
    summary = message.summary()
    assert summary is not None
    text = f"{SUMMARY_HEADER}\n{summary.text}"
    return HistoryMessage(role="system", text=text, message=message.id)


def history(
    messages: Iterable[Message],
    blob: Callable[[str], str] | None = None,
    *,
    keep_excluded: bool = False,
) -> list[HistoryEntry]:
    """Every message's text and events, in order (an `event` message is only its events), but
    those of excluded messages (unless `keep_excluded`: what they would cost); with `blob`
    (which reads a snapshot's text), each user message is preceded by the files it was sent
    with."""
    entries: list[HistoryEntry] = []
    messages = list(messages)
    # A summary is sent where the first message it stands in for was (they are left out).
    summaries = summary_places(messages, excluded=False)
    placed = {summary.id for summary in summaries.values()}
    for message in messages:
        if message.id in summaries:
            entries.append(_summary(summaries[message.id]))
        elif message.id not in placed and message.summary() is not None and not message.excluded:
            entries.append(_summary(message))  # its messages are gone: where it is
        if message.role == "user" and blob is not None:
            entries.append(
                HistoryTurn(
                    files=[context_file(r, blob(r.blob)) for r in message.context_snapshot],
                    outputs=[pending_output(o, blob(o.blob)) for o in message.outputs_snapshot],
                )
            )
        if message.excluded and not keep_excluded:
            continue
        run = run_of(message) if message.role == "check" else None
        if run is not None:
            entries.append(history_checks(run, message.id))
            continue
        role = _ROLES.get(message.role)
        text = message.text()
        if role is not None and text.strip():
            entries.append(HistoryMessage(role=role, text=text, message=message.id))
        # The user's file actions between messages are counted together, as one part.
        owner = 0 if message.role == "event" else message.id
        for part in message.parts:
            if isinstance(part, EventPart):
                event = history_event(part.event, owner)
                if event is not None and blob is not None and event.action == "assistant_wrote":
                    event = msgspec.structs.replace(event, content=blob(part.event.blob))
                if event is not None:
                    entries.append(event)
    return entries
