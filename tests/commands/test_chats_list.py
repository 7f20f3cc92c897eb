"""`bb7 chats list` marks a chat another live bb7 process holds (a writer lease), as the editor's
chat list does, in its text and in `--json` (`held_by`)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bb7.state import chats
from bb7.state.records import Lease
from bb7.state.store import init_project
from cli_runner import run_cli


def test_chats_list_marks_a_chat_held_by_another_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    store = init_project(tmp_path)
    held = chats.new_chat(store, name="Held").id
    free = chats.new_chat(store, name="Free").id
    with store.transaction():  # a live lease of a bb7 on another machine
        store.put_lease(Lease(chat_id=held, pid=4242, host="box", heartbeat=time.time(), token="t"))
    store.close()

    listing = run_cli(capsys, "chats", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    rows = {c["id"]: c for c in json.loads(listing.stdout)["chats"]}
    assert rows[held]["held_by"] == "pid 4242 on box"
    assert rows[free]["held_by"] == ""
    assert rows[held]["name"] == "Held"  # the fields it had stay

    text = run_cli(capsys, "chats", "list").stdout.splitlines()
    (held_row,) = [row for row in text if held in row]
    (free_row,) = [row for row in text if free in row]
    assert held_row.endswith("Held  (held by pid 4242 on box)")
    assert free_row.endswith("Free")
