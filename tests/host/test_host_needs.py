"""What a route needs (`bb7.host.needs`) is resolved before its handler runs, and a refusal on
the way is the reply: through the real route table, on a real project in a temp dir."""

from __future__ import annotations

import time
from pathlib import Path

from host_harness import Host

from bb7.state import chats, context
from bb7.state.records import Lease
from bb7.state.responses import edit_bases, record_outputs
from bb7.state.store import Store
from bb7.state.workspace import Workspace


def chat_with_output(store: Store, root: Path) -> str:
    """The active chat, with a.py in its context and a pending change of it."""
    chat = chats.new_chat(store, name="First")
    Workspace(root, store).set_active(store, chat.id)
    context.add(store, chat.id, context.Target("a.py"))
    record_outputs(store, chat.id, {"a.py": "one = 2\n"}, bases=edit_bases(store, chat.id))
    return chat.id


def held_elsewhere(store: Store, chat_id: str) -> None:
    with store.transaction():
        store.put_lease(
            Lease(chat_id=chat_id, pid=1, host="another-machine", heartbeat=time.time(), token="t")
        )


def test_a_route_that_changes_the_chat_is_refused_while_another_bb7_holds_it(
    host: Host, root: Path, store: Store
) -> None:
    chat_id = chat_with_output(store, root)
    held_elsewhere(store, chat_id)
    error = host.refused("discard", path=str(root / "a.py"))
    assert error["kind"] == "locked" and "another-machine" in error["message"]
    assert [o.path for o in store.outputs(chat_id)] == ["a.py"]  # nothing changed
    # Reading needs no lease: the pending change can still be looked at.
    assert host.call("diff", path=str(root / "a.py"))["lines"] == ["one = 2"]


def test_routes_on_the_active_chat_are_refused_without_one_and_add_starts_one(
    host: Host, root: Path, store: Store
) -> None:
    assert host.refused("diff", path=str(root / "a.py"))["kind"] == "no_chat"
    assert host.refused("remove", path=str(root / "a.py"))["kind"] == "no_chat"
    assert store.chats() == []
    said = host.call("add_paths", specs=["a.py"], cwd=str(root))
    (chat,) = store.chats()
    assert said["message"] == f"added a.py (writable) to {chat.name}"
    assert [e.path for e in store.entries(chat.id)] == ["a.py"]


def test_a_project_route_outside_a_bb7_project_says_to_run_init(tmp_path: Path) -> None:
    host = Host(tmp_path)
    for method, args in [
        ("chat_list", {}),
        ("apply", {"path": str(tmp_path / "a.py")}),
    ]:
        error = host.refused(method, **args)
        assert error["kind"] == "not_initialized" and ":BB7Init" in error["message"]
    host.close()


def test_a_refused_apply_still_shows_the_files_status(host: Host, root: Path, store: Store) -> None:
    chat_with_output(store, root)
    (root / "a.py").write_text("one = 11\n")  # a local change the output would overwrite
    host.events.clear()
    error = host.refused("apply", path=str(root / "a.py"))
    assert error["kind"] == "conflict" and error["message"].startswith("a.py has local changes")
    assert host.events == [
        [
            "status_changed",
            {
                "files": {
                    str(root / "a.py"): {
                        "status": "~M",
                        "lines": [1],
                        "user_lines": [],
                        "choose": 0,
                        "check": "",
                        "check_mark": "",
                        "agent": False,
                    }
                },
                "removed": [],
                "full": False,
            },
        ]
    ]
    assert (root / "a.py").read_text() == "one = 11\n"
