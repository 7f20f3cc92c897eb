"""Routes that talk to (or stand in for) the model: `send`/`cancel` (the send loop of
`bb7.chat.send`), `:BB7Edit` (`inline_edit`: a send in the project's inline chat), `:BB7Paste`,
asking for a chat's title again and compacting a chat.

A send's events (from its worker threads) go to Lua as they come: `request_started`, then
`chunk`, `reasoning`, `tool_progress`, `block`, `warning`, `retrying`, `repairing` as
`Streamed`, then `diff_error` when its file changes failed, then one `done` (`SendDone`, also
for failures and cancel), maybe a `title`. An inline edit's send also gives `inline_text`, the
text its edits write, decoded while their arguments stream. Lua refreshes the statuses on
`done` with its current buffers. An answer that left pending outputs starts the project's
checks on them (`bb7.host.handlers.checks.after_answer`).

They need the edit formats and the provider client, whose imports cost about 100 ms; the route
table imports this module on first use (see `bb7.host.handlers`) and warms it up in the
background after `ready`, so neither the cold start nor the first call pays for it. Slow work
(HTTP, running a `cmd:` key source) happens in worker threads that answer with events.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from bb7.chat import events as ev
from bb7.chat.compact import compact_chat
from bb7.chat.inline import edit_message, inline_chat, ready_for, selection
from bb7.chat.paste import paste_response
from bb7.chat.send import start_send
from bb7.chat.title import retitle_chat as ask_title
from bb7.checks.verdict import fix_request
from bb7.formats.preview import NewTexts
from bb7.host.handlers.checks import after_answer
from bb7.host.handlers.context import live_texts
from bb7.host.handlers.model import provider
from bb7.host.handlers.project import publish
from bb7.host.handlers.prompt import diff_mode, next_request_config, send_config
from bb7.host.needs import Call, Held, Project, Reading, held_by_another
from bb7.host.protocol import (
    CancelArgs,
    ChatIdArgs,
    CompactArgs,
    DiffError,
    InlineEditArgs,
    InlineText,
    Notify,
    PasteArgs,
    Said,
    SendArgs,
    SendDone,
    convert,
)
from bb7.prompt.turn import build_turn
from bb7.provider.client import OpenAICompatClient
from bb7.provider.keys import KeyProblem, resolve_api_key
from bb7.refusal import Abort, Problem, advise, unwrap
from bb7.state.store import StoreError
from bb7.text.words import plural


def send(c: Call, args: SendArgs) -> None:
    """Start a send in the active chat (a new one if none); the answer comes as events. In
    an agent chat, a turn of its agent (`bb7.host.handlers.agent`). The checks running on the
    pending change stop: the answer changes it."""
    h: Held | None = None
    try:
        h = c.project().held(create=True)
        if args.fix_checks:
            fix = unwrap(advise(fix_request(h.store, h.chat.id), {"no_checks": ":BB7Check"}))
            args = msgspec.structs.replace(args, text=fix)
        h.session.cancel_checks()
        if h.chat.agent:  # the chat's agent answers, not the model
            from bb7.host.handlers.agent import send_turn

            send_turn(h, args)
            return
        config = send_config(h.session, h.chat, args.model)
        buffers = h.buffers(args.buffers).text
        live, unread = live_texts(h, args.editor)
        handle = unwrap(
            start_send(
                h.store,
                h.chat.id,
                args.text,
                config,
                _Forward(h, args.request_id, args.fix_round),
                buffers=buffers,
                live=live,
                live_problems=unread,
            )
        )
    except (Abort, StoreError) as refused:
        # A send that could not start still ends with `done`, so nothing waits for it forever
        # (a StoreError: the chat was taken over after it was checked; nothing was stored).
        if isinstance(refused, Abort):
            problem = refused.problem
        elif refused.kind == "lost" and h is not None:
            problem = held_by_another(h.store, h.chat.id)
        else:
            problem = Problem("unusable_state", str(refused))
        c.emit(
            "done", SendDone(args.request_id, ok=False, kind=problem.kind, message=problem.message)
        )
        raise Abort(problem) from None
    c.session.sends[args.request_id] = handle
    if config.follow_edits != "off":
        # The context followed the user's edits: their `~` goes at once, not at the answer.
        publish(h, buffers)


class _Forward:
    """The send loop's `on_event`: each event to Lua (from the send's worker threads)."""

    def __init__(self, r: Reading, request_id: str, fix_round: int = 0) -> None:
        self.r = r
        self.request_id = request_id
        self.fix_round = fix_round  # the "make the checks pass" round that sent it

    def __call__(self, event: ev.SendEvent) -> None:
        rid, ctx = self.request_id, self.r.ctx
        if isinstance(event, ev.Started):
            ctx.emit("request_started", convert.request_started(rid, event))
        elif isinstance(event, ev.Done | ev.Failed):
            ctx.post(self._forget)
            if isinstance(event, ev.Done) and not event.ok:
                errors = convert.apply_errors(event.errors)
                ctx.emit("diff_error", DiffError(rid, errors, event.retry_saved))
            ctx.emit("done", convert.send_done(rid, event, self.r.editor_path))
            if isinstance(event, ev.Done) and event.ok and event.files:
                ctx.post(after_answer, self.r, self.fix_round)
        else:
            ctx.emit(*convert.streamed(rid, event))

    def _forget(self) -> None:
        self.r.session.send_ended(self.request_id)


def inline_edit(p: Project, args: InlineEditArgs) -> Said:
    """`:BB7Edit`: the lines and the instruction sent in the project's inline chat, made the
    active chat (`bb7.chat.inline`); the answer comes as a send's events, and the text its
    edits write also as `inline_text`. Refused while another answer streams here."""
    if any(not handle.finished for handle in p.session.sends.values()):
        raise Abort(Problem("busy", "an answer is streaming: :BB7Edit once it ends"))
    store = p.ws.project
    if store is None:
        raise Abort(Problem("global", "an inline edit works in a project: :BB7Init starts one"))
    if not args.instruction.strip():
        raise Abort(Problem("empty", "say what to change: :BB7Edit {instruction}"))
    chat = inline_chat(store)
    p.ws.set_active(store, chat.id)
    h = p.hold(store, chat)
    buffers = h.buffers(args.buffers).text
    shown = h.shown(args.path)
    path = h.path(args.path)
    local = buffers.get(path)
    text = None if local is None else local.text
    entry = unwrap(ready_for(store, chat.id, args.path, text, h.session.root))
    start, end = args.start_line, args.end_line
    selected = unwrap(selection(store.blob(entry.blob), start, end, shown))
    message = edit_message(entry.path, start, end, selected, args.instruction)
    config = send_config(h.session, chat, None)
    forward = _InlineForward(h, args.request_id)
    handle = unwrap(start_send(store, chat.id, message, config, forward, buffers=buffers))
    h.session.sends[args.request_id] = handle
    publish(h, buffers)  # the inline chat's statuses replace the chat's before
    where = f"line {start}" if start == end else f"lines {start}-{end}"
    return Said(f"editing {shown} {where} in {chat.name}")


class _InlineForward(_Forward):
    """An inline edit's events: a send's, and the text its edits write (`inline_text`)."""

    def __init__(self, r: Reading, request_id: str) -> None:
        super().__init__(r, request_id)
        self.texts = NewTexts()

    def __call__(self, event: ev.SendEvent) -> None:
        if isinstance(event, ev.Started):
            self.texts = NewTexts()  # a repair's answer writes afresh
        elif isinstance(event, ev.ToolProgress) and event.arguments_delta:
            text = self.texts.feed(event.index, event.arguments_delta)
            if text:
                self.r.ctx.emit("inline_text", InlineText(self.request_id, text))
        super().__call__(event)


def cancel(c: Call, args: CancelArgs) -> None:
    """Stop a streaming send (the given one, else every running one)."""
    sends = c.session.sends
    if args.request_id is not None:
        handles = [sends[args.request_id]] if args.request_id in sends else []
    else:
        handles = list(sends.values())
    if not handles:
        c.emit("notify", Notify("info", "nothing to cancel"))
    for handle in handles:
        handle.cancel()


def paste(h: Held, args: PasteArgs) -> Said:
    buffers = h.buffers(args.buffers).text
    pasted = unwrap(paste_response(h.store, h.chat.id, args.text, diff_mode(h.session), buffers))
    recorded = pasted.recorded
    choosing = [c.path for c in recorded.choices]
    changed = list(dict.fromkeys([o.path for o in recorded.outputs] + choosing))
    publish(h, buffers, [*changed, *recorded.reverted, *pasted.added])
    if not changed:
        return Said("the pasted edits change nothing: every file already has that content")
    added = f"; added to the chat: {', '.join(pasted.added)}" if pasted.added else ""
    places = f"; {plural(len(choosing), 'edit')} to place" if choosing else ""
    how = " (:BB7Review, :BB7Merge)"
    if pasted.refreshed:  # their chat copies were older than the files: edited on the files
        who = "" if pasted.refreshed == changed else f"{', '.join(pasted.refreshed)} "
        how = f" ({who}edited as the file is now)"
    # One short line: a longer message makes Neovim wait for Enter.
    return Said(f"pasted, to review: {', '.join(changed)}{how}{places}{added}")


# Once a title came (or not): the chat list and the view show the chat's name again.
RETITLED = "require('bb7.chat.chats').retitled()"


def retitle_chat(p: Project, args: ChatIdArgs) -> Said:
    """Start naming a chat again after its first message (the `titles.model` option, else
    the chat's model); the outcome comes as a `notify` event and the chat list is redrawn."""
    store, chat = p.find(args.chat_id)
    model = p.session.settings.titles.model or p.session.model(chat, None)

    def ask(client: OpenAICompatClient) -> Notify:
        named = ask_title(store, chat.id, model, client)
        if isinstance(named, Problem):
            return Notify("warn", f"{chat.name}: {named.message}")
        return Notify("info", f"chat title: {named}")

    _in_background(p, "title", ask, lambda problem: Notify("warn", f"{chat.name}: {problem}"))
    return Said(f"asking {model} for a title")


def compact(h: Held, args: CompactArgs) -> Said:
    """`:BB7Compact`: the chat's model summarizes all but the last `args.keep` turns; the
    outcome comes as a `notify` event and the view is drawn again."""
    if args.keep < 0:
        raise Abort(Problem("invalid_args", "keep at least 0 turns"))
    store, chat = h.store, h.chat
    model = h.session.model(chat, None)
    sending, info, instructions = next_request_config(h)

    def tokens() -> int:
        turn = build_turn(store, chat.id, "", sending, model=info, instructions=instructions)
        return turn.prompt.total_tokens

    def ask(client: OpenAICompatClient) -> Notify:
        done = compact_chat(store, chat.id, args.keep, model, client, tokens)
        return Notify("warn", done.message) if isinstance(done, Problem) else Notify("info", done)

    _in_background(h, "compact", ask, lambda problem: Notify("warn", problem))
    return Said(f"asking {model} to summarize all but the last {args.keep} turns")


def _in_background(
    p: Project,
    name: str,
    ask: Callable[[OpenAICompatClient], Notify],
    no_key: Callable[[str], Notify],
) -> None:
    """Run `ask` with a client of the session's provider in a worker thread; what it says
    goes to Lua as a `notify` event, and the chat list and view are drawn again."""
    config = provider(p.session)
    key_spec = p.session.settings.provider.api_key
    root = p.session.root

    def run() -> None:
        key = resolve_api_key(key_spec, config.base_url, cwd=root, preset=config.preset)
        if isinstance(key, KeyProblem):
            note = no_key(key.message)
        else:
            client = OpenAICompatClient(config, key)
            try:
                note = ask(client)
            finally:
                client.close()

        def shown() -> None:
            p.ctx.emit("notify", note)
            p.ctx.lua(RETITLED)

        p.ctx.post(shown)

    p.ctx.spawn(run, name=name)
