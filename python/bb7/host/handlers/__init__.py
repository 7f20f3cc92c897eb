"""Every method the host answers, in one table: Lua command -> host request -> core.

One row per method: its name, its argument Struct (`bb7.host.protocol`), its handler, and what
the handler needs (`bb7.host.needs`): `call` (just the host), `project`, `reading` (the active
chat, to read), `held` (the active chat, held by this host) or `held_or_new`. The need is
resolved before the handler runs, and a refusal on the way (no project, no chat, a lease held
elsewhere) is the reply: a handler body is only the core call.

To add a method: write `handler(need, args)` in the module of its area (`project`, `context`,
`outputs`, `chats`, `view`, `send`, `model`, `prompt`), its `*Args` Struct in
`bb7.host.protocol`, and one row below. When the core refuses, `unwrap(value)` raises `Abort`
for its Problem; a route that changes files' statuses calls `project.publish` (or wraps the
change in `project.publishing`).
tests/host/test_host_registry.py checks that every method Lua sends has exactly one route.

Four modules are lazy: `send` (the send loop, `:BB7Paste`, titles), `model` (the models list,
usage, reasoning effort), `prompt` (the next request's estimate and parts, excluding a
message), `checks` (the project's checks; `send` imports it) and `agent` (agent chats: the ACP
client). The first four import the provider client, prompt assembly, the edit formats (~100 ms)
or the checks' runner, so they are imported on first use and warmed up in a background thread
a moment after the host is ready: neither the cold start nor the first requests (`:BB7Chat`)
wait for them; `agent` is imported only when an agent chat is used, in the background as one
opens (`warming`). A lazy route names its module with `lazy(MODULE, name)`; the host's other
modules never import them.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from bb7.host import needs
from bb7.host.handlers import chats, context, health, instructions, outputs, project, review, view
from bb7.host.needs import Call
from bb7.host.protocol import (
    AddPartArgs,
    AddPathsArgs,
    AgentAnswerArgs,
    AgentArgs,
    ApplyArgs,
    BuffersArgs,
    CancelArgs,
    ChatIdArgs,
    ChatViewArgs,
    CheckArgs,
    CheckOutputArgs,
    CompactArgs,
    EchoEventsArgs,
    EditInstructionsArgs,
    FileArgs,
    FileListArgs,
    InitArgs,
    InlineEditArgs,
    MessageArgs,
    ModelsArgs,
    MoveChatArgs,
    NewChatArgs,
    NoArgs,
    OpenArgs,
    PasteArgs,
    PathArgs,
    PinChatArgs,
    PingArgs,
    PromptArgs,
    RenameChatArgs,
    ReviewActArgs,
    SaveDraftArgs,
    SearchChatsArgs,
    SendArgs,
    SetModelArgs,
    SetReadonlyArgs,
    SetReasoningEffortArgs,
    StatusesArgs,
    TakeChatArgs,
)
from bb7.host.registry import Context, Registry
from bb7.host.session import Session

A = TypeVar("A")
N = TypeVar("N", bound=Call)

SEND = "bb7.host.handlers.send"
CHECKS = "bb7.host.handlers.checks"
MODEL = "bb7.host.handlers.model"
PROMPT = "bb7.host.handlers.prompt"
AGENT = "bb7.host.handlers.agent"
# Imported in the background after `ready`, one after the other (see the module docstring).
WARM_UP = (SEND, MODEL, PROMPT)
# Seconds after `ready` before the warm-up starts: an import holds the GIL in bursts, which
# slowed the first requests (open, the chat view) by ~25 ms.
WARM_UP_DELAY = 1.0


@dataclass(frozen=True)
class Route(Generic[N, A]):
    """A method: `handler(needs(ctx, session), args)`. A notification replies with events."""

    name: str
    args_type: type[A]
    handler: Callable[[N, A], object]
    needs: Callable[[Context, Session], N]
    notification: bool = False

    def bind(self, session: Session) -> Callable[[Context, A], object]:
        return lambda ctx, args: self.handler(self.needs(ctx, session), args)


def route(
    name: str,
    args_type: type[A],
    handler: Callable[[N, A], object],
    needs: Callable[[Context, Session], N],
    *,
    notification: bool = False,
) -> Route[Any, Any]:
    return Route(name, args_type, handler, needs, notification)


def lazy(module: str, name: str) -> Callable[[Any, Any], object]:
    """The handler `name` of `module`, imported when first called."""

    def handler(need: Any, args: Any) -> object:
        fn: Callable[[Any, Any], object] = getattr(importlib.import_module(module), name)
        return fn(need, args)

    return handler


def warming(handler: Callable[[N, A], object], module: str) -> Callable[[N, A], object]:
    """`handler`, then `module` imported in the background: the lazy routes that follow it
    (an agent chat's turns) then find it imported."""

    def warm(need: N, args: A) -> object:
        done = handler(need, args)
        if module not in sys.modules:
            need.ctx.spawn(_import, (module,), 0.0, name=f"import {module}")
        return done

    return warm


ROUTES: tuple[Route[Any, Any], ...] = (
    # health
    route("ping", PingArgs, health.ping, needs.call),
    route("echo_events", EchoEventsArgs, health.echo_events, needs.call),
    # the project and its statuses
    route("open", OpenArgs, project.open_project, needs.call),
    route("init", InitArgs, project.init, needs.call),
    route("statuses", StatusesArgs, project.statuses, needs.call),
    # chats
    route("active_chat", NoArgs, chats.active_chat, needs.held_or_new),
    route("new_chat", NewChatArgs, chats.new_chat, needs.project),
    route("set_model", SetModelArgs, chats.set_model, needs.held_or_new),
    route("chat_list", NoArgs, chats.chat_list, needs.project),
    route("switch_chat", ChatIdArgs, chats.switch_chat, needs.project),
    route("take_chat", TakeChatArgs, chats.take_chat, needs.project),
    route("rename_chat", RenameChatArgs, chats.rename_chat, needs.project),
    route("pin_chat", PinChatArgs, chats.pin_chat, needs.project),
    route("delete_chat", ChatIdArgs, chats.delete_chat, needs.project),
    route("search_chats", SearchChatsArgs, chats.search_chats, needs.project),
    route("fork_chat", MessageArgs, chats.fork_chat, needs.held),
    route("edit_message", MessageArgs, chats.edit_message, needs.held),
    route("message_info", MessageArgs, chats.message_info, needs.reading),
    route("chat_info", NoArgs, chats.chat_info, needs.reading),
    route("save_draft", SaveDraftArgs, chats.save_draft, needs.project),
    route("move_chat", MoveChatArgs, chats.move_chat, needs.project),
    route("dismiss_retry", NoArgs, chats.dismiss_retry, needs.held),
    # context
    route("add_paths", AddPathsArgs, context.add_paths, needs.held_or_global),
    route("add_part", AddPartArgs, context.add_part, needs.held_or_new),
    route("paste_image", BuffersArgs, context.paste_image, needs.held_or_global),
    route("remove", FileArgs, context.remove, needs.held),
    route("update_file", FileArgs, context.update_file, needs.held),
    route("update_all", FileListArgs, context.update_all, needs.held),
    route("set_readonly", SetReadonlyArgs, context.set_readonly, needs.held),
    # pending outputs
    route("apply", ApplyArgs, outputs.apply, needs.held),
    route("apply_all", BuffersArgs, outputs.apply_all, needs.held),
    route("discard", PathArgs, outputs.discard, needs.held),
    route("undo_apply", ApplyArgs, outputs.undo_apply, needs.held),
    route("diff", PathArgs, outputs.diff, needs.reading),
    route("finish_merge", PathArgs, outputs.finish_merge, needs.held),
    route("file_diff", FileArgs, outputs.file_diff, needs.reading),
    # the inline review and the editor's merge
    route("review", PathArgs, review.review, needs.held),
    route("review_accept", ReviewActArgs, review.review_accept, needs.held),
    route("review_reject", ReviewActArgs, review.review_reject, needs.held),
    route("merge", PathArgs, review.merge, needs.held),
    # the chat view
    route("chat_view", ChatViewArgs, view.chat_view, needs.call),
    route("file_list", FileListArgs, view.file_list, needs.reading),
    route("project_files", NoArgs, view.project_files, needs.call),
    route("edit_instructions", EditInstructionsArgs, instructions.edit_instructions, needs.call),
    # the model (imported on first use)
    route("send", SendArgs, lazy(SEND, "send"), needs.call, notification=True),
    route("cancel", CancelArgs, lazy(SEND, "cancel"), needs.call, notification=True),
    route("paste", PasteArgs, lazy(SEND, "paste"), needs.held_or_new),
    route("retitle_chat", ChatIdArgs, lazy(SEND, "retitle_chat"), needs.project),
    route("compact", CompactArgs, lazy(SEND, "compact"), needs.held),
    route("inline_edit", InlineEditArgs, lazy(SEND, "inline_edit"), needs.project),
    route("models", ModelsArgs, lazy(MODEL, "models"), needs.call),
    route("usage", NoArgs, lazy(MODEL, "usage"), needs.call),
    route(
        "set_reasoning_effort",
        SetReasoningEffortArgs,
        lazy(MODEL, "set_reasoning_effort"),
        needs.held_or_new,
    ),
    route("estimate", NoArgs, lazy(PROMPT, "estimate"), needs.reading),
    route("prompt_parts", PromptArgs, lazy(PROMPT, "prompt_parts"), needs.reading),
    route("exclude_message", MessageArgs, lazy(PROMPT, "exclude_message"), needs.held),
    # agents (`:BB7Agent`; a turn is a `send` in an agent chat; imported on first use)
    route("agent_chat", AgentArgs, warming(chats.agent_chat, AGENT), needs.project),
    route("agent_answer", AgentAnswerArgs, lazy(AGENT, "agent_answer"), needs.reading),
    # the project's checks (imported on first use)
    route("check", CheckArgs, lazy(CHECKS, "check"), needs.held),
    route("check_output", CheckOutputArgs, lazy(CHECKS, "check_output"), needs.reading),
    route("checks_health", NoArgs, lazy(CHECKS, "checks_health"), needs.call),
)


def _import(modules: tuple[str, ...], delay: float = WARM_UP_DELAY) -> None:
    time.sleep(delay)
    for module in modules:
        importlib.import_module(module)


def _start(session: Session) -> Callable[[Context], None]:
    def start(ctx: Context) -> None:
        # Another bb7 took the held chat over: the editor is told.
        session.post = ctx.post
        session.on_lease_lost = lambda chat_id: chats.lease_lost(needs.call(ctx, session), chat_id)
        ctx.spawn(_import, WARM_UP, name="import the lazy handlers")

    return start


def build_registry(routes: tuple[Route[Any, Any], ...] = ROUTES) -> Registry:
    """A registry serving `routes` for one host (one `Session`)."""
    registry = Registry()
    session = Session()
    registry.at_start(_start(session))
    registry.at_close(session.close)
    for r in routes:
        add = registry.notification if r.notification else registry.request
        add(r.name, r.args_type, r.bind(session))
    return registry
