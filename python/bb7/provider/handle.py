"""The one cancel/wait handle of bb7's worker threads: a model request (`OpenAICompatClient.stream`)
and a whole send (`bb7.chat.send.start_send`) both return a `Handle`.

    handle.cancel()          # from any thread; returns at once
    result = handle.wait()   # blocking (never on the Neovim loop thread)

What cancelling does is the worker's business: it hands the handle a `stop` function for the
work under way (shut a socket down, cancel the request a send waits for) with `_stopping`, and
reads `cancelled` between steps. Not for: timeouts of the work itself (the client's watchdog).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Handle(Generic[T]):
    """Work running in a worker thread: cancel it, or wait for its result. Thread-safe."""

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self._finished = threading.Event()
        self._lock = threading.Lock()
        self._stop: Callable[[], None] | None = None
        self._result: T | None = None

    def cancel(self) -> None:
        """Stop the work now; returns at once. The result still comes (`wait`): what the work
        makes of being cancelled."""
        with self._lock:
            self._cancel.set()
            if self._stop is not None:
                self._stop()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    @property
    def result(self) -> T | None:
        """The result once the work has ended, else None."""
        return self._result

    def wait(self, timeout: float | None = None) -> T | None:
        """Block until the work is over (or `timeout`): its result, else None."""
        self._finished.wait(timeout)
        return self._result

    # -- used by the worker ---------------------------------------------------------------------

    def _stopping(self, stop: Callable[[], None] | None) -> None:
        """What `cancel` stops from now on (None: nothing); called at once when already
        cancelled. `stop` runs under the handle's lock: it must not call back into it."""
        with self._lock:
            self._stop = stop
            if stop is not None and self._cancel.is_set():
                stop()

    def _pause(self, seconds: float) -> bool:
        """Sleep `seconds` unless cancelled meanwhile; True when cancelled."""
        return self._cancel.wait(seconds)

    def _finish(self, result: T | None) -> None:
        self._result = result
        self._finished.set()
