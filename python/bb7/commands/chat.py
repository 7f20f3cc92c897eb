"""`bb7 chat "message"`: one exchange with the model in the active chat, from the terminal.

Streams the answer to stdout as it arrives, then its usage line (tokens, cost, time, as the
chat view shows it) and the chat's file statuses (as `bb7 status` does). Progress, warnings and
errors go to stderr. Exit 0 when the answer arrived and its file changes (if any) are pending
outputs; 1 when the changes failed to apply (the retry context is saved, and the next `bb7 chat`
sends it) or the provider failed; 130 when cancelled with Ctrl-C (the partial answer is kept,
without changes).
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any, cast, get_args

from bb7.chat import events as ev
from bb7.chat.send import start_send
from bb7.chatview.conversation import usage_line
from bb7.checks.verdict import FIX_REQUEST, fix_request
from bb7.commands.session import (
    CtrlC,
    active_chat,
    add_provider_options,
    add_root_option,
    reported,
)
from bb7.commands.status import print_statuses
from bb7.formats.file_requests import AskedFile
from bb7.formats.modes import DEFAULT_MODE, DIFF_MODE_DOCS, DIFF_MODES
from bb7.live import read_all
from bb7.prompt import DEFAULT_MODEL
from bb7.prompt.assemble import FollowEdits
from bb7.prompt.config import SendConfig
from bb7.provider.models import default_cache_dir
from bb7.provider.provider import provider_config
from bb7.provider.wire import ReasoningEffort
from bb7.refusal import advise, unwrap
from bb7.state.chats import save_settings
from bb7.state.status import file_statuses
from bb7.text.words import plural
from bb7.usage.log import usage_log_path

EFFORTS: tuple[str, ...] = get_args(ReasoningEffort)


def register(subparsers: Any) -> None:
    modes = "; ".join(f"{mode}: {doc}" for mode, doc in DIFF_MODE_DOCS.items())
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "chat",
        description="Send MESSAGE in the active chat (a new one if none is active) with its "
        "context files (`bb7 add`), print the answer as it streams and then the file "
        "statuses. File changes become pending outputs (`bb7 output apply`), which the project's "
        "checks (.bb7/checks.toml) then run on. Exit 1 when they "
        "fail to apply (the next `bb7 chat` sends the errors so the model can fix them) or the "
        "provider fails.",
        epilog=f"diff modes: {modes}",
    )
    parser.add_argument("message", nargs="?")
    parser.add_argument(
        "--fix-checks",
        action="store_true",
        help=f'send "{FIX_REQUEST}" after the last check run failed (the next request carries '
        "its failures)",
    )
    parser.add_argument(
        "--no-checks",
        action="store_true",
        help="do not run the project's checks (.bb7/checks.toml) after an answer that leaves "
        "pending outputs",
    )
    parser.add_argument(
        "--model", help=f"model id (default: the chat's model, else {DEFAULT_MODEL})"
    )
    add_provider_options(parser)
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="seconds for the whole answer (default 900; 1200 for a local server)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        metavar="S",
        help="seconds without answer text before giving up (default 180; 300 locally)",
    )
    parser.add_argument(
        "--retries",
        type=int,
        metavar="N",
        help="retries before the first output (default 3; 1 locally)",
    )
    parser.add_argument(
        "--mode", choices=DIFF_MODES, default=DEFAULT_MODE, help="how the model changes files"
    )
    parser.add_argument(
        "--reasoning",
        "--reasoning-effort",
        choices=EFFORTS,
        help="reasoning effort, where the provider takes one (default: the chat's, if any)",
    )
    parser.add_argument(
        "--auto-repair",
        action="store_true",
        help="when the changes fail to apply, ask the model once more right away",
    )
    parser.add_argument(
        "--follow-edits",
        choices=get_args(FollowEdits),
        default="diff",
        help="how your edits to context files since the last message reach the model: as a "
        "diff (default), the whole file, or not at all until `bb7 update`",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="send no prompt-cache breakpoints (sent by default to Anthropic models and to "
        "Gemini through OpenRouter, which cache only what is marked)",
    )
    parser.add_argument("--title-model", metavar="M", help="name a new chat with this model")
    parser.add_argument(
        "--show-reasoning", action="store_true", help="print the model's reasoning to stderr"
    )
    add_root_option(parser)
    parser.set_defaults(func=run)


@reported
def run(args: argparse.Namespace) -> int:
    with active_chat(args, create=True, keep=True) as (_ws, store, chat):
        # Flags given once stick to the chat, as the editor's model picker does.
        model = args.model or chat.model or DEFAULT_MODEL
        saved_effort = chat.reasoning_effort if chat.reasoning_effort in EFFORTS else None
        effort = cast("ReasoningEffort | None", args.reasoning or saved_effort)
        if (model, effort or "") != (chat.model, chat.reasoning_effort):
            unwrap(save_settings(store, chat.id, model=model, reasoning_effort=effort or ""))
        provider = provider_config(
            args.provider,
            args.base_url,
            api=args.api,
            timeout=args.timeout,
            idle_timeout=args.idle_timeout,
            retries=args.retries,
        )
        if isinstance(provider, str):
            print(f"bb7: {provider}", file=sys.stderr)
            return 2
        config = SendConfig(
            model=model,
            provider=provider,
            api_key=args.api_key,
            diff_mode=args.mode,
            reasoning_effort=effort,
            auto_repair=args.auto_repair,
            title_model=args.title_model,
            cache=not args.no_cache,
            follow_edits=args.follow_edits,
            models_cache=str(default_cache_dir()),
            usage_log=str(usage_log_path()),
        )
        message = args.message
        if args.fix_checks:
            message = unwrap(advise(fix_request(store, chat.id), CHECKS_ADVICE))
        elif not (message or "").strip():
            print("bb7: what to send? give a MESSAGE (or --fix-checks)", file=sys.stderr)
            return 2
        printer = _Printer(show_reasoning=args.show_reasoning)
        # The live parts git gives (a diff) are read again; the editor's keep their last text.
        live, unread = read_all(store.entries(chat.id), None, store.root)
        with CtrlC() as ctrl_c:
            sent = start_send(
                store, chat.id, message, config, printer, live=live, live_problems=unread
            )
            handle = ctrl_c.watch(unwrap(sent))
            outcome = handle.wait()
        assert outcome is not None
        printer.end_text()
        # The line the chat view shows under the answer (all the send's requests together); after
        # a failure only when the provider counted tokens (a cancel before any answer has none).
        usage = outcome.usage
        line = usage_line(usage) if usage is not None else ""
        if line and (isinstance(outcome, ev.Done) or (usage and usage.prompt_tokens)):
            print(line)
        if isinstance(outcome, ev.Failed):
            # The core names the setting; here it is the flag that sets it.
            advice = " bb7 chat --api-key sets it for one run." if outcome.kind == "auth" else ""
            print(f"bb7: {outcome.message}{advice}", file=sys.stderr)
            return 130 if outcome.kind == "cancelled" else 1
        statuses = file_statuses(store, chat.id)
        status = {row.path: row.status for row in statuses if row.start_line == 0}
        for written in outcome.files:
            print(f"wrote {written.path} ({status.get(written.path) or 'unchanged'})")
            if written.choose:
                # One line per file: how many edits wait, and the command that lists them.
                edits = "an edit matches" if written.choose == 1 else "edits match"
                print(f"  {edits} several places: `bb7 output choose {written.path}` lists them")
        fresh = store.chat(chat.id) or chat
        print_statuses(fresh, statuses)
        _print_requested(outcome.requested, outcome.why)
        if outcome.ok:
            if outcome.files and not args.no_checks:
                from bb7.commands.check import check_answer  # the checks' modules: only now

                check_answer(store, chat.id)
            return 0
        print(
            "bb7: the answer's file changes could not be applied; nothing was changed:",
            file=sys.stderr,
        )
        for error in outcome.errors:
            where = f"{error.path}: " if error.path else ""
            print(f"  - {where}{error.message}", file=sys.stderr)
        print(
            "bb7: the retry context is saved in the chat; the next `bb7 chat` sends it so the "
            "model can fix them.",
            file=sys.stderr,
        )
        return 1


def _print_requested(requested: list[AskedFile], why: str) -> None:
    """The files the answer asks for, as the chat view lists them under it."""
    if not requested:
        return
    print(f"the answer asks for files{f' ({why})' if why else ''}; bb7 add them, then send again:")
    for asked in requested:
        where = f":{asked.start_line}-{asked.end_line}" if asked.start_line else ""
        state = f"[{asked.tokens}]" if asked.available else f"not available: {asked.reason}"
        print(f"    {asked.path}{where}  {state}")


CHECKS_ADVICE = {"no_checks": "`bb7 check` runs them"}


class _Printer:
    """Prints events as they arrive (from the send's worker threads)."""

    def __init__(self, *, show_reasoning: bool) -> None:
        self.show_reasoning = show_reasoning
        self.lock = threading.Lock()
        self.at_line_start = True
        self.reasoning = False  # reasoning printed last, without its line ended yet
        self.tools: set[tuple[int, str]] = set()

    def __call__(self, event: ev.SendEvent) -> None:
        with self.lock:
            if self.reasoning and not isinstance(event, ev.Reasoning):
                sys.stderr.write("\n")
                self.reasoning = False
            if isinstance(event, ev.Chunk):
                sys.stdout.write(event.text)
                sys.stdout.flush()
                if event.text:
                    self.at_line_start = event.text.endswith("\n")
            elif isinstance(event, ev.Reasoning) and self.show_reasoning:
                sys.stderr.write(event.text)
                sys.stderr.flush()
                self.reasoning = True
            elif isinstance(event, ev.ToolProgress) and event.path:
                if (event.index, event.path) not in self.tools:
                    self.tools.add((event.index, event.path))
                    self._note(f"{event.name} {event.path}")
            elif isinstance(event, ev.BlockStatus) and not event.ok:
                self._note(event.message)
            elif isinstance(event, ev.Notice):
                self._note(f"warning: {event.message}")
            elif isinstance(event, ev.Retrying):
                self._note(f"retrying in {event.delay:.1f} s: {event.reason}")
            elif isinstance(event, ev.Repairing):
                failed = plural(len(event.errors), "change")
                self._note(f"{failed} failed; asking the model to repair them")
            elif isinstance(event, ev.TitleChanged):
                self._note(f"chat named {event.title!r}")

    def end_text(self) -> None:
        with self.lock:
            if not self.at_line_start:
                sys.stdout.write("\n")
                self.at_line_start = True
            sys.stdout.flush()

    def _note(self, text: str) -> None:
        # A notice may be its point on the first line and why on the next (an editor shows the
        # first); a terminal gets both on one line.
        point, *why = text.strip().splitlines() or [""]
        line = f"{point} ({' '.join(' '.join(why).split())})" if why else point
        sys.stdout.flush()
        print(f"bb7: {line}", file=sys.stderr, flush=True)
