"""`bb7 agent (NAME | --cmd 'ARGV...') MESSAGE`: one turn of an agent (over the Agent Client
Protocol) in the project, its file changes held in bb7's sandbox, from the terminal.

The agent is one bb7 knows by name (`:help bb7-agents`: claude, codex, gemini, opencode) or any
ACP command (`--cmd`, split as a shell would, run without one). The turn goes to the active chat
when it is this agent's, else to a new agent chat made active. The agent's answer streams to
stdout as `bb7 chat` prints a model's; its tool calls, plan, refusals and questions go to stderr.
A question before a tool call is asked on the terminal (y, a, n); without one it is rejected,
or allowed once with `--yes`. Then come the files: those it wrote through bb7 are pending
outputs (`bb7 output apply`), those it wrote to disk itself are its applies (`bb7 output diff`
shows one, `bb7 output undo` puts the lines from before the turn back over your later edits).
Exit 0 when the agent ended its turn, 1 when it failed (one line says how; what it wrote stays
pending), 130 when cancelled with Ctrl-C (`session/cancel`).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import Any

from bb7.agent import events as ev
from bb7.agent.agents import AgentSpec, from_command, resolve
from bb7.agent.session import AgentSession
from bb7.chatview.conversation import plan_lines, tool_line
from bb7.commands.session import CtrlC, add_root_option, reported, workspace
from bb7.commands.status import print_statuses
from bb7.refusal import Abort, Problem, unwrap
from bb7.state import lock
from bb7.state.chats import new_chat
from bb7.state.status import file_statuses
from bb7.state.store import Store
from bb7.text.visible import visible

USAGE = (
    "bb7 agent [-h] [--yes] [--show-reasoning] [--no-checks] [--root DIR] "
    "(NAME | --cmd 'ARGV...') MESSAGE"
)


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "agent",
        usage=USAGE,
        description="Send MESSAGE to an agent over the Agent Client Protocol: NAME is one bb7 "
        "knows (claude, codex, gemini, opencode), or --cmd gives the command. Its file changes "
        "become pending outputs, or, for those it writes to disk itself, applies you can "
        "review (`bb7 output diff`) and undo (`bb7 output undo`). Exit 1 when the agent fails, "
        "130 when cancelled with Ctrl-C.",
    )
    parser.add_argument("words", nargs="+", metavar="NAME MESSAGE", help=argparse.SUPPRESS)
    parser.add_argument("--cmd", metavar="'ARGV...'", help="the agent's command, not a NAME")
    parser.add_argument(
        "--yes",
        action="store_true",
        help="allow once what the agent asks before a tool call (default without a terminal: "
        "reject; with one, you are asked)",
    )
    parser.add_argument(
        "--show-reasoning", action="store_true", help="print the agent's thinking to stderr"
    )
    parser.add_argument(
        "--no-checks",
        action="store_true",
        help="do not run the project's checks (.bb7/checks.toml) after a turn that leaves "
        "pending outputs",
    )
    add_root_option(parser)
    parser.set_defaults(func=run)


def _spec(args: argparse.Namespace) -> tuple[AgentSpec, str]:
    words: list[str] = args.words
    if args.cmd is not None:
        if len(words) != 1:
            raise Abort(Problem("invalid_args", "with --cmd, give only MESSAGE"))
        return unwrap(from_command(args.cmd)), words[0]
    if len(words) != 2:
        raise Abort(Problem("invalid_args", "give NAME and MESSAGE (or --cmd 'ARGV...' MESSAGE)"))
    return unwrap(resolve(words[0])), words[1]


@reported
def run(args: argparse.Namespace) -> int:
    spec, message = _spec(args)
    with workspace(args) as ws:
        store = ws.project
        if store is None or store.root is None:
            raise Abort(
                Problem("not_initialized", "an agent works in a project: run `bb7 init` first")
            )
        found = ws.active()
        if found is not None and found[0] is store and found[1].agent == spec.name:
            chat = found[1]
        else:
            chat = new_chat(store, agent=spec.name)
            ws.set_active(store, chat.id)
            print(f"bb7: new chat {chat.id} with {spec.name}", file=sys.stderr)
        keeper = unwrap(lock.keep(store, chat.id))
        try:
            return _turn(store, chat.id, spec, message, args)
        finally:
            keeper.release()


def _turn(store: Store, chat_id: str, spec: AgentSpec, message: str, args: Any) -> int:
    printer = _Printer(show_reasoning=args.show_reasoning, yes=args.yes)
    session = AgentSession(store, chat_id, spec, printer)
    printer.session = session
    try:
        with CtrlC() as ctrl_c:
            ctrl_c.watch(session)
            handle = unwrap(session.start_turn(message))
            ended = handle.wait()
    finally:
        session.close()
    assert ended is not None
    printer.end_text()
    rows = file_statuses(store, chat_id)
    status = {row.path: row.status for row in rows if row.start_line == 0}
    for path in ended.pending:
        print(f"wrote {path} ({status.get(path) or 'unchanged'}): bb7 output apply {path}")
    for path in ended.applied:
        print(f"{spec.name} changed {path} on disk: bb7 output diff {path}, bb7 output undo {path}")
    fresh = store.chat(chat_id)
    if fresh is not None:
        print_statuses(fresh, rows)
    if ended.ok:
        if ended.pending and not args.no_checks:
            from bb7.commands.check import check_answer  # the checks' modules: only now

            check_answer(store, chat_id)
        return 0
    print(f"bb7: {ended.message}", file=sys.stderr)
    return 130 if ended.kind == "cancelled" else 1


class _Printer:
    """Prints a turn's events as they arrive (from the agent's threads)."""

    def __init__(self, *, show_reasoning: bool, yes: bool) -> None:
        self.show_reasoning = show_reasoning
        self.yes = yes
        self.session: AgentSession | None = None
        self.lock = threading.Lock()
        self.at_line_start = True
        self.thinking = False  # thoughts printed last, without their line ended yet
        self.shown: dict[str, str] = {}  # tool call id -> the status last printed

    def __call__(self, event: ev.AgentEvent) -> None:
        with self.lock:
            if self.thinking and not isinstance(event, ev.Thought):
                sys.stderr.write("\n")
                self.thinking = False
            if isinstance(event, ev.Chunk):
                sys.stdout.write(event.text)
                sys.stdout.flush()
                if event.text:
                    self.at_line_start = event.text.endswith("\n")
            elif isinstance(event, ev.Thought) and self.show_reasoning:
                sys.stderr.write(event.text)
                sys.stderr.flush()
                self.thinking = not event.text.endswith("\n")
            elif isinstance(event, ev.Tool):
                if self.shown.get(event.id) != event.status:
                    self.shown[event.id] = event.status
                    self._note(tool_line(event.kind, event.title, event.status))
            elif isinstance(event, ev.PlanShown):
                for line in plan_lines(event.entries):
                    self._note(line)
            elif isinstance(event, ev.Wrote):
                self._note(f"{'new file' if event.added else 'change'} pending: {event.path}")
            elif isinstance(event, ev.Notice):
                self._note(event.message)
            elif isinstance(event, ev.Permission):
                self._ask(event)

    def _ask(self, question: ev.Permission) -> None:
        """The question on the terminal (the agent waits meanwhile); without one, the answer
        `--yes` gives (allow once), else reject."""
        session = self.session
        assert session is not None
        choices = {c.key: c for c in question.choices}
        keys = ", ".join(f"{c.key} {c.name.lower()}" for c in question.choices)
        terminal = _terminal()
        if terminal is None or self.yes:
            kind = "allow_once" if self.yes else "reject_once"
            chosen = next((c for c in question.choices if c.kind == kind), None)
            said = "allowed once (--yes)" if self.yes else "rejected (no terminal; --yes allows)"
            self._note(f"{question.question}: {said}")
            session.answer(question.ask_id, chosen.option_id if chosen else None)
            return
        self._end_line()
        while True:
            # Asked where it is answered: the terminal (stderr may be a pipe or a log).
            typed = _ask_terminal(terminal, f"bb7: {question.question}? [{keys}] ")
            if not typed:
                session.answer(question.ask_id, None)
                return
            if typed in choices:
                session.answer(question.ask_id, choices[typed].option_id)
                return

    def end_text(self) -> None:
        with self.lock:
            self._end_line()

    def _end_line(self) -> None:
        if not self.at_line_start:
            sys.stdout.write("\n")
            self.at_line_start = True
        sys.stdout.flush()

    def _note(self, text: str) -> None:
        self._end_line()
        print(f"bb7: {text}", file=sys.stderr, flush=True)


def _terminal() -> int | None:
    """The terminal to ask on (standard input, when it is one), None when there is none (a
    pipe, CI)."""
    try:
        return sys.stdin.fileno() if sys.stdin.isatty() else None
    except (OSError, ValueError):
        return None


def _ask_terminal(fd: int, prompt: str) -> str:
    """Write `prompt` to the terminal and read one line back ('' at its end). The question
    is the agent's words, written past the command line's `Shown` streams: its control
    characters are made visible here."""
    os.write(fd, visible(prompt).encode("utf-8"))
    line = b""
    while not line.endswith(b"\n"):
        got = os.read(fd, 1)
        if not got:
            break
        line += got
    return line.decode("utf-8", "replace").strip()
