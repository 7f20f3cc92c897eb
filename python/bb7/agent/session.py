"""One chat's agent: its process (started at the first turn, kept for the next ones) and its
turns, from the user's message to the stored answer.

    session = AgentSession(store, chat_id, spec, on_event)
    handle = session.start_turn("Add a docstring")   # or a Problem (busy, empty)
    handle.cancel()     # `session/cancel`; the turn still ends with `Ended`
    ended = handle.wait()

A turn stores the user's message, starts the agent if it is not running (`bb7.agent.client`),
notes the project's files (`bb7.agent.disk`) and sends the prompt. While the agent works its
updates become events (`bb7.agent.events`), its `fs/*` requests go to the chat's sandbox
(`bb7.agent.files`: a write is a pending output, the disk untouched) and a permission
question is answered by the `permissions` policy or, with `ask`, by `answer()`. When the turn
ends, however it ends, the files the agent changed on disk itself become its applies
(`bb7.state.agent_writes`), and the answer is stored as one assistant message: its text,
thoughts, tool calls and plan in the order they came, the files it wrote, and a system note
when the turn failed. Pending outputs recorded during the turn stay. A failed agent is
stopped; the next turn starts it again.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

import msgspec

from bb7.agent import events as ev
from bb7.agent import schema as acp
from bb7.agent.agents import AgentSpec, Permissions
from bb7.agent.client import INIT_TIMEOUT, AgentClient
from bb7.agent.disk import DiskWatch
from bb7.agent.files import BufferText, FileBridge
from bb7.agent.rpc import Failure
from bb7.prompt.history import unsent_checks
from bb7.provider.handle import Handle
from bb7.refusal import Problem
from bb7.state.agent_writes import record_disk_changes
from bb7.state.chats import append_user_message
from bb7.state.records import (
    Event,
    EventPart,
    Message,
    Part,
    PlanItem,
    PlanPart,
    ReasoningPart,
    TextPart,
    ToolPart,
)
from bb7.state.store import Store
from bb7.text.diff import unified_diff

log = logging.getLogger(__name__)

OnEvent = Callable[[ev.AgentEvent], None]
TurnHandle = Handle[ev.Ended]

# The key that answers a permission question, by the kind of the agent's option.
KEYS = {"allow_once": "y", "allow_always": "a", "reject_once": "n", "reject_always": "N"}
# How each answer is named (short: the question and its keys fit one line); an option of a
# kind not listed keeps the agent's name for it.
LABELS = {
    "allow_once": "allow once",
    "allow_always": "always",
    "reject_once": "reject",
    "reject_always": "never",
}
# What each policy picks, by option kind, in order of preference.
POLICY = {"allow": ("allow_once", "allow_always"), "reject": ("reject_once", "reject_always")}


class _Answer:
    """The agent's answer as it grows, in the order things came."""

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.tools: dict[str, int] = {}  # tool call id -> index in parts
        self.events: list[Event] = []
        self.pending: list[str] = []

    def add_text(self, kind: type[TextPart] | type[ReasoningPart], text: str) -> None:
        last = self.parts[-1] if self.parts else None
        if isinstance(last, kind):
            last.text += text
        else:
            self.parts.append(kind(text))

    def tool(self, part: ToolPart) -> None:
        at = self.tools.get(part.id)
        if at is None:
            self.tools[part.id] = len(self.parts)
            self.parts.append(part)
        else:
            self.parts[at] = part

    def plan(self, part: PlanPart) -> None:
        for i, existing in enumerate(self.parts):
            if isinstance(existing, PlanPart):
                self.parts[i] = part
                return
        self.parts.append(part)

    def current_tool(self, tool_id: str) -> ToolPart | None:
        at = self.tools.get(tool_id)
        part = None if at is None else self.parts[at]
        return part if isinstance(part, ToolPart) else None


class AgentSession:
    """The agent of one chat (of a project store); see the module docstring. Its methods may
    be called from any thread; `on_event` is called from the turn's threads, in order."""

    def __init__(
        self,
        store: Store,
        chat_id: str,
        spec: AgentSpec,
        on_event: OnEvent,
        *,
        buffer_text: BufferText | None = None,
        permissions: Permissions = "ask",
        env: Mapping[str, str] | None = None,
        init_timeout: float = INIT_TIMEOUT,
    ) -> None:
        if store.root is None:
            raise ValueError("an agent works in a project")
        self.store = store
        self.root: Path = store.root
        self.chat_id = chat_id
        self.spec = spec
        self.on_event = on_event
        self.permissions = permissions
        self.env = env
        self.init_timeout = init_timeout
        self.bridge = FileBridge(store, chat_id, buffer_text)
        self.client: AgentClient | None = None
        self._lock = threading.Lock()
        self._turn: TurnHandle | None = None
        self._answer = _Answer()
        self._asks: dict[str, Callable[[str | None], None]] = {}
        self._ask_number = 0

    @property
    def running(self) -> bool:
        return self._turn is not None and not self._turn.finished

    # -- a turn ---------------------------------------------------------------------------------

    def start_turn(self, text: str) -> TurnHandle | Problem:
        """Store `text` as the user's message and run the turn in a worker thread."""
        if not text.strip():
            return Problem("empty", "the message is empty; write something to send")
        with self._lock:
            if self.running:
                return Problem("busy", f"{self.spec.name} is still working; cancel it or wait")
            handle = TurnHandle()
            self._turn = handle
        # The agent keeps its own context: what bb7 learned since (the checks' failures on its
        # change) goes with the message, which is stored as the user wrote it.
        checks = unsent_checks(self.store.last_message(self.chat_id))
        user = append_user_message(self.store, self.chat_id, text, model=self.spec.name)
        sent = f"{text}\n\n{checks}" if checks else text
        threading.Thread(
            target=self._run, args=(handle, user, sent), name="bb7-agent-turn", daemon=True
        ).start()
        return handle

    def _run(self, handle: TurnHandle, user: Message, text: str) -> None:
        self._answer = _Answer()
        ended: ev.Ended | None = None
        try:
            self._emit(ev.Started(self.chat_id, self.spec.name, user.id))
            ended = self._turn_of(handle, text)
        except Exception as exc:  # a bug: the user still gets an end and their message
            log.exception("agent turn in chat %s failed", self.chat_id)
            ended = self._end(ok=False, kind="internal", message=f"bb7 failed: {exc!r}")
        finally:
            if ended is None:
                ended = ev.Ended(self.chat_id, ok=False, kind="internal")
            self._emit(ended)
            handle._finish(ended)

    def _turn_of(self, handle: TurnHandle, text: str) -> ev.Ended:
        client = self.client
        if client is None or not client.connected:
            client = self.client = AgentClient(
                self.spec.cmd, self.root, self, env=self.env, init_timeout=self.init_timeout
            )
            handle._stopping(client.close)
            failed = client.connect()
            handle._stopping(None)
            if failed is not None:
                if handle.cancelled:
                    ended = self._end(ok=False, kind="cancelled", message=CANCELLED)
                else:
                    ended = self._end(ok=False, kind=failed.kind, message=failed.message)
                self.client = None  # the next turn starts the agent again
                return ended
        chat_paths = [e.path for e in self.store.entries(self.chat_id)]
        watch = DiskWatch.look(self.root, chat_paths)
        handle._stopping(client.cancel)
        try:
            answered = client.prompt(text)
        finally:
            handle._stopping(None)
        if isinstance(answered, Failure):
            client.close()
            ended = self._end(ok=False, kind=answered.kind, message=answered.message, watch=watch)
            self.client = None
            return ended
        reason = answered.stop_reason
        if reason == "cancelled":
            stopped = f"{self.spec.name} stopped its turn"
            return self._end(ok=False, kind="cancelled", message=stopped, watch=watch)
        return self._end(ok=True, stop_reason=reason, watch=watch)

    def _end(
        self,
        *,
        ok: bool,
        kind: str = "",
        message: str = "",
        stop_reason: str = "",
        watch: DiskWatch | None = None,
    ) -> ev.Ended:
        """Record what the turn did (the disk's changes, the answer) and say how it ended."""
        answer = self._answer
        self._withdraw_questions()
        notes: list[str] = []
        applied: list[str] = []
        if watch is not None:
            found = watch.changes()
            if found.changes:
                answer.events += record_disk_changes(self.store, self.chat_id, found.changes)
                applied = [c.path for c in found.changes]
            notes = found.notes
            for note in notes:
                self._emit(ev.Notice("disk", note))
        if not ok and not message:
            message = f"{self.spec.name} failed"
        if not ok:  # the editor's :BB7Log has it too, beside the agent's last words
            tail = self.client.peer.stderr_tail if self.client is not None else ()
            log.warning("agent %s: %s (%s)", self.spec.name, message, kind)
            for line in tail:
                log.info("agent %s said: %s", self.spec.name, line)
        parts = [*answer.parts, *(EventPart(e) for e in answer.events)]
        messages: list[Message] = []
        if parts:
            messages.append(Message(role="assistant", parts=parts, model=self.spec.name))
        said = [] if ok else [_failure_note(kind, message)]
        if ok and stop_reason not in ("", "end_turn"):
            said.append(f"{self.spec.name} stopped: {stop_reason.replace('_', ' ')}.")
        said += notes
        if said:
            messages.append(Message(role="system", parts=[TextPart("\n".join(said))]))
        with self.store.transaction():
            stored = [self.store.append_message(self.chat_id, m) for m in messages]
        first = stored[0].id if stored and parts else 0
        return ev.Ended(
            chat_id=self.chat_id,
            ok=ok,
            stop_reason=stop_reason,
            kind=kind,
            message=message,
            message_id=first,
            # What it also wrote to disk itself is its apply now, no longer pending.
            pending=sorted(p for p in set(answer.pending) if self.store.output(self.chat_id, p)),
            applied=applied,
        )

    def cancel(self) -> None:
        """Cancel the running turn, if any (`session/cancel`). An agent that has not ended its
        turn `CANCEL_GRACE` seconds later, or is cancelled again, is stopped."""
        turn = self._turn
        if turn is None or turn.finished:
            return
        if turn.cancelled:
            self._force(turn)
            return
        turn.cancel()
        timer = threading.Timer(CANCEL_GRACE, self._force, args=(turn,))
        timer.daemon = True
        timer.start()

    def _force(self, turn: TurnHandle) -> None:
        client = self.client
        if not turn.finished and client is not None:
            log.info("agent %s did not end its cancelled turn: stopping it", self.spec.name)
            client.close()

    def close(self) -> None:
        """Stop the agent (the chat closes, the editor exits)."""
        self.cancel()
        client, self.client = self.client, None
        if client is not None:
            client.close()

    # -- permission questions ---------------------------------------------------------------------

    def answer(self, ask_id: str, option_id: str | None) -> bool:
        """The user's answer to a question `Permission` asked (None: cancelled); False when
        no such question is open (answered, or the turn ended)."""
        with self._lock:
            give = self._asks.pop(ask_id, None)
        if give is None:
            return False
        give(option_id)
        return True

    def _withdraw_questions(self) -> None:
        with self._lock:
            open_, self._asks = list(self._asks.values()), {}
        for give in open_:
            give(None)

    # -- the client's handler ---------------------------------------------------------------------

    def update(self, kind: str, update: msgspec.Struct) -> None:
        answer = self._answer
        if isinstance(update, acp.ContentChunk):
            text = update.content.text if update.content.type == "text" else ""
            if not text and update.content.type != "text":
                text = f"[{update.content.type}]"
            if kind == "agent_thought_chunk":
                answer.add_text(ReasoningPart, text)
                self._emit(ev.Thought(text))
            else:
                answer.add_text(TextPart, text)
                self._emit(ev.Chunk(text))
        elif isinstance(update, acp.ToolCall):
            part = self._tool(update, answer.current_tool(update.tool_call_id))
            answer.tool(part)
            self._emit(ev.Tool(part.id, part.kind, part.title, part.status, part.diff))
        elif isinstance(update, acp.Plan):
            items = [
                PlanItem(content=e.content, status=e.status, priority=e.priority)
                for e in update.entries
            ]
            answer.plan(PlanPart(items))
            self._emit(ev.PlanShown(items))

    def _tool(self, update: acp.ToolCall, was: ToolPart | None) -> ToolPart:
        """The call as it stands after `update` (a field left out keeps its value)."""
        kind = update.kind or (was.kind if was else "other")
        title = self._shown(update.title) if update.title else (was.title if was else kind)
        status = update.status or (was.status if was else "pending")
        diff = was.diff if was else ""
        diffs = [c for c in update.content or [] if c.type == "diff" and c.new_text is not None]
        if diffs:
            diff = "".join(unified_diff(self._shown(c.path), c.old_text, c.new_text) for c in diffs)
        return ToolPart(id=update.tool_call_id, kind=kind, title=title, status=status, diff=diff)

    def _shown(self, text: str) -> str:
        """A path or a title with the project's root left out."""
        return text.replace(f"{self.root}{os.sep}", "")

    def read(self, request: acp.ReadTextFileRequest) -> str | Problem:
        got = self.bridge.read(request.path, request.line, request.limit)
        if isinstance(got, Problem):
            self._emit(ev.Notice("refused", f"read {self._shown(request.path)}: {got.message}"))
        return got

    def write(self, request: acp.WriteTextFileRequest) -> Problem | None:
        got = self.bridge.write(request.path, request.content)
        if isinstance(got, Problem):
            self._emit(ev.Notice("refused", f"write {self._shown(request.path)}: {got.message}"))
            return got
        self._answer.events += got.events
        self._answer.pending.append(got.path)
        self._emit(ev.Wrote(got.path, got.added))
        return None

    def permission(
        self, request: acp.RequestPermissionRequest, answer: Callable[[str | None], None]
    ) -> None:
        options = request.options
        wanted = POLICY.get(self.permissions)
        if wanted is not None:
            for kind in wanted:
                chosen = next((o for o in options if o.kind == kind), None)
                if chosen is not None:
                    answer(chosen.option_id)
                    return
        choices = [
            ev.Choice(KEYS.get(o.kind, str(i + 1)), o.option_id, LABELS.get(o.kind, o.name), o.kind)
            for i, o in enumerate(options)
        ]
        with self._lock:
            self._ask_number += 1
            ask_id = str(self._ask_number)
            self._asks[ask_id] = answer
        tool = request.tool_call
        what = self._shown(tool.title) if tool.title else (tool.kind or "a tool call")
        kind = f" ({tool.kind})" if tool.kind and tool.title else ""
        question = f"{self.spec.name} asks: {what}{kind}"
        self._emit(ev.Permission(ask_id, question, choices))

    def closed(self, failure: Failure) -> None:
        if failure.kind != "closed" and not self.running:
            log.info("agent %s ended between turns: %s", self.spec.name, failure.message)

    def _emit(self, event: ev.AgentEvent) -> None:
        try:
            self.on_event(event)
        except Exception:
            log.exception("on_event raised for %s", type(event).__name__)


CANCELLED = "cancelled by the user before the agent started"
# Seconds a cancelled agent has to end its turn before bb7 stops it.
CANCEL_GRACE = 10.0


def _failure_note(kind: str, message: str) -> str:
    if kind == "cancelled":
        return f"Turn cancelled: {message}"
    return f"The agent failed: {message}"
