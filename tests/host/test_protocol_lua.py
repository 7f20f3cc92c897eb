"""The Lua side of the contract is generated: `lua/bb7/types.lua` and `lua/bb7/vocab.lua` are
what `python -m bb7.host.protocol.lua` writes from the Python declarations, and the
vocabulary covers what the core knows."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

from bb7.host.protocol import lua
from bb7.host.protocol.vocab import STATUSES
from bb7.state.records import ENTRY_KINDS, EntryKind, InSync
from bb7.state.status import IN_SYNC, Status


def test_the_generated_lua_files_are_fresh() -> None:
    assert lua.stale() == [], "run: python -m bb7.host.protocol.lua"


def test_check_mode_names_a_stale_file_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "types.lua").write_text(lua.types_lua())
    (tmp_path / "vocab.lua").write_text("-- edited by hand\n")
    assert lua.stale(tmp_path) == ["vocab.lua"]
    assert (tmp_path / "vocab.lua").read_text() == "-- edited by hand\n"


def test_the_vocabulary_has_the_facts_of_every_status_a_file_can_show() -> None:
    shown = [s for s in get_args(Status) if s != IN_SYNC]
    assert [facts.status for facts in STATUSES] == shown


def test_every_entry_kind_has_one_row_of_facts_and_its_in_sync_status_is_a_status() -> None:
    assert set(ENTRY_KINDS) == set(get_args(EntryKind))
    assert set(get_args(InSync)) <= set(get_args(Status))
    assert {facts.in_sync for facts in ENTRY_KINDS.values()} <= set(get_args(InSync))
    # A kind the user toggles is one of a writable/read-only pair, on a whole file.
    assert all(f.whole_file for f in ENTRY_KINDS.values() if f.toggles)
    assert all(f.toggles for f in ENTRY_KINDS.values() if f.writable)


def test_every_event_and_reply_class_is_in_types_lua_once() -> None:
    text = lua.types_lua()
    for name in ("bb7.Reply", "bb7.SendDone", "bb7.Streamed", "bb7.event.Chunk", "bb7.Hunk"):
        assert text.count(f"---@class {name}\n") == 1, name
