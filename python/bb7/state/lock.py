"""Chat leases: one process (one Neovim) has a chat open at a time.

A lease row holds pid, host, the process's identity (`bb7.process`: a reused pid is another
process) and a heartbeat; it is taken inside a write transaction, so two processes racing for a
chat cannot both win. A lease is stale, and taken over, when its process is gone from this host
or its heartbeat is older than `STALE_AFTER` seconds (another host, or a hung or stopped
process). `force_unlock` drops a lease unconditionally. A long-running process (the Neovim
host) holds its chat with a `LeaseKeeper`, which renews the lease from a thread.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable

import msgspec

from bb7.files.paths import tilde
from bb7.process import cwd, identity, running
from bb7.refusal import Problem
from bb7.state.records import Lease
from bb7.state.store import Store

STALE_AFTER = 60.0
# Renew well within STALE_AFTER, so a missed beat or two never lets another process take over.
HEARTBEAT_EVERY = STALE_AFTER / 4
# How soon a keeper notices that another process took its chat over (`:BB7Chat!` there): one
# read of the lease row, so the editor that lost it turns read-only within half a second.
CHECK_EVERY = 0.5


def this_host() -> str:
    return socket.gethostname()


def is_stale(lease: Lease, *, now: float | None = None) -> bool:
    now = time.time() if now is None else now
    if now - lease.heartbeat > STALE_AFTER:
        return True
    return lease.host == this_host() and not running(lease.pid, lease.started)


def where(lease: Lease) -> str:
    """Where the process holding `lease` runs: the directory when it runs on this host
    (`in ~/project`), else its host (`on build-box`)."""
    found = cwd(lease.pid) if lease.host == this_host() else ""
    if not found:
        return f"on {lease.host}"
    return f"in {tilde(found)}"


def describe(lease: Lease) -> str:
    """The process holding `lease`, as messages name it: `pid 4242 in ~/project`."""
    return f"pid {lease.pid} {where(lease)}"


def is_ours(lease: Lease) -> bool:
    if lease.pid != os.getpid() or lease.host != this_host():
        return False
    return not lease.started or lease.started == identity()


def acquire(store: Store, chat_id: str) -> Lease | Problem:
    """Take the chat for this process, or say who holds it."""
    # Taken afresh: an old, lost token must not refuse it; kept when the chat is refused (it
    # still stops what this process ran in the chat from storing more there).
    old = store.held.pop(chat_id, None)
    with store.transaction():
        current = store.lease(chat_id)
        if current is not None and not is_ours(current) and not is_stale(current):
            if old is not None:
                store.held[chat_id] = old
            return Problem(
                "locked",
                f"chat {chat_id} is open in another bb7 process ({describe(current)}); close "
                f"it there, or force-unlock with `bb7 chats unlock {chat_id}`",
            )
        if current is not None and is_ours(current):
            lease = msgspec.structs.replace(current, heartbeat=time.time())
        else:
            lease = Lease(
                chat_id=chat_id,
                pid=os.getpid(),
                host=this_host(),
                heartbeat=time.time(),
                token=secrets.token_hex(8),
                started=identity(),
            )
        store.put_lease(lease)
    store.held[chat_id] = lease.token
    return lease


def heartbeat(store: Store, lease: Lease) -> Lease | Problem:
    """Renew a lease; refused when it was force-unlocked or taken over meanwhile."""
    with store.transaction(guarded=False):
        current = store.lease(lease.chat_id)
        if current is None or current.token != lease.token:
            return Problem(
                "lost", f"this process no longer holds chat {lease.chat_id}; reopen the chat"
            )
        renewed = msgspec.structs.replace(lease, heartbeat=time.time())
        store.put_lease(renewed)
        return renewed


def still_ours(store: Store, lease: Lease) -> bool:
    """True while the lease row is still `lease`'s (not taken over, not unlocked): a read."""
    current = store.lease(lease.chat_id)
    return current is not None and current.token == lease.token


def release(store: Store, lease: Lease) -> None:
    """Give the chat up (only if we still hold it)."""
    if store.held.get(lease.chat_id) == lease.token:
        del store.held[lease.chat_id]
    with store.transaction(guarded=False):
        store.delete_lease(lease.chat_id, lease.token)


def force_unlock(store: Store, chat_id: str) -> None:
    store.held.pop(chat_id, None)
    with store.transaction(guarded=False):
        store.delete_lease(chat_id)


def holder(store: Store, chat_id: str) -> Lease | None:
    """The live lease another process holds on the chat, if any."""
    current = store.lease(chat_id)
    if current is None or is_ours(current) or is_stale(current):
        return None
    return current


def held_by(store: Store, chat_id: str) -> str:
    """Who else holds the chat (`pid 4242 in ~/project`), '' when no other live process does:
    what the editor's chat list and `bb7 chats list` mark."""
    lease = holder(store, chat_id)
    return "" if lease is None else describe(lease)


class LeaseKeeper:
    """Holds a chat for this process until `release()`: a daemon thread renews the lease every
    `interval` seconds over its own database connection (the owner's stays free), and between
    renewals looks every `check` seconds whether it is still ours. When the lease is lost
    (taken over, force-unlocked), `on_lost(problem)` runs in that thread and renewing stops."""

    def __init__(
        self,
        store: Store,
        lease: Lease,
        *,
        interval: float = HEARTBEAT_EVERY,
        check: float = CHECK_EVERY,
        on_lost: Callable[[Problem], None] | None = None,
    ) -> None:
        self.store = store
        self.lease = lease
        self._interval = interval
        self._check = min(check, interval)
        self._on_lost = on_lost
        self.lost = False  # another process took the chat over, or it was unlocked
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"bb7-lease-{lease.chat_id}", daemon=True
        )
        self._thread.start()

    @property
    def chat_id(self) -> str:
        return self.lease.chat_id

    def _run(self) -> None:
        own = Store(self.store.path, scope=self.store.scope, root=self.store.root)
        try:
            beat = time.monotonic()
            while not self._stop.wait(self._check):
                renewed: Lease | Problem = self.lease
                if time.monotonic() - beat >= self._interval:
                    renewed, beat = heartbeat(own, self.lease), time.monotonic()
                elif not still_ours(own, self.lease):
                    renewed = Problem("lost", f"another bb7 took chat {self.chat_id} over")
                if isinstance(renewed, Problem):
                    self.lost = True
                    if self._on_lost is not None:
                        self._on_lost(renewed)
                    return
                self.lease = renewed
        finally:
            own.close()

    def stop(self) -> None:
        """Stop renewing (the lease is left as it is)."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def release(self) -> None:
        """Stop renewing and give the chat up (if this process still holds it)."""
        self.stop()
        release(self.store, self.lease)


def keep(
    store: Store,
    chat_id: str,
    *,
    interval: float = HEARTBEAT_EVERY,
    check: float = CHECK_EVERY,
    on_lost: Callable[[Problem], None] | None = None,
) -> LeaseKeeper | Problem:
    """Take the chat (see `acquire`) and keep it until the keeper's `release()`."""
    lease = acquire(store, chat_id)
    if isinstance(lease, Problem):
        return lease
    return LeaseKeeper(store, lease, interval=interval, check=check, on_lost=on_lost)
