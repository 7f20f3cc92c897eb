"""The inline chat of `:BB7Edit`, without an editor: one per project, found again after a rename
and made anew once deleted; each edit is sent alone (earlier edits left out, other files gone
unless their change is pending) with the file as the editor has it; an edit of a file whose
earlier edit is pending is refused; the message holds the lines exactly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bb7.chat.inline import NAME, edit_message, inline_chat, ready_for, selection
from bb7.refusal import Problem
from bb7.state import chats
from bb7.state.records import ContextEntry, Message, PendingOutput, TextPart
from bb7.state.store import Store, init_project


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("one = 1\ntwo = 2\nthree = 3\n")
    (root / "b.py").write_text("print('b')\n")
    (root / "c.py").write_text("c = 3\n")
    opened = init_project(root)
    yield opened
    opened.close()


def pending(store: Store, chat: str, entry: ContextEntry, text: str) -> None:
    """A change of `entry`'s file waiting for review (as an answer leaves one)."""
    output = PendingOutput(
        path=entry.path, blob=store.put_blob(text), file_id="o", base_file_id=entry.file_id,
        added=False,
    )  # fmt: skip
    store.put_output(chat, output)


def test_one_inline_chat_per_project_kept_through_a_rename_and_made_anew_once_deleted(
    store: Store,
) -> None:
    first = inline_chat(store)
    assert first.name == NAME
    chats.rename_chat(store, first.id, "My edits")
    assert inline_chat(store).id == first.id
    assert [c.id for c in store.chats()] == [first.id]
    chats.delete_chat(store, first.id)
    again = inline_chat(store)
    assert again.id != first.id and again.name == NAME


def test_an_edit_is_sent_alone_with_the_file_as_the_editor_has_it(store: Store) -> None:
    assert store.root is not None
    chat = inline_chat(store).id
    for path in ("b.py", "c.py"):
        assert isinstance(ready_for(store, chat, str(store.root / path), None, None), ContextEntry)
    store.append_message(chat, Message(role="user", parts=[TextPart("Edit c.py")]))
    store.append_message(chat, Message(role="assistant", parts=[TextPart("Done.")]))
    # c.py's change is pending (the last edit was left for later): it stays; b.py goes.
    c = store.entry(chat, "c.py")
    assert c is not None
    pending(store, chat, c, "c = 33\n")
    unsaved = "one = 1\ntwo = 22\nthree = 3\n"
    entry = ready_for(store, chat, str(store.root / "a.py"), unsaved, store.root)
    assert isinstance(entry, ContextEntry) and entry.facts.writable
    assert store.blob(entry.blob) == unsaved
    assert sorted(e.path for e in store.entries(chat)) == ["a.py", "c.py"]
    exchange = [m for m in store.messages(chat) if m.role in ("user", "assistant")]
    assert exchange and all(m.excluded for m in exchange)


def test_an_edit_of_a_file_whose_edit_is_pending_is_refused(store: Store) -> None:
    assert store.root is not None
    chat = inline_chat(store).id
    a = ready_for(store, chat, str(store.root / "a.py"), None, None)
    assert isinstance(a, ContextEntry)
    pending(store, chat, a, "x\n")
    refused = ready_for(store, chat, str(store.root / "a.py"), None, None)
    assert isinstance(refused, Problem)
    assert refused.message == "a.py has an inline edit pending: :BB7Review it first"


def test_a_file_outside_the_project_is_refused(store: Store, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("x = 1\n")
    refused = ready_for(store, inline_chat(store).id, str(outside), None, None)
    assert isinstance(refused, Problem) and refused.kind == "outside_root"


def test_the_message_holds_the_lines_exactly_and_the_instruction() -> None:
    text = "one = 1\r\ntwo = 2\r\nthree = 3\r\n"
    assert selection(text, 2, 3, "a.py") == "two = 2\nthree = 3"
    assert selection(text, 2, 2, "a.py") == "two = 2"
    bad = selection(text, 3, 4, "a.py")
    assert isinstance(bad, Problem)
    assert bad.message == "a.py has 3 lines: lines 3-4 are not there"
    message = edit_message("a.py", 2, 3, "two = 2\n```\nthree = 3", "  use words  ")
    assert message.startswith("Edit lines 2-3 of a.py: use words\n\n````\ntwo = 2\n```\n")
    assert "three = 3\n````\n\n" in message
