"""What every state command shares: `--root`, opening the workspace and the active chat (held
with a lease for the command's duration), and turning refusals into one line on stderr."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import signal
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

from bb7.commands.terminal import print_json as print_json
from bb7.refusal import Abort, Problem, unwrap
from bb7.state.problems import is_store_trouble, store_error
from bb7.state.records import Chat
from bb7.state.store import Store, StoreError
from bb7.state.workspace import Workspace, open_workspace

T = TypeVar("T")


class Cancellable(Protocol):
    def cancel(self) -> None: ...


C = TypeVar("C", bound=Cancellable)


def add_root_option(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a nested parser must not reset a --root given before its action.
    parser.add_argument(
        "--root",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="project root (default: the current directory)",
    )


def add_provider_options(parser: argparse.ArgumentParser) -> None:
    """--provider, --api, --base-url and --api-key: which server, how it is spoken to, and where
    its key is."""
    from bb7.provider.presets import APIS, PRESETS

    parser.add_argument(
        "--provider",
        choices=list(PRESETS),
        help="provider preset: its base URL, key variable and quirks (default: openrouter)",
    )
    parser.add_argument(
        "--api",
        choices=APIS,
        help="wire protocol: OpenAI's Chat Completions or Anthropic's Messages (default: the "
        "preset's; anthropic for --provider anthropic)",
    )
    parser.add_argument("--base-url", help="the API's base URL (default: the preset's)")
    parser.add_argument(
        "--api-key",
        metavar="SPEC",
        help="where the key is: an environment variable name, cmd:COMMAND or file:PATH "
        "(default: OPENROUTER_API_KEY for OpenRouter, the provider's usual variable, or no key "
        "for a server on localhost)",
    )


def root_of(args: argparse.Namespace) -> Path:
    return Path(os.path.abspath(getattr(args, "root", None) or os.getcwd()))


def reported(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Run a command; a refusal (`Abort`) or an unusable database becomes one line on stderr,
    exit 1."""

    @functools.wraps(func)
    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except (Abort, StoreError) as exc:
            print(f"bb7: {exc}", file=sys.stderr)
            return 1

    return run


@contextlib.contextmanager
def workspace(args: argparse.Namespace) -> Iterator[Workspace]:
    root = root_of(args)
    if not root.is_dir():
        raise Abort(Problem("invalid_root", f"{root} is not a directory"))
    ws = unwrap(open_workspace(root))
    for line in ws.recovered:
        print(f"bb7: {line}", file=sys.stderr)
    try:
        yield ws
    except sqlite3.DatabaseError as exc:
        # A damaged page is found only when a query reads it, long after the open.
        if not is_store_trouble(exc):
            raise
        raise store_error(exc, ws.home().path, ws.home().timeout) from exc
    finally:
        ws.close()


@contextlib.contextmanager
def active_chat(
    args: argparse.Namespace,
    *,
    create: bool = False,
    lease: bool = True,
    keep: bool = False,
    brief: bool = False,
) -> Iterator[tuple[Workspace, Store, Chat]]:
    """The workspace and its active chat, leased to this process until the block ends (for
    commands that change it; reading needs no lease).

    With `create`, a project without an active chat gets a new one (so `bb7 add` just works).
    With `keep` (a command that may run past the lease's staleness, `bb7 chat`), a thread
    renews the lease, so that no other process takes the chat over from a running one. With
    `brief` (a command whose every change is one transaction, `bb7 add`), no lease is taken:
    each write is refused while another process holds the chat (`Store.unleased`), and such
    commands started at once take turns instead of refusing each other.
    """
    # Imported here, not above: commands that only read (`bb7 status`) start faster without.
    from bb7.state import lock

    with workspace(args) as ws:
        found = ws.active()
        if found is None:
            if not create:
                raise Abort(Problem("no_chat", "no active chat; `bb7 chats new` starts one"))
            found = _active_or_new(ws)
        store, chat = found
        if brief:
            store.unleased.add(chat.id)
        if not lease or brief:
            yield ws, store, chat
            return
        if keep:
            keeper = unwrap(lock.keep(store, chat.id))
            try:
                yield ws, store, chat
            finally:
                keeper.release()
            return
        held = unwrap(lock.acquire(store, chat.id))
        try:
            yield ws, store, chat
        finally:
            lock.release(store, held)


class CtrlC:
    """Ctrl-C cancels the running work (a send, an agent's turn) once, however early and
    however often it is pressed.

    The handler is in place before the work starts: a press that came before `wait` (the answer
    already streaming) used to raise outside it, and bb7 then hung on the stream's thread.
    Presses after the first are ignored until bb7 exits, so storing the partial answer is never
    cut short.
    """

    def __init__(self) -> None:
        self._handle: Cancellable | None = None
        self._pressed = False
        self._previous: Any = None

    def __enter__(self) -> CtrlC:
        self._previous = signal.signal(signal.SIGINT, self._press)
        return self

    def __exit__(self, *_: object) -> None:
        # Once pressed, bb7 is on its way out: a late second press must not end it by the signal.
        if not self._pressed:
            signal.signal(signal.SIGINT, self._previous)

    def watch(self, handle: C) -> C:
        self._handle = handle
        if self._pressed:
            handle.cancel()
        return handle

    def _press(self, _signum: int, _frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        self._pressed = True
        if self._handle is not None:
            self._handle.cancel()


def _active_or_new(ws: Workspace) -> tuple[Store, Chat]:
    """The active chat, or a new one made active, in one transaction: several `bb7 add`
    started at once in a project without a chat all find the same new chat."""
    from bb7.state.chats import new_chat

    home = ws.home()
    with home.transaction():
        found = ws.active()
        if found is not None:
            return found
        chat = new_chat(home)
        ws.set_active(home, chat.id)
        return home, chat
