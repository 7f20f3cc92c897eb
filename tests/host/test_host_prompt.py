"""`:BB7Prompt`'s parts (`prompt_parts`) through the real handler table, without Neovim: the
chat's live parts are read again from the editor's state it sends, as the next send reads
them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from host_harness import Host

from bb7.state.store import Store
from bb7.state.workspace import Workspace


def editor(root: Path, message: str) -> dict[str, Any]:
    diagnostic = {"path": str(root / "a.py"), "line": 1, "col": 1, "severity": 1}
    return {"diagnostics": [{**diagnostic, "message": message, "text": "one = 1"}]}


def part_text(store: Store, root: Path) -> str:
    found = Workspace(root, store).active()
    assert found is not None
    entry = store.entry(found[1].id, "@diagnostics all")
    assert entry is not None, [e.path for e in store.entries(found[1].id)]
    return store.blob(entry.blob)


def test_the_prompt_list_reads_the_live_parts_again(host: Host, root: Path, store: Store) -> None:
    host.call("add_part", words=["diagnostics", "all"], editor=editor(root, "one is unused"))
    assert "one is unused" in part_text(store, root)
    found = host.call("prompt_parts", text="", editor=editor(root, "one is undefined"))
    assert any("@diagnostics all" in part["line"] for part in found["parts"])
    assert "one is undefined" in part_text(store, root)
    # Without the editor's state (an older editor): the part as last read.
    host.call("prompt_parts", text="")
    assert "one is undefined" in part_text(store, root)
