"""How long a test waits for something to happen before it fails, and the one loop that
waits. Every wait ends at its event (a request received, a message shown, a process gone), so
the limit only bounds a test that is failing: it is generous, for a machine whose cores are
busy with other work (the suite passes with two CPU-bound processes beside it). How soon
things happen is measured by benchmarks/, never by a test's limit."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

WAIT_S = 30.0
WAIT_MS = int(WAIT_S * 1000)


def until(check: Callable[[], T], what: str, timeout: float = WAIT_S, every: float = 0.01) -> T:
    """Calls `check` until it gives something true, and gives that; fails naming `what`."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)
    return found
