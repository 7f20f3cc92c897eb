"""A chat's stored messages as the lines of the chat view's conversation buffer (markdown).

Each user and assistant message opens with a `## You` / `## Assistant · model` heading; the
model's reasoning is a block quote that Lua folds; file events are one line each
(`Assistant modified: src/x.py`); system messages (errors, an aborted answer) are marked lines;
a run of the project's checks is its verdict under the answer it checked.
Alongside the lines come whole-line highlight groups, the reasoning folds and an anchor per
message (for fork and edit from the message under the cursor). A message the user excluded
from future requests says so in its heading (`## You · excluded`), its lines drawn dimmed.
After an answer whose edits failed, a retry banner closes the conversation until the next
send. While an answer streams, `lua/bb7/chat/conversation.lua` appends text in these same
shapes; when it ends, the chat is rendered here again. Not for the model's prompt (that is
`bb7.prompt.history`).
"""

from __future__ import annotations

import math
import time

import msgspec

from bb7.checks.verdict import run_of, verdict_of
from bb7.state.exclusions import summary_places
from bb7.state.records import (
    CheckRun,
    Event,
    EventPart,
    Message,
    PlanItem,
    PlanPart,
    ReasoningPart,
    TextPart,
    ToolPart,
    Usage,
)
from bb7.text.lines import split_lines
from bb7.text.tokens import format_tokens
from bb7.text.words import plural

USER_HEADING = "## You"
ASSISTANT_HEADING = "## Assistant"
REASONING_TITLE = "> **Reasoning**"
QUOTE = "> "
SYSTEM_MARK = "⚠ "

# Highlight groups (lua/bb7/highlight.lua defines them).
HL_USER = "BB7ChatUser"
HL_ASSISTANT = "BB7ChatAssistant"
HL_REASONING = "BB7ChatReasoning"
HL_EVENT = "BB7ChatEvent"
HL_WARNING = "BB7ChatWarning"
HL_ERROR = "BB7ChatError"
HL_RETRY = "BB7RetryBanner"
HL_USAGE = "BB7ChatStatus"
HL_EXCLUDED = "BB7Excluded"
HL_TOOL = "BB7ChatTool"
HL_CHECK_PASSED = "BB7CheckPassed"
HL_CHECK_FAILED = "BB7CheckFailed"

# The heading's mark of a message left out of future requests (readable without colour).
EXCLUDED_MARK = " · excluded"

# A system note longer than this many lines shows its first line and folds the rest.
FOLD_AFTER = 6
# A tool call's diff longer than this many lines is folded under its line.
DIFF_FOLD_AFTER = 12
DIFF_FENCE = "```diff"

# The mark of an agent's tool call by its status: readable without colour (the word follows).
TOOL_MARKS = {"pending": "○", "in_progress": "◐", "completed": "✓", "failed": "✗"}
# A plan entry's box by its status (a markdown checklist).
PLAN_BOXES = {"completed": "[x]", "in_progress": "[~]"}

RETRY_BANNER = [
    "⚠ The last answer's file changes failed to apply.",
    "  Your next message asks the model to repair them.",
]

# What each file event says, by state action (`bb7.state.records.Event.action`).
EVENT_TEXT = {
    "user_added": "Context added",
    "user_removed": "Context removed",
    "user_updated": "Context updated",
    "user_applied": "Applied",
    "user_partially_applied": "Partially applied",
    "user_discarded": "Discarded",
    "user_undid_apply": "Apply undone",
    "user_accepted_hunk": "Hunk taken",
    "user_amended_hunk": "Hunk amended and taken",
    "user_rejected_hunk": "Hunk rejected",
    "user_refused_edit": "Edit refused (it matched several places)",
    "fork_warning_modified": "Changed since this message was sent",
    "fork_warning_deleted": "Deleted since this message was sent",
}


class Anchor(msgspec.Struct, frozen=True, array_like=True):
    """Where a message starts: its heading line (1-based), id and role."""

    line: int
    message_id: int
    role: str


class Rendered(msgspec.Struct, frozen=True):
    """The conversation buffer's content. `highlights`: (0-based line, group) pairs for whole
    lines; `folds`: (first, last) 1-based lines of each reasoning block and of the details of
    a long note; `excluded`: (first, last) 1-based lines of each message left out of future
    requests, drawn dimmed; `usage`: the chat's totals for the window bar (tokens, cost), ''
    before any answer. The heading and quote shapes travel along so Lua streams in the same
    shapes."""

    lines: list[str]
    highlights: list[tuple[int, str]]
    folds: list[tuple[int, int]]
    anchors: list[Anchor]
    usage: str = ""
    excluded: list[tuple[int, int]] = []
    user_heading: str = USER_HEADING
    assistant_heading: str = ASSISTANT_HEADING
    reasoning_title: str = REASONING_TITLE
    quote: str = QUOTE


def assistant_heading(model: str) -> str:
    return f"{ASSISTANT_HEADING} · {model}" if model else ASSISTANT_HEADING


def tool_line(kind: str, title: str, status: str) -> str:
    """An agent's tool call as one line: `✓ edit · src/x.py · completed`."""
    mark = TOOL_MARKS.get(status, "•")
    return f"{mark} {kind} · {title} · {status.replace('_', ' ')}"


def plan_lines(entries: list[PlanItem]) -> list[str]:
    """An agent's plan as a checklist: `- [x] done`, `- [~] doing`, `- [ ] to do`."""
    return ["Plan:"] + [f"- {PLAN_BOXES.get(e.status, '[ ]')} {e.content}" for e in entries]


def diff_lines(diff: str) -> list[str]:
    """A tool call's unified diff as a fenced block (drawn with the diff colours)."""
    return [DIFF_FENCE, *split_lines(diff.rstrip("\n")), "```"]


def event_line(event: Event) -> str:
    """One file event as the user reads it, e.g. `Assistant modified: src/x.py`."""
    label = event.path
    if event.start_line:
        label += f":{event.start_line}-{event.end_line}"
    if event.action == "assistant_wrote":
        return f"Assistant {'added' if event.added else 'modified'}: {label}"
    if event.action == "agent_wrote_disk":
        done = "created" if event.added else "changed"
        return f"Agent {done} on disk: {label} (:BB7Review, :BB7UndoApply)"
    if event.action == "agent_deleted_disk":
        return f"Agent deleted on disk: {label} (pending again: apply restores it)"
    if event.action == "user_set_readonly":
        return f"{'Set read-only' if event.readonly else 'Set writable'}: {label}"
    if event.action == "user_updated" and event.followed:
        return f"Your edits sent to the model: {label}"
    text = EVENT_TEXT.get(event.action, event.action.replace("_", " ").capitalize())
    if event.action == "user_added" and event.readonly:
        text += " (read-only)"
    if event.reason:
        return f"{text}: {label} ({event.reason})"
    return f"{text}: {label}"


class _Writer:
    """Accumulates lines with their highlights, blocks separated by one blank line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.highlights: list[tuple[int, str]] = []
        self.folds: list[tuple[int, int]] = []
        self.anchors: list[Anchor] = []
        self.excluded: list[tuple[int, int]] = []

    def block(self, lines: list[str], group: str | None = None) -> tuple[int, int]:
        """Append `lines` after a blank separator; returns their 1-based (first, last)."""
        if self.lines:
            self.lines.append("")
        first = len(self.lines) + 1
        for line in lines:
            if group is not None:
                self.highlights.append((len(self.lines), group))
            self.lines.append(line)
        return first, len(self.lines)

    def rendered(self, usage: str = "") -> Rendered:
        return Rendered(self.lines, self.highlights, self.folds, self.anchors, usage, self.excluded)


def _text_lines(text: str) -> list[str]:
    """A block's lines without the blank lines around it (at least one line)."""
    return split_lines(text.strip("\n")) or [""]


def reasoning_lines(text: str) -> list[str]:
    """A reasoning block: a title, then every line quoted (how Lua streams it too)."""
    return [REASONING_TITLE] + [QUOTE + line for line in _text_lines(text)]


def format_cost(cost: float) -> str:
    """Dollars as users skim them: $1.24, $0.50, $0.0031, $0.000064 (never `6.4e-05`)."""
    if cost <= 0:
        return "$0"
    if cost >= 0.1:
        return f"${cost:.2f}"
    if cost < 0.000001:
        return "<$0.000001"
    # Two significant digits, written out.
    decimals = min(8, 1 - math.floor(math.log10(cost)))
    return f"${cost:.{decimals}f}"


def usage_line(usage: Usage) -> str:
    """The quiet line under an answer: tokens in (read from and written to the provider's
    cache) and out, cost (and what the cache saved), duration (and the wait for the first
    token), e.g.
    `↳ 12k in (9.8k cached) · 350 out · $0.012 (saved $0.026) · 4.1 s (first token 1.2 s)`."""
    parts = _usage_parts(usage)
    return "↳ " + " · ".join(parts) if parts else ""


def usage_lines(usage: Usage, width: int = 0) -> list[str]:
    """`usage_line` broken between its parts to fit `width` columns (0: one line), the lines
    after the first under its text: a pane narrower than the line would otherwise wrap it
    inside a number (Neovim's 'linebreak' breaks after a `.`)."""
    lines: list[str] = []
    for part in _usage_parts(usage):
        if not lines:
            lines.append("↳ " + part)
        elif width and len(lines[-1]) + len(" · " + part) > width:
            lines.append("  " + part)
        else:
            lines[-1] += " · " + part
    return lines


def _usage_parts(usage: Usage) -> list[str]:
    parts = []
    if usage.prompt_tokens or usage.completion_tokens:
        cache = []
        if usage.cached_tokens:
            cache.append(f"{format_tokens(usage.cached_tokens)} cached")
        if usage.cache_write_tokens:
            cache.append(f"{format_tokens(usage.cache_write_tokens)} cache write")
        parts.append(f"{format_tokens(usage.prompt_tokens)} in" + _aside(cache))
        parts.append(f"{format_tokens(usage.completion_tokens)} out")
        parts.append(format_cost(usage.cost) + _aside(_saved(usage.saved)))
    if usage.duration:
        first = [f"first token {usage.first_token:.1f} s"] if usage.first_token else []
        parts.append(f"{usage.duration:.1f} s" + _aside(first))
        if len(parts) == 1:  # so the missing cost reads as the provider's, not bb7's
            parts.append("no token counts from the provider")
    return parts


def _aside(details: list[str]) -> str:
    return f" ({', '.join(details)})" if details else ""


def _saved(saved: float) -> list[str]:
    # Below a hundredth of a cent the saving is noise next to the cost's own rounding.
    return [f"saved {format_cost(saved)}"] if saved >= 0.0001 else []


def total_usage(messages: list[Message]) -> str:
    """The chat's totals for the window bar: `12k tokens · $0.031 (saved $0.05)`."""
    used = [m.usage for m in messages if m.usage is not None]
    tokens = sum(u.prompt_tokens + u.completion_tokens for u in used)
    if not tokens:
        return ""
    cost = format_cost(sum(u.cost for u in used))
    return f"{format_tokens(tokens)} tokens · {cost}" + _aside(_saved(sum(u.saved for u in used)))


def _note(out: _Writer, lines: list[str]) -> None:
    """A system note: marked, and its details folded when long."""
    first, last = out.block([SYSTEM_MARK + lines[0], *lines[1:]], HL_ERROR)
    if last - first >= FOLD_AFTER:
        out.folds.append((first + 1, last))


def check_lines(run: CheckRun) -> list[str]:
    """A run of the project's checks under the answer it checked: the verdict in one line,
    then each check that did not pass and why, e.g.
    `✗ checks failed 1 of 2 (lint passed) · 2.1 s` and `  ✗ tests (exit 1)`."""
    verdict = verdict_of(run.outcomes)
    passed = [o.name for o in run.outcomes if o.state == "passed"]
    where = f" on {run.scope}" if run.scope else ""
    round_ = f" · fix round {run.fix_round}" if run.fix_round else ""
    took = f" · {run.seconds:.1f} s"
    if verdict.state == "passed":
        return [f"{verdict.mark()} checks passed{where}: {', '.join(passed)}{took}{round_}"]
    also = f" ({', '.join(passed)} passed)" if passed else ""
    head = f"✗ {verdict.label()} of {verdict.total}{where}{also}{took}{round_}"
    lines = [head]
    for outcome in run.outcomes:
        if outcome.state == "failed":
            lines.append(f"  ✗ {outcome.name} (exit {outcome.exit_code})")
        elif outcome.state != "passed":
            lines.append(f"  ✗ {outcome.name}: {outcome.message}")
    return lines


def _message(out: _Writer, message: Message, width: int) -> None:
    start = len(out.lines) + 1
    run = run_of(message)
    if run is not None:
        passed = verdict_of(run.outcomes).state == "passed"
        first, _ = out.block(check_lines(run), HL_CHECK_PASSED if passed else HL_CHECK_FAILED)
        out.anchors.append(Anchor(first, message.id, message.role))
        if message.excluded:
            out.excluded.append((first, len(out.lines)))
        return
    if message.role in ("user", "assistant"):
        heading = USER_HEADING if message.role == "user" else assistant_heading(message.model)
        if message.excluded:
            heading += EXCLUDED_MARK
        first, _ = out.block([heading], HL_USER if message.role == "user" else HL_ASSISTANT)
        out.anchors.append(Anchor(first, message.id, message.role))
    elif message.summary() is not None:
        _summary(out, message)
        return
    elif message.excluded:
        out.block(["(excluded from future requests)"])
    if any(isinstance(p, ToolPart | PlanPart) for p in message.parts):
        _in_order(out, message)
    else:
        _parts(out, message)
    events = [p.event for p in message.parts if isinstance(p, EventPart)]
    if events:
        warning = [e for e in events if e.action.startswith("fork_warning")]
        plain = [e for e in events if not e.action.startswith("fork_warning")]
        if plain:
            out.block([event_line(e) for e in plain], HL_EVENT)
        if warning:
            out.block([SYSTEM_MARK + event_line(e) for e in warning], HL_WARNING)
    if message.role == "assistant" and message.usage is not None:
        lines = usage_lines(message.usage, width)
        if lines:
            out.block(lines, HL_USAGE)
    if message.excluded and len(out.lines) >= start:
        # The separator above the message is not its own.
        first = start + 1 if start > 1 else start
        out.excluded.append((first, len(out.lines)))


def _summary(out: _Writer, message: Message) -> None:
    """A summary of earlier messages (`:BB7Compact`), as one block under its heading; `gX` on
    it sends those messages again instead (and the summary is dimmed)."""
    summary = message.summary()
    assert summary is not None
    count = len(summary.covers)
    what = f"## Summary of {count} message{'' if count == 1 else 's'}"
    what += " (left out: gX sends it again)" if message.excluded else " (gX brings them back)"
    first, _ = out.block([what], HL_ASSISTANT)
    out.anchors.append(Anchor(first, message.id, message.role))
    _, last = out.block(_text_lines(summary.text))
    if message.excluded:
        out.excluded.append((first, last))


def _parts(out: _Writer, message: Message) -> None:
    """A model's answer: its reasoning, then its text."""
    reasoning = "".join(p.text for p in message.parts if isinstance(p, ReasoningPart))
    if reasoning.strip():
        out.folds.append(out.block(reasoning_lines(reasoning), HL_REASONING))
    text = message.text()
    if text.strip():
        if message.role == "system":
            _note(out, _text_lines(text))
        else:
            out.block(_text_lines(text))


def _in_order(out: _Writer, message: Message) -> None:
    """An agent's answer, in the order it came: thoughts, text, tool calls (one line each,
    their diffs below) and the plan."""
    for part in message.parts:
        if isinstance(part, ReasoningPart) and part.text.strip():
            out.folds.append(out.block(reasoning_lines(part.text), HL_REASONING))
        elif isinstance(part, TextPart) and part.text.strip():
            out.block(_text_lines(part.text))
        elif isinstance(part, ToolPart):
            out.block([tool_line(part.kind, part.title, part.status)], HL_TOOL)
            if part.diff:
                lines = diff_lines(part.diff)
                out.lines.extend(lines)
                if len(lines) > DIFF_FOLD_AFTER:
                    out.folds.append((len(out.lines) - len(lines) + 1, len(out.lines)))
        elif isinstance(part, PlanPart):
            out.block(plan_lines(part.entries))


# How `bb7.chat.send` notes a send that ended without an answer: an error, or a cancel.
ENDED = ("The request failed: ", "Response cancelled by the user")


def ended_without_answer(messages: list[Message]) -> bool:
    """Whether the last send ended in an error or a cancel (its note is the last message): the
    editor offers to send the message again."""
    if not messages or messages[-1].role != "system":
        return False
    return "".join(p.text for p in messages[-1].parts if isinstance(p, TextPart)).startswith(ENDED)


def started_line(created: float, paths: list[str]) -> str:
    """The conversation's first line (BB-7's header): when the chat started and the context it
    started with (`paths`: of its first message, else what it has now), e.g.
    `Chat started 2026-11-27 14:02 with 3 files: a.py, b.py, c.py` (`K` there says more)."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(created))
    if not paths:
        return f"Chat started {when}, no files in its context yet"
    names = ", ".join(paths[:3]) + (f" (+{len(paths) - 3} more)" if len(paths) > 3 else "")
    return f"Chat started {when} with {plural(len(paths), 'file')}: {names}"


def started_with(messages: list[Message], now: list[str]) -> list[str]:
    """The paths of the context the chat started with: its first message's, else `now`'s."""
    first = next((m for m in messages if m.role == "user"), None)
    if first is None:
        return now
    return list(dict.fromkeys(ref.path for ref in first.context_snapshot))


def render(
    messages: list[Message], *, retry: bool = False, width: int = 0, header: str = ""
) -> Rendered:
    """The whole conversation, oldest message first, under `header` (`started_line`);
    `retry` adds the retry banner. `width`: the pane's, which the usage lines fit (0:
    unknown)."""
    out = _Writer()
    if header:
        out.block([header], HL_USAGE)
    # A summary is drawn where the messages it stands in for are, before them.
    summaries = summary_places(messages)
    placed = {summary.id for summary in summaries.values()}
    for message in messages:
        if message.id in summaries:
            _message(out, summaries[message.id], width)
        if message.id not in placed:
            _message(out, message, width)
    if retry:
        out.block(RETRY_BANNER, HL_RETRY)
    return out.rendered(total_usage(messages))
