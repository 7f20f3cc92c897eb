"""Chats: fork and edit restore exact snapshots, new-with-context, move, search, list order."""

from __future__ import annotations

import time
from pathlib import Path

from state_helpers import Project

from bb7.refusal import Problem
from bb7.state import chats, context, history, lock
from bb7.state.context import Target
from bb7.state.history import Restored
from bb7.state.outputs import discard_output
from bb7.state.records import EXTERNAL, WRITABLE, Chat, Lease, Message, TextPart
from bb7.state.store import open_global

V1 = "a\nb\nc\nd\n"
BY_HAND = "a\nb\nc\nD\n"


def _conversation(project: Project) -> tuple[Message, Message]:
    """Two exchanges; between them the model changes line 1 and the user line 4 of f.txt."""
    project.write("f.txt", V1)
    context.add(project.store, project.chat_id, Target("f.txt"))
    first = chats.append_user_message(project.store, project.chat_id, "first question")
    chats.append_message(
        project.store, project.chat_id, Message(role="assistant", parts=[TextPart("answer 1")])
    )
    project.model_writes("f.txt", "A\nb\nc\nd\n")
    project.write("f.txt", BY_HAND)
    assert not isinstance(context.update(project.store, project.chat_id, Target("f.txt")), Problem)
    second = chats.append_user_message(project.store, project.chat_id, "second question")
    return first, second


def _snapshot_text(project: Project, chat_id: str, path: str) -> str:
    entry = project.store.entry(chat_id, path)
    assert entry is not None
    return project.store.blob(entry.blob)


def test_fork_restores_history_and_the_exact_snapshot_of_the_message(project: Project) -> None:
    first, _ = _conversation(project)
    forked = history.fork_chat(project.store, project.chat_id, first.id)
    assert isinstance(forked, Restored)
    assert forked.chat.name.startswith("Fork of ") and forked.draft == "first question"
    assert project.store.messages(forked.chat.id)[0].role == "event"  # the add, before it
    assert all(m.text() != "first question" for m in project.store.messages(forked.chat.id))
    assert _snapshot_text(project, forked.chat.id, "f.txt") == V1
    assert [(w.path, w.issue) for w in forked.warnings] == [("f.txt", "modified")]
    assert project.store.outputs(forked.chat.id) == []
    again = history.fork_chat(project.store, forked.chat.id, first.id)
    assert isinstance(again, Problem)  # the fork has no such message: it was not copied


def test_fork_warns_about_deleted_files(project: Project) -> None:
    first, _ = _conversation(project)
    (project.root / "f.txt").unlink()
    forked = history.fork_chat(project.store, project.chat_id, first.id)
    assert isinstance(forked, Restored)
    assert [(w.path, w.issue) for w in forked.warnings] == [("f.txt", "deleted")]
    warning = project.store.messages(forked.chat.id)[-1]
    assert warning.role == "system"


def test_a_new_chat_with_the_same_context_has_its_files_afresh_and_no_history(
    project: Project,
) -> None:
    _conversation(project)  # f.txt writable, its snapshot BY_HAND
    project.write("g.txt", "one\ntwo\nthree\n")
    context.add(project.store, project.chat_id, Target("g.txt", 2, 3))
    project.write("r.txt", "read me\n")
    context.add(project.store, project.chat_id, Target("r.txt"), readonly=True)
    project.write("f.txt", "fresh\n")
    project.write("g.txt", "changed\n")  # a section stays as it was cut
    (project.root / "r.txt").unlink()  # a file gone keeps the snapshot it had
    chats.save_settings(project.store, project.chat_id, model="m/x", reasoning_effort="high")
    new = history.reuse_context(project.store, project.chat_id)
    assert isinstance(new, Chat) and new.id != project.chat_id
    assert (new.model, new.reasoning_effort) == ("m/x", "high")
    assert project.store.messages(new.id) == []

    def kinds(chat_id: str) -> dict[tuple[str, int, int], str]:
        entries = project.store.entries(chat_id)
        return {(e.path, e.start_line, e.end_line): e.kind for e in entries}

    assert kinds(new.id) == kinds(project.chat_id) and len(kinds(new.id)) == 3
    assert _snapshot_text(project, new.id, "f.txt") == "fresh\n"
    assert _snapshot_text(project, new.id, "r.txt") == "read me\n"
    section = project.store.entry(new.id, "g.txt", 2, 3)
    assert section is not None and project.store.blob(section.blob) == "two\nthree\n"
    assert project.store.outputs(new.id) == []
    assert isinstance(history.reuse_context(project.store, "nope"), Problem)


def test_edit_truncates_and_restores_context_and_pending_outputs(project: Project) -> None:
    _, second = _conversation(project)
    chats.append_message(
        project.store, project.chat_id, Message(role="assistant", parts=[TextPart("answer 2")])
    )
    project.model_writes("f.txt", "A\nB\nc\nD\n")
    edited = history.edit_message(project.store, project.chat_id, second.id)
    assert isinstance(edited, Restored) and edited.draft == "second question"
    assert edited.chat.draft == "second question"
    texts = [m.text() for m in project.store.messages(project.chat_id)]
    assert "second question" not in texts and "answer 2" not in texts and "answer 1" in texts
    assert _snapshot_text(project, project.chat_id, "f.txt") == BY_HAND
    (output,) = project.store.outputs(project.chat_id)
    assert project.store.blob(output.blob) == "A\nb\nc\nD\n"  # as rebased before the message


def test_list_puts_pinned_chats_first_then_recent_ones(project: Project) -> None:
    older = project.store.chat(project.chat_id)
    assert older is not None
    time.sleep(0.01)
    newer = chats.new_chat(project.store, name="newer")
    assert [c.id for c in chats.list_chats([project.store])] == [newer.id, older.id]
    chats.set_pinned(project.store, older.id, True)
    listed = chats.list_chats([project.store])
    assert [c.id for c in listed] == [older.id, newer.id] and listed[0].pinned


def test_search_finds_names_and_message_text(project: Project) -> None:
    chats.rename_chat(project.store, project.chat_id, "Parser rewrite")
    chats.append_user_message(project.store, project.chat_id, "Why does the tokenizer hang?")
    other = chats.new_chat(project.store, name="Unrelated")
    by_name = chats.search_chats([project.store], "parser")
    assert [(h.chat.id, h.match) for h in by_name] == [(project.chat_id, "name")]
    by_text = chats.search_chats([project.store], "tokeniz hang")
    assert [(h.chat.id, h.match) for h in by_text] == [(project.chat_id, "message")]
    assert "tokenizer" in by_text[0].excerpt
    assert other.id not in {h.chat.id for h in by_text}


def test_drafts_and_settings_are_saved(project: Project) -> None:
    chats.save_draft(project.store, project.chat_id, "half a thought")
    chats.save_settings(project.store, project.chat_id, model="m/x", reasoning_effort="high")
    chat = project.store.chat(project.chat_id)
    assert chat is not None
    assert (chat.draft, chat.model, chat.reasoning_effort) == ("half a thought", "m/x", "high")


def test_delete_is_refused_while_another_process_holds_the_chat(project: Project) -> None:
    with project.store.transaction():
        project.store.put_lease(
            Lease(chat_id=project.chat_id, pid=1, host="other", heartbeat=time.time(), token="t")
        )
    refused = chats.delete_chat(project.store, project.chat_id)
    assert isinstance(refused, Problem) and refused.kind == "locked"
    lock.force_unlock(project.store, project.chat_id)
    assert isinstance(chats.delete_chat(project.store, project.chat_id), Chat)
    assert project.store.chat(project.chat_id) is None


def test_moving_to_global_and_back_keeps_history_and_files(project: Project) -> None:
    _conversation(project)
    project.model_writes("f.txt", "pending\n")  # replaces the rebased output
    glob = open_global()
    refused = history.move_chat(project.store, glob, project.chat_id, project.root)
    assert isinstance(refused, Problem) and refused.kind == "pending_output"
    discard_output(project.store, project.chat_id, "f.txt")
    moved = history.move_chat(project.store, glob, project.chat_id, project.root)
    assert isinstance(moved, Chat) and moved.scope == "global"
    assert project.store.chat(project.chat_id) is None
    (entry,) = glob.entries(moved.id)
    assert entry.kind == EXTERNAL and Path(entry.path).is_absolute()
    back = history.move_chat(glob, project.store, moved.id, project.root)
    assert isinstance(back, Chat)
    (entry,) = project.store.entries(back.id)
    assert (entry.kind, entry.path) == (WRITABLE, "f.txt")
    assert [m.text() for m in project.store.messages(back.id) if m.role == "user"] == [
        "first question",
        "second question",
    ]
    forked = history.fork_chat(project.store, back.id, project.store.messages(back.id)[1].id)
    assert isinstance(forked, Restored)
    assert _snapshot_text(project, forked.chat.id, "f.txt") == V1
    glob.close()
