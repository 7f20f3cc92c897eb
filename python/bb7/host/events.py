"""Batches host events for Lua so Neovim is redrawn at most ~30 times a second.

Events are queued in order and delivered as one `[[name, payload], ...]` batch. The first event
after a quiet period goes out at once (low latency for single events such as `ready`); later
ones wait until `min_interval` has passed since the previous flush. This module only batches:
it is called on pynvim's loop thread and never touches Neovim itself (`deliver` does).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec

Batch = list[list[Any]]
# (delay in seconds, callback): `loop.call_later` in the host, a manual clock in unit tests.
Schedule = Callable[[float, Callable[[], None]], object]

FLUSHES_PER_SECOND = 30


class EventSink:
    """Coalesces events into batches; `deliver` receives each batch on the loop thread."""

    def __init__(
        self,
        deliver: Callable[[Batch], None],
        schedule: Schedule,
        *,
        min_interval: float = 1.0 / FLUSHES_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._deliver = deliver
        self._schedule = schedule
        self._min_interval = min_interval
        self._clock = clock
        self._pending: Batch = []
        self._scheduled = False
        self._last_flush = float("-inf")
        self.flushes = 0

    def emit(self, name: str, payload: object = None) -> None:
        """Queue one event; converts the payload now so later mutation cannot leak into it."""
        self._pending.append([name, msgspec.to_builtins(payload)])
        if not self._scheduled:
            self._scheduled = True
            delay = max(0.0, self._last_flush + self._min_interval - self._clock())
            self._schedule(delay, self.flush)

    def flush(self) -> None:
        """Deliver everything queued (called by the scheduler)."""
        self._scheduled = False
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        self._last_flush = self._clock()
        self.flushes += 1
        self._deliver(batch)
