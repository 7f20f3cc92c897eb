"""Sending a message in a chat: the send loop that the Neovim host and `bb7 chat` drive.

    handle = start_send(store, chat_id, "Rename parse to parse_all", config, on_event)
    handle.cancel()          # at any moment, from any thread; returns at once
    outcome = handle.wait()  # Done | Failed, blocking (never on the Neovim loop thread)

`start_send` checks the chat, stores the user's message with its context snapshot and returns
a `SendHandle` (`bb7.provider.handle.Handle`) at once (or a `Problem`: no such chat, empty text, a
send already running in that chat). A worker thread does the rest and reports through
`on_event` (`bb7.chat.events`):
1. resolves the API key, reads the instruction files and the (cached) models list for the
   model's tool support, context length and prices;
2. builds the request from the chat (`bb7.prompt.turn`): context, pending outputs, history,
   retry state; warns when the prompt nears the context length and refuses, without sending,
   one over it (`Failed(kind="context_over")`, saying by how much and what is largest);
   streams it, forwarding text, reasoning, tool-call progress and, in text-block mode, each
   block as it closes (`bb7.chat.stream`); prices what it used (`bb7.prompt.pricing`) and adds
   it to the usage log (`bb7.usage.log`, when `config.usage_log` names one);
3. applies every change of the complete answer, all or nothing, to the versions the model was
   shown. Success: the pending outputs and the assistant message (usage, cost) are stored in
   one transaction and the retry state is cleared -> `Done(ok=True)`. Failure: only the
   answer's text is stored, plus the retry state (the retry context and the partial versions of
   the edits that did apply), which the next send offers to the model as the current writable
   versions -> `Done(ok=False)`; with `auto_repair` one more request carrying it is made first
   (`Repairing`). The next successful answer is applied on top of those partial versions and
   stores them too (as the retry context told the model), even if it changes nothing more;
4. provider errors, a missing key, cancel: the user's message stays; what had arrived is
   stored as the assistant message, followed by a system message saying what happened (a
   cancelled answer is marked aborted this way); no change of a partial answer is kept ->
   `Failed`;
5. after a chat's first exchange, while it has its default name, `title_model` names it ->
   `TitleChanged` (`bb7.chat.title`).

`on_event` is called from bb7's worker threads, one event at a time, in order; it should return
quickly (the host hands events to Neovim with `async_call`); an exception it raises is logged
and ignored. The API key is never logged, stored or put into a message. No Neovim here.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import cast, get_args

import msgspec

from bb7.chat import events as ev
from bb7.chat.failures import failure_note
from bb7.chat.stream import Forward
from bb7.chat.title import title_chat
from bb7.chat.waiting import waiting
from bb7.formats.apply import Result, apply_response
from bb7.formats.fallback import NOTE, text_edits
from bb7.formats.file_requests import AskedFile, FileRequest, check_request, read_request
from bb7.formats.response import Response
from bb7.formats.response import ToolCall as ResponseCall
from bb7.formats.retry import retry_context
from bb7.prompt import pricing
from bb7.prompt.config import SendConfig
from bb7.prompt.instructions import Instructions, load_instructions
from bb7.prompt.tool_turn import tool_turn
from bb7.prompt.turn import Turn, build_turn
from bb7.provider import events as llm
from bb7.provider.client import OpenAICompatClient
from bb7.provider.failures import HttpProblem
from bb7.provider.handle import Handle
from bb7.provider.keys import ApiKey, KeyProblem, redact, resolve_api_key
from bb7.provider.models import ModelInfo, load_models
from bb7.provider.wire import ChatRequest
from bb7.refusal import Problem
from bb7.state import context
from bb7.state.chats import append_user_message
from bb7.state.local import Buffers
from bb7.state.records import GLOBAL, Message, ReasoningPart, TextPart, Usage
from bb7.state.responses import Recorded, record_failure, record_outputs
from bb7.state.store import Store, StoreError
from bb7.usage import prompts
from bb7.usage.log import LoggedRequest
from bb7.usage.log import append as append_usage

log = logging.getLogger(__name__)

OnEvent = Callable[[ev.SendEvent], None]
# A running send: its result is the outcome, `Done` or `Failed`.
SendHandle = Handle[ev.Outcome]

# The conversation's note under a tool-mode answer whose edits were read from its text.
FROM_TEXT = f"{NOTE}: the model called no tool"
CANCELLED = "Response cancelled by the user; the partial answer is kept, without file changes."
CANCELLED_EMPTY = "Response cancelled by the user before any answer came."
REPAIR_REQUEST = (
    "bb7: the file changes of your last answer could not be applied. Fix them as the retry "
    "context describes."
)

# Chats with a send running, per database: one send at a time per chat.
_busy: set[tuple[str, str]] = set()
_busy_lock = threading.Lock()


def start_send(
    store: Store,
    chat_id: str,
    text: str,
    config: SendConfig,
    on_event: OnEvent,
    *,
    buffers: Buffers | None = None,
    live: Mapping[str, str] | None = None,
    live_problems: list[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> SendHandle | Problem:
    """Store `text` as the user's message in `chat_id` and send it in a worker thread.

    First the chat's context follows the user's edits (`config.follow_edits`, see
    `bb7.state.context.follow_edits`): `buffers` are the editor's unsaved buffer texts, which
    count as the user's copy. `live`: the chat's live parts read again by the caller (by name;
    `bb7.live`), `live_problems` why others could not be (said as notices). `environ`: where
    key specs and instruction paths are looked up (default: os.environ).
    """
    if not text.strip():
        return Problem("empty", "the message is empty; write something to send")
    if store.chat(chat_id) is None:
        return Problem("no_chat", f"no chat {chat_id}; `bb7 chats list` shows them")
    key = (str(store.path), chat_id)
    with _busy_lock:
        if key in _busy:
            return Problem(
                "busy", f"chat {chat_id} is already waiting for an answer; cancel it or wait"
            )
        _busy.add(key)
    try:
        followed = []
        if config.follow_edits != "off":
            followed = context.follow_edits(store, chat_id, buffers=buffers)
        if live:
            context.follow_parts(store, chat_id, live)
        user = append_user_message(store, chat_id, text, model=config.model)
    except BaseException:
        with _busy_lock:
            _busy.discard(key)
        raise
    handle = SendHandle()
    notices = [
        ev.Notice("follow_edits", _not_followed(label, got))
        for label, got in followed
        if isinstance(got, Problem)
    ]
    notices += [
        ev.Notice("live", f"{said}; the last reading is sent") for said in live_problems or []
    ]
    send = _Send(store, chat_id, user, config, on_event, handle, environ, notices)
    threading.Thread(target=send.run, name="bb7-send", daemon=True).start()
    return handle


def _not_followed(label: str, got: Problem) -> str:
    """Why a context file's current text is not in the request, in one line."""
    if got.message.startswith(label):  # the path itself may no longer be read
        point, _, advice = got.message.partition("; ")
        why = "the model keeps the version it had" + (f"; {advice}" if advice else "")
        return f"{point}: not sent\n{why}"
    return f"{label}: your edits were not sent: {got.message}"


class _Send:
    """One send's life in its worker thread."""

    def __init__(
        self,
        store: Store,
        chat_id: str,
        user: Message,
        config: SendConfig,
        on_event: OnEvent,
        handle: SendHandle,
        environ: Mapping[str, str] | None,
        notices: list[ev.Notice],
    ) -> None:
        self.store = store
        self.notices = notices  # from before the worker started
        self.chat_id = chat_id
        self.user = user
        self.config = config
        self.on_event = on_event
        self.handle = handle
        self.environ = os.environ if environ is None else environ
        self.key: ApiKey | None = None
        self.usage: Usage | None = None  # summed over the send's requests
        self.asked: FileRequest | None = None  # files the last answer asks the user for
        self.effort = ""  # the reasoning effort the last request was sent with

    def run(self) -> None:
        client: OpenAICompatClient | None = None
        outcome: ev.Outcome | None = None
        try:
            try:
                key = resolve_api_key(
                    self.config.api_key,
                    self.config.provider.base_url,
                    environ=self.environ,
                    cwd=self.store.root,
                    preset=self.config.provider.preset,
                )
                if isinstance(key, KeyProblem):
                    outcome = self._failed("auth", key.message)
                else:
                    self.key = key
                    client = OpenAICompatClient(self.config.provider, key)
                    outcome = self._exchange(client)
            except StoreError as exc:  # the database, or the chat's lease, was lost: one line
                outcome = self._failed_with("lost" if exc.kind == "lost" else "store", str(exc), 0)
            except Exception as exc:  # a bug: the user still gets an outcome and their message
                log.exception("send in chat %s failed", self.chat_id)
                detail = redact(f"{type(exc).__name__}: {exc}", self.key)
                outcome = self._failed_with("internal", f"bb7 failed while sending ({detail}).", 0)
            finally:
                with _busy_lock:
                    _busy.discard((str(self.store.path), self.chat_id))
            self._emit(outcome)
            if client is not None and (isinstance(outcome, ev.Done) or outcome.kind == "cancelled"):
                titled = title_chat(
                    self.store, self.chat_id, self.config.title_model, client, self.handle
                )
                if titled is not None:
                    self._emit(titled)
        finally:
            if client is not None:
                client.close()
            self.handle._finish(outcome)

    # -- one exchange -----------------------------------------------------------------------

    def _exchange(self, client: OpenAICompatClient) -> ev.Outcome:
        for notice in self.notices:
            self._emit(notice)
        instructions = load_instructions(
            self.store.root if self.store.scope != GLOBAL else None,
            self.environ,
            self.config.instruction_files,
        )
        for problem in instructions.problems:
            self._emit(ev.Notice("instructions", problem))
        model = self._model_info(client)
        return self._round(
            client, model, instructions, latest=self.user.text(), before_seq=self.user.seq
        )

    def _round(
        self,
        client: OpenAICompatClient,
        model: ModelInfo | None,
        instructions: Instructions,
        *,
        latest: str,
        before_seq: int | None,
        repair: bool = False,
        continued: ChatRequest | None = None,
    ) -> ev.Outcome:
        """One request and what its answer does to the chat; `continued`: a tool turn sent
        instead of the prompt built anew (which still says what the edits apply to)."""
        turn = build_turn(
            self.store,
            self.chat_id,
            latest,
            self.config,
            before_seq=before_seq,
            model=model,
            instructions=instructions,
        )
        if continued is not None:
            turn = dataclasses.replace(turn, request=continued)
        if turn.too_large is not None:
            return self._failed("context_over", turn.too_large, note=turn.too_large)
        if turn.no_images is not None:
            return self._failed("no_images", turn.no_images, note=turn.no_images)
        self._emit(
            ev.Started(
                chat_id=self.chat_id,
                user_message_id=self.user.id,
                model=self.config.model,
                edit_format=turn.edit_format,
                diff_mode=turn.mode,
                prompt_tokens=turn.prompt.total_tokens,
                repair=repair,
            )
        )
        for notice in turn.notices:
            self._emit(notice)
        if not repair and self.config.reasoning_effort and client.preset.reasoning == "none":
            self._emit(
                ev.Notice(
                    "reasoning",
                    f"{client.preset.title} takes no reasoning effort setting; the request goes "
                    "without it.",
                )
            )
        if self.handle.cancelled:
            return self._interrupted(None, None)
        sends_effort = client.preset.reasoning != "none"
        self.effort = (self.config.reasoning_effort or "") if sends_effort else ""
        end = self._stream(client, turn)
        usage = pricing.stored_usage(end.usage, end.duration, model, first_token=end.first_token)
        self.usage = pricing.added(self.usage, usage)
        self._log_usage(usage, end)
        if self.config.prompt_log is not None:
            body = client.wire_body(turn.request)
            kept = prompts.record(
                chat_id=self.chat_id, model=self.config.model, body=body, end=end, key=self.key
            )
            prompts.append(Path(self.config.prompt_log), kept)
        if isinstance(end, llm.StreamError) or self.handle.cancelled:
            return self._interrupted(end, usage)
        reply = _assistant(end, usage, self.config.model, self.effort)
        calls = [(call.name, call.arguments) for call in end.tool_calls]
        self.asked = read_request(end.text, calls) if self.store.root is not None else None
        if turn.edit_format == "none":
            saved = self._store_messages([reply])
            return self._done(True, saved[0], end.text)
        assert self.store.root is not None  # only global chats have none, and they edit nothing
        response, from_text = _response(end, turn)
        result = apply_response(
            turn.files,
            response,
            turn.mode,
            root=self.store.root,
            # Edits read from the text carry no file_id, as in a text mode.
            require_file_id=turn.edit_format == "tools" and not from_text,
            choices=True,
        )
        if self.handle.cancelled:  # cancelled while applying: nothing is committed
            return self._interrupted(end, usage)
        notes = [_system(FROM_TEXT)] if from_text else []
        if result.ok:
            return self._record(turn, result, reply, end.text, repaired=repair, notes=notes)
        return self._edits_failed(
            client,
            model,
            instructions,
            turn,
            result,
            reply,
            end,
            repair=repair,
            notes=notes,
            from_text=from_text,
        )

    def _stream(self, client: OpenAICompatClient, turn: Turn) -> llm.Terminal:
        forward = Forward(self._emit, text_blocks=turn.edit_format == "text_blocks")
        stream = client.stream(turn.request, forward)
        self.handle._stopping(stream.cancel)
        end = stream.wait()
        self.handle._stopping(None)
        assert end is not None
        forward.close()
        return end

    def _record(
        self,
        turn: Turn,
        result: Result,
        reply: Message,
        text: str,
        *,
        repaired: bool,
        notes: list[Message],
    ) -> ev.Outcome:
        contents = dict(turn.partial)
        contents.update({change.path: change.content for change in result.files})
        recorded = record_outputs(
            self.store,
            self.chat_id,
            contents,
            bases=turn.bases,
            message=reply,
            clear_retry=True,
            choices=waiting(result),
        )
        if isinstance(recorded, Problem):
            # The user changed a file meanwhile: the answer is kept, its changes cannot be.
            note = f"The file changes of this answer were not stored: {recorded.message}."
            saved = self._store_messages([reply, *notes, _system(note)])
            return self._failed_with(recorded.kind, recorded.message, saved[0].id)
        if notes:
            self._store_messages(notes)
        return self._done(True, recorded.message, text, recorded=recorded, repaired=repaired)

    def _edits_failed(
        self,
        client: OpenAICompatClient,
        model: ModelInfo | None,
        instructions: Instructions,
        turn: Turn,
        result: Result,
        reply: Message,
        end: llm.Done,
        *,
        repair: bool,
        notes: list[Message],
        from_text: bool,
    ) -> ev.Outcome:
        partial = dict(turn.partial)
        partial.update({change.path: change.content for change in result.partial})
        will_repair = self.config.auto_repair and not repair
        then = (
            "bb7 asks the model to repair them."
            if will_repair
            else "The next message sends the errors so the model can fix them."
        )
        retry = retry_context(result)
        saved = record_failure(
            self.store,
            self.chat_id,
            [reply, *notes, _system(failure_note(result.errors, then))],
            retry_text=retry,
            partial=partial,
            bases=turn.bases,
        )
        if will_repair and not self.handle.cancelled:
            self._emit(ev.Repairing(errors=result.errors))
            # Anthropic's API answers the calls in a tool turn (thinking blocks sent back); the
            # others get the repair prompt built anew from the chat.
            continued = None
            if client.api == "anthropic" and not from_text:
                continued = tool_turn(turn.request, end, result, REPAIR_REQUEST, retry)
            return self._round(
                client,
                model,
                instructions,
                latest=REPAIR_REQUEST,
                before_seq=None,
                repair=True,
                continued=continued,
            )
        return self._done(False, saved[0], end.text, failed=result)

    def _interrupted(self, end: llm.Terminal | None, usage: Usage | None) -> ev.Outcome:
        """A request that ended without a usable answer: keep what arrived, say why."""
        cancelled = self.handle.cancelled or (
            isinstance(end, llm.StreamError) and end.kind == "cancelled"
        )
        partial = end is not None and bool(end.text.strip() or end.reasoning.strip())
        if cancelled:
            kind: ev.FailureKind = "cancelled"
            message = CANCELLED if partial else CANCELLED_EMPTY
        else:
            assert isinstance(end, llm.StreamError)
            kind, message = end.kind, end.message
        messages = []
        if partial:
            assert end is not None
            messages.append(_assistant(end, usage, self.config.model, self.effort))
        messages.append(_system(message if cancelled else f"The request failed: {message}"))
        saved = self._store_messages(messages)
        status = end.status if isinstance(end, llm.StreamError) else None
        partial_id = saved[0].id if len(saved) > 1 else 0  # the partial answer, if one came
        return self._failed_with(kind, message, partial_id, status)

    # -- outcomes ------------------------------------------------------------------------------

    def _done(
        self,
        ok: bool,
        message: Message | None,
        text: str,
        *,
        recorded: Recorded | None = None,
        failed: Result | None = None,
        repaired: bool = False,
    ) -> ev.Done:
        written: list[ev.WrittenFile] = []
        if recorded is not None:
            waiting_on = [c.path for c in recorded.choices]
            paths = sorted({o.path for o in recorded.outputs} | {*recorded.reverted, *waiting_on})
            written = [ev.WrittenFile(path, waiting_on.count(path)) for path in paths]
        return ev.Done(
            chat_id=self.chat_id,
            ok=ok,
            message_id=0 if message is None else message.id,
            text=text,
            files=written,
            errors=[] if failed is None else failed.errors,
            usage=self.usage,
            retry_saved=failed is not None,
            repaired=repaired,
            requested=self._requested(),
            why="" if self.asked is None else self.asked.why,
        )

    def _requested(self) -> list[AskedFile]:
        """The files the answer asks for, as the user can add them now."""
        if self.asked is None or self.store.root is None:
            return []
        return check_request(self.store.root, self.asked)

    def _failed(self, kind: ev.FailureKind, message: str, *, note: str | None = None) -> ev.Failed:
        """A failure before any answer: only a system message records it (`note`, else
        "The request failed: <message>")."""
        self._store_messages([_system(note or f"The request failed: {message}")])
        return self._failed_with(kind, message, 0)

    def _failed_with(
        self, kind: str, message: str, message_id: int, status: int | None = None
    ) -> ev.Failed:
        return ev.Failed(
            chat_id=self.chat_id,
            kind=cast(ev.FailureKind, kind) if kind in _FAILURE_KINDS else "internal",
            message=redact(message, self.key),
            message_id=message_id,
            status=status,
            usage=self.usage,
        )

    # -- helpers -----------------------------------------------------------------------------

    def _log_usage(self, usage: Usage, end: llm.Terminal) -> None:
        """One line in the usage log for a request the provider counted."""
        if self.config.usage_log is None or not (usage.prompt_tokens or usage.cost):
            return
        model = end.model if isinstance(end, llm.Done) and end.model else self.config.model
        entry = LoggedRequest(
            time=datetime.now().astimezone(),
            project="" if self.store.root is None else str(self.store.root),
            chat=self.chat_id,
            model=model,
            usage=usage,
        )
        append_usage(Path(self.config.usage_log), entry)

    def _store_messages(self, messages: list[Message]) -> list[Message]:
        with self.store.transaction():
            return [self.store.append_message(self.chat_id, m) for m in messages]

    def _model_info(self, client: OpenAICompatClient) -> ModelInfo | None:
        if self.config.models_cache is None:
            return None
        models = load_models(client, Path(self.config.models_cache))
        if isinstance(models, HttpProblem):
            self._emit(
                # The point first, in one short line (an editor shows only that); then why.
                ev.Notice(
                    "models",
                    "no models list: tool support and context size unknown\n" + models.message,
                )
            )
            return None
        if models.warning:
            self._emit(ev.Notice("models", models.warning))
        return models.find(self.config.model)

    def _emit(self, event: ev.SendEvent) -> None:
        try:
            self.on_event(event)
        except Exception:
            log.exception("on_event raised for %s", type(event).__name__)


_FAILURE_KINDS = frozenset(get_args(ev.FailureKind))


def _response(end: llm.Done, turn: Turn) -> tuple[Response, bool]:
    """The answer as the formats layer reads it, and whether its edits came from its text
    although tools were offered: tool calls in tool mode (text there is prose), except in an
    answer that called no tool but wrote its edits as text (`bb7.formats.fallback`); the text's
    blocks in text-block mode."""
    calls = tuple(
        ResponseCall(name=call.name, arguments=call.arguments, id=call.id)
        for call in end.tool_calls
    )
    if turn.edit_format == "text_blocks":
        return Response(text=end.text, tool_calls=calls), False
    if not calls:
        files = {path: state.content for path, state in turn.files.items()}
        readonly = [path for path, state in turn.files.items() if not state.writable]
        found = text_edits(end.text, files, readonly)
        if found is not None:
            return found, True
    return Response(tool_calls=calls), False


def _assistant(end: llm.Terminal, usage: Usage | None, model: str, effort: str) -> Message:
    """The answer as stored, with the model that wrote it and the reasoning effort it was
    asked with (on its usage)."""
    parts: list[TextPart | ReasoningPart] = []
    if end.reasoning.strip():
        parts.append(ReasoningPart(end.reasoning))
    if end.text.strip():
        parts.append(TextPart(end.text))
    answered_by = end.model if isinstance(end, llm.Done) and end.model else model
    if usage is not None and effort:
        usage = msgspec.structs.replace(usage, reasoning_effort=effort)
    return Message(role="assistant", parts=list(parts), model=answered_by, usage=usage)


def _system(text: str) -> Message:
    return Message(role="system", parts=[TextPart(text)])
