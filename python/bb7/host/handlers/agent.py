"""The routes of agent chats' turns: a turn (`send` in an agent chat comes here), the answer to
the agent's question (`agent_answer`); `cancel` finds a turn among the sends. Opening an agent
chat (`:BB7Agent`, `chats.agent_chat`) imports this module in the background.

A turn's events go to Lua as a send's do where they mean the same (`request_started`,
`chunk`, `reasoning`, one `done` at the end, with the files the agent changed on disk so their
buffers reload), and as `agent_tool`, `agent_plan`, `agent_permission` and `agent_notice`
where they do not. The agent reads the editor's unsaved buffers: its reader thread asks the
loop for a buffer's text (`bb7.buffer.unsaved` in Lua) and waits for it.

Imported on first use (the agent client, `bb7.agent`, is not part of the host's start), in the
background when an agent chat opens: the import took the loop ~60 ms.
"""

from __future__ import annotations

import threading
from typing import Any, cast

import msgspec

from bb7.agent import events as ev
from bb7.agent.agents import AgentSpec, Permissions, resolve
from bb7.agent.session import AgentSession
from bb7.chatview.conversation import diff_lines, plan_lines, tool_line
from bb7.host import editor
from bb7.host.handlers.checks import after_answer
from bb7.host.needs import Held, Reading
from bb7.host.protocol import (
    AgentAnswerArgs,
    AgentChoice,
    AgentNotice,
    AgentPermission,
    AgentPlan,
    AgentTool,
    BufferText,
    RequestStarted,
    SendArgs,
    SendDone,
    Streamed,
)
from bb7.host.protocol.events import Chunk, Reasoning
from bb7.refusal import unwrap
from bb7.state.local import LocalText

# Lua that gives a loaded buffer's text when it has unsaved changes (else nil: the disk).
UNSAVED = "return require('bb7.buffer').unsaved(...)"
# Seconds an agent's read waits for the editor to give a buffer's text.
BUFFER_WAIT = 5.0


def send_turn(h: Held, args: SendArgs) -> None:
    """A turn of the active chat's agent (`send` in an agent chat); ends with `done`."""
    agents = h.session.agents
    session = agents.get(h.chat.id)
    relay = _Relay()
    if session is None or session.store is not h.store:
        spec = AgentSpec(h.chat.agent, tuple(_command(h)))
        session = AgentSession(h.store, h.chat.id, spec, relay, buffer_text=_buffer_text(h))
        agents[h.chat.id] = session
    else:
        relay = cast(_Relay, session.on_event)
    session.permissions = _permissions(h)
    relay.forward = _Forward(h, args.request_id, session.spec.name, args.fix_round)
    handle = unwrap(session.start_turn(args.text))
    h.session.sends[args.request_id] = handle


def _command(h: Held) -> list[str]:
    name = h.chat.agent
    commands = h.session.settings.agents.commands
    spec = unwrap(resolve(name, commands or None))
    return list(spec.cmd)


def _permissions(h: Reading) -> Permissions:
    chosen = h.session.settings.agents.permissions
    return cast(Permissions, chosen) if chosen in ("ask", "allow", "reject") else "ask"


def agent_answer(r: Reading, args: AgentAnswerArgs) -> bool:
    """The user's answer to the agent's question; False when it is no longer open."""
    session = r.session.agents.get(r.chat.id)
    return session is not None and session.answer(args.ask_id, args.option_id)


def _buffer_text(h: Held) -> Any:
    """The agent's view of the editor's buffers: from its reader thread, the loop is asked
    for the buffer's unsaved text and the thread waits for it (None: no such buffer, or no
    answer in time, and the disk is read)."""
    ctx, store = h.ctx, h.store

    def text(path: str) -> LocalText | None:
        got: list[Any] = []
        done = threading.Event()

        def look() -> None:
            try:
                got.append(ctx.lua(UNSAVED, editor.editor_path(store, path)))
            finally:
                done.set()

        ctx.post(look)
        if not done.wait(BUFFER_WAIT) or not got or got[0] is None:
            return None
        buffer = msgspec.convert(got[0], BufferText)
        return editor.editor_buffers(store, [buffer]).text.get(path)

    return text


class _Relay:
    """An agent session's `on_event`: to the running turn's forwarder."""

    def __init__(self) -> None:
        self.forward: _Forward | None = None

    def __call__(self, event: ev.AgentEvent) -> None:
        if self.forward is not None:
            self.forward(event)


class _Forward:
    """One turn's events to Lua (from the agent's threads)."""

    def __init__(self, r: Reading, request_id: str, agent: str, fix_round: int = 0) -> None:
        self.r = r
        self.request_id = request_id
        self.agent = agent
        self.fix_round = fix_round  # the "make the checks pass" round that sent it

    def __call__(self, event: ev.AgentEvent) -> None:
        rid, emit = self.request_id, self.r.ctx.emit
        if isinstance(event, ev.Started):
            emit("request_started", RequestStarted(rid, event.chat_id, event.agent))
        elif isinstance(event, ev.Chunk):
            emit("chunk", Streamed(rid, Chunk(event.text)))
        elif isinstance(event, ev.Thought):
            emit("reasoning", Streamed(rid, Reasoning(event.text)))
        elif isinstance(event, ev.Tool):
            line = tool_line(event.kind, event.title, event.status)
            diff = diff_lines(event.diff) if event.diff else []
            emit("agent_tool", AgentTool(rid, event.id, line, diff))
        elif isinstance(event, ev.PlanShown):
            emit("agent_plan", AgentPlan(rid, plan_lines(event.entries)))
        elif isinstance(event, ev.Permission):
            choices = [AgentChoice(c.key, c.option_id, c.name) for c in event.choices]
            emit("agent_permission", AgentPermission(rid, event.ask_id, event.question, choices))
        elif isinstance(event, ev.Notice):
            emit("agent_notice", AgentNotice(rid, event.message))
        elif isinstance(event, ev.Ended):
            self.r.ctx.post(self._forget)
            path = self.r.editor_path
            emit(
                "done",
                SendDone(
                    rid,
                    ok=event.ok,
                    files=[path(p) for p in event.pending],
                    kind=event.kind,
                    message=event.message,
                    applied=[path(p) for p in event.applied],
                ),
            )
            if event.ok and event.pending:
                # The agent's writes are a pending change like a model's answer: checked alike.
                self.r.ctx.post(after_answer, self.r, self.fix_round)

    def _forget(self) -> None:
        self.r.session.send_ended(self.request_id)
