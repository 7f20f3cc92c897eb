"""The host's dispatch: method name -> (argument Struct, function), decoding and replies.

A function is `fn(ctx, args) -> result`: `args` is the decoded Struct, `result` any
msgspec-encodable value. When the user must act, it raises `Abort(problem)`; the reply then
carries the `Problem`. Requests (`vim.rpcrequest`) get the result back in a `Reply`;
notifications (`vim.rpcnotify`, for long work such as `send`) reply through events.
Functions run on pynvim's loop thread and must return in well under 10 ms: slow work goes to
`ctx.spawn`, whose thread talks back through `ctx.emit` (thread-safe). A function may call Lua
and wait for its value with `ctx.lua` (pynvim nests the call inside the request it answers).
This module knows nothing about what the methods do; `bb7.host.handlers` holds the route table.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec

from bb7.host.events import EventSink
from bb7.host.protocol import Notify, Reply
from bb7.refusal import Abort, Problem
from bb7.state.problems import StoreError

logger = logging.getLogger(__name__)

A = TypeVar("A")


class Context:
    """What a handler may use: events to Lua, the loop, worker threads. Never blocks Neovim."""

    def __init__(
        self,
        sink: EventSink,
        post: Callable[..., None],
        lua: Callable[..., Any] | None = None,
    ) -> None:
        self._sink = sink
        self._post = post
        self._lua = lua
        self._loop_thread = threading.current_thread()

    def emit(self, name: str, payload: object = None) -> None:
        """Send an event to Lua (batched); from a worker thread it re-enters the loop first."""
        if threading.current_thread() is self._loop_thread:
            self._sink.emit(name, payload)
        else:
            self._post(self._sink.emit, name, payload)

    def lua(self, code: str, *args: Any) -> Any:
        """Run Lua `code` (with `...` = args) in Neovim and return its value. Loop thread only:
        a handler waits for Neovim, which is waiting for the handler's reply, so the code must
        not wait on anything but itself (no prompts, no `vim.wait`)."""
        if self._lua is None:
            raise RuntimeError("no Neovim attached to this context")
        if threading.current_thread() is not self._loop_thread:
            raise RuntimeError("ctx.lua from a worker thread: use ctx.post to get back first")
        return self._lua(code, *args)

    def post(self, fn: Callable[..., None], *args: Any) -> None:
        """Run `fn(*args)` on the loop thread soon (`nvim.async_call`); safe from any thread."""
        self._post(fn, *args)

    def spawn(self, fn: Callable[..., None], *args: Any, name: str) -> threading.Thread:
        """Run slow work (HTTP, big diffs) in a daemon thread; exceptions are logged."""

        def run() -> None:
            try:
                fn(*args)
            except Exception:
                logger.exception("worker %s failed", name)
                self.emit("notify", Notify("error", f"{name} failed (details in :BB7Log)"))

        thread = threading.Thread(target=run, name=f"bb7-{name}", daemon=True)
        thread.start()
        return thread


@dataclass(frozen=True)
class Route(Generic[A]):
    args_type: type[A]
    fn: Callable[[Context, A], object]


class Registry:
    """Requests and notifications by name, with hooks for the host's start and exit."""

    def __init__(self) -> None:
        self.requests: dict[str, Route[Any]] = {}
        self.notifications: dict[str, Route[Any]] = {}
        self._on_start: list[Callable[[Context], None]] = []
        self._on_close: list[Callable[[], None]] = []

    def at_start(self, fn: Callable[[Context], None]) -> None:
        """Run `fn(ctx)` once the host has announced itself (after `ready`)."""
        self._on_start.append(fn)

    def at_close(self, fn: Callable[[], None]) -> None:
        """Run `fn()` when the host exits (the channel closed), in reverse order of adding."""
        self._on_close.append(fn)

    def start(self, ctx: Context) -> None:
        for fn in self._on_start:
            fn(ctx)

    def close(self) -> None:
        for fn in reversed(self._on_close):
            try:
                fn()
            except Exception:
                logger.exception("closing %s failed", fn)

    def request(self, name: str, args_type: type[A], fn: Callable[[Context, A], object]) -> None:
        """Register a quick request."""
        _add(self.requests, name, Route(args_type, fn))

    def notification(
        self, name: str, args_type: type[A], fn: Callable[[Context, A], object]
    ) -> None:
        """Register a notification (long work; its outcome goes back as events)."""
        _add(self.notifications, name, Route(args_type, fn))


def _add(table: dict[str, Route[Any]], name: str, route: Route[Any]) -> None:
    if name in table:
        raise ValueError(f"bb7 host: method {name!r} is registered twice")
    table[name] = route


def _run(route: Route[Any], ctx: Context, name: str, args: list[Any]) -> object:
    """Decode the single table argument and call the handler; failures become Problems."""
    raw = args[0] if args else {}
    if raw == [] or raw is None:  # Lua encodes an empty table as an empty array
        raw = {}
    try:
        decoded = msgspec.convert(raw, route.args_type)
    except msgspec.ValidationError as err:
        logger.warning("bad arguments for %s: %s", name, err)
        return Problem("invalid_args", f"bad arguments for `{name}`: {err}")
    try:
        return route.fn(ctx, decoded)
    except Abort as refused:  # "no, and here is what to do": the reply carries the problem
        return refused.problem
    except StoreError as err:  # the database cannot be used: the CLI's one line
        return Problem("unusable_state", str(err))
    except Exception as err:
        logger.exception("handler %s failed", name)
        return Problem("bug", f"`{name}` failed: {err!r} (details in :BB7Log)")


def _dispatch(
    table: dict[str, Route[Any]], kind: str, ctx: Context, name: str, args: list[Any]
) -> object:
    route = table.get(name)
    if route is None:
        return Problem("unknown_method", f"the host has no {kind} `{name}`")
    return _run(route, ctx, name, args)


def handle_request(registry: Registry, ctx: Context, name: str, args: list[Any]) -> Any:
    """Run request `name` and return the encoded `Reply` (plain msgpack values)."""
    result = _dispatch(registry.requests, "request", ctx, name, args)
    if isinstance(result, Problem):
        return msgspec.to_builtins(Reply(ok=False, error=result))
    return msgspec.to_builtins(Reply(ok=True, value=result))


def handle_notification(registry: Registry, ctx: Context, name: str, args: list[Any]) -> None:
    """Run notification `name`; a Problem is shown to the user as a `notify` event."""
    result = _dispatch(registry.notifications, "notification", ctx, name, args)
    if isinstance(result, Problem):
        ctx.emit("notify", Notify("error", result.message))
