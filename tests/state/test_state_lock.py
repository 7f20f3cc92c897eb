"""Chat leases across real processes: one winner, stale takeover, force-unlock."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from state_helpers import Project

from bb7.refusal import Problem
from bb7.state import lock
from bb7.state.records import Lease
from bb7.state.store import StoreError
from waits import until

_CONTEND = """
import sys, time
from pathlib import Path
from bb7.state import lock
from bb7.state.records import Lease
from bb7.state.store import init_project
store = init_project(Path(sys.argv[1]))
go = Path(sys.argv[3])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.001)
got = lock.acquire(store, sys.argv[2])
print("won" if isinstance(got, Lease) else "lost", flush=True)
sys.stdin.read()  # hold the lease until the test closes our stdin
"""


def _contender(project: Project, go: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _CONTEND, str(project.root), project.chat_id, str(go)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_two_processes_racing_for_a_chat_one_wins(project: Project, tmp_path: Path) -> None:
    go = tmp_path / "go"
    children = [_contender(project, go) for _ in range(2)]
    # Both at the line (each says so), then off at once.
    assert [child.stdout.readline().strip() for child in children if child.stdout] == ["ready"] * 2
    go.touch()
    results = [child.stdout.readline().strip() for child in children if child.stdout]
    assert sorted(results) == ["lost", "won"]
    winner = children[results.index("won")]
    held = lock.acquire(project.store, project.chat_id)
    assert isinstance(held, Problem) and held.kind == "locked"
    assert str(winner.pid) in held.message
    for child in children:
        child.communicate("")
    # The winner died without releasing: its lease is stale and this process takes over.
    assert isinstance(lock.acquire(project.store, project.chat_id), Lease)


def _lease_from_another_host(project: Project, heartbeat: float) -> None:
    with project.store.transaction():
        project.store.put_lease(
            Lease(
                chat_id=project.chat_id,
                pid=1,
                host="another-machine",
                heartbeat=heartbeat,
                token="t",
            )
        )


def test_a_lease_with_an_old_heartbeat_from_another_host_is_taken_over(project: Project) -> None:
    _lease_from_another_host(project, heartbeat=time.time() - lock.STALE_AFTER - 5)
    assert isinstance(lock.acquire(project.store, project.chat_id), Lease)


def test_a_fresh_lease_from_another_host_is_respected_until_forced(project: Project) -> None:
    _lease_from_another_host(project, heartbeat=time.time())
    refused = lock.acquire(project.store, project.chat_id)
    assert isinstance(refused, Problem) and "another-machine" in refused.message
    lock.force_unlock(project.store, project.chat_id)
    ours = lock.acquire(project.store, project.chat_id)
    assert isinstance(ours, Lease)
    assert isinstance(lock.heartbeat(project.store, ours), Lease)


def test_a_heartbeat_after_a_force_unlock_reports_the_loss(project: Project) -> None:
    ours = lock.acquire(project.store, project.chat_id)
    assert isinstance(ours, Lease)
    lock.force_unlock(project.store, project.chat_id)
    lost = lock.heartbeat(project.store, ours)
    assert isinstance(lost, Problem) and lost.kind == "lost"


def test_a_keeper_renews_the_heartbeat_and_releases_the_chat(project: Project) -> None:
    keeper = lock.keep(project.store, project.chat_id, interval=0.02)
    assert isinstance(keeper, lock.LeaseKeeper)
    first = keeper.lease.heartbeat
    until(lambda: keeper.lease.heartbeat != first, "a renewed heartbeat")
    stored = project.store.lease(project.chat_id)
    assert stored is not None and stored.heartbeat > first
    assert stored.token == keeper.lease.token
    keeper.release()
    assert project.store.lease(project.chat_id) is None


def test_a_keeper_reports_a_lease_lost_to_a_force_unlock(project: Project) -> None:
    lost: list[Problem] = []
    keeper = lock.keep(project.store, project.chat_id, interval=0.02, on_lost=lost.append)
    assert isinstance(keeper, lock.LeaseKeeper)
    lock.force_unlock(project.store, project.chat_id)
    until(lambda: lost, "the lease reported lost")
    assert [p.kind for p in lost] == ["lost"]
    keeper.release()  # nothing left to release; must not fail


def test_a_keeper_notices_a_takeover_between_its_heartbeats(project: Project) -> None:
    lost: list[Problem] = []
    # Renewing only every minute; the lease row is looked at every 20 ms.
    keeper = lock.keep(project.store, project.chat_id, interval=60, check=0.02, on_lost=lost.append)
    assert isinstance(keeper, lock.LeaseKeeper)
    lock.force_unlock(project.store, project.chat_id)
    deadline = time.monotonic() + 5
    while not lost and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [p.kind for p in lost] == ["lost"] and keeper.lost


def test_a_refused_acquire_keeps_the_lost_token_that_stops_writes(project: Project) -> None:
    ours = lock.acquire(project.store, project.chat_id)
    assert isinstance(ours, Lease)
    other = Lease(
        chat_id=project.chat_id,
        pid=1,
        host="another-machine",
        heartbeat=time.time(),
        token="theirs",
    )
    with project.store.transaction(guarded=False):
        project.store.put_lease(other)  # taken over while this process was busy
    refused = lock.acquire(project.store, project.chat_id)
    assert isinstance(refused, Problem) and refused.kind == "locked"
    # What this process still ran in the chat must not store into the other's chat.
    with pytest.raises(StoreError) as raised, project.store.transaction():
        pass
    assert raised.value.kind == "lost"
