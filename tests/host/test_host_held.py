"""A chat another bb7 process holds (a real second process on this host, holding its lease):
the view reads it with `held_by` naming that process, the list marks it, what would change it
is refused in one line saying what to do, and `take_chat` (`:BB7Chat!`) takes it over."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from host_harness import Host
from test_host_needs import chat_with_output

from bb7.state.store import Store

_HOLD = """
import sys
from pathlib import Path
from bb7.state import lock
from bb7.state.store import init_project
store = init_project(Path.cwd())
print(type(lock.acquire(store, sys.argv[1])).__name__, flush=True)
sys.stdin.read()  # hold the lease until the test closes our stdin
"""


@pytest.fixture
def chat_id(root: Path, store: Store) -> str:
    return chat_with_output(store, root)


@pytest.fixture
def holder(root: Path, chat_id: str) -> Iterator[subprocess.Popen[str]]:
    """Another bb7 process, running in the project, holding the chat until it is stopped."""
    child = subprocess.Popen(
        [sys.executable, "-c", _HOLD, chat_id],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "Lease"
    yield child
    child.communicate("")


def test_a_held_chat_opens_read_only_naming_its_holder_and_is_taken_only_when_forced(
    host: Host, root: Path, store: Store, chat_id: str, holder: subprocess.Popen[str]
) -> None:
    who = f"pid {holder.pid} in {root}"
    view = host.call("chat_view", create=True)
    assert view["chat"]["id"] == chat_id and view["chat"]["held_by"] == who
    assert [c["held_by"] for c in host.call("chat_list")] == [who]
    assert host.call("switch_chat", chat_id=chat_id)["held_by"] == who  # switched to, to read
    refused = host.refused("discard", path=str(root / "a.py"))
    assert refused == {
        "kind": "locked",
        "message": f"held by pid {holder.pid}: :BB7Chat! takes it over (read-only here)",
    }
    host.call("save_draft", chat_id=chat_id, draft="typed while read-only")
    chat = store.chat(chat_id)
    assert chat is not None and chat.draft == ""  # the holder's draft is not overwritten
    # Still running: nothing is taken without force, the reply says who holds it (the editor
    # asks the user first); with force it is taken from the running holder.
    assert host.call("take_chat", force=False)["held_by"] == who
    lease = store.lease(chat_id)
    assert lease is not None and lease.pid == holder.pid
    taken = host.call("take_chat", force=True)
    assert taken["id"] == chat_id and taken["held_by"] == ""
    assert holder.poll() is None
    lease = store.lease(chat_id)
    assert lease is not None and lease.pid == os.getpid()
    said = host.call("discard", path=str(root / "a.py"))  # it changes the chat again
    assert said["message"] == "discarded the pending change of a.py"


def test_take_chat_takes_it_at_once_when_the_holder_is_gone(
    host: Host, store: Store, chat_id: str, holder: subprocess.Popen[str]
) -> None:
    host.call("chat_view", create=True)  # read-only while it runs
    holder.kill()  # gone without giving the chat up: its lease row stays
    holder.wait()
    taken = host.call("take_chat", force=False)
    assert taken["id"] == chat_id and taken["held_by"] == ""
    lease = store.lease(chat_id)
    assert lease is not None and lease.pid == os.getpid()
    assert host.call("chat_view")["chat"]["held_by"] == ""
