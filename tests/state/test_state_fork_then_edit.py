"""Issue 15 item 9: after a fork then an edit, the stale-file warning appears once."""

from __future__ import annotations

from state_helpers import Project

from bb7.state import chats, context, history
from bb7.state.context import Target
from bb7.state.history import Restored


def _warnings(project: Project, chat_id: str) -> list[str]:
    return [
        part.event.action
        for message in project.store.messages(chat_id)
        for part in message.parts
        if getattr(part, "event", None) is not None and part.event.action.startswith("fork_warning")
    ]


def test_a_fork_then_an_edit_warns_once(project: Project) -> None:
    project.write("f.txt", "a\n")
    context.add(project.store, project.chat_id, Target("f.txt"))
    first = chats.append_user_message(project.store, project.chat_id, "question")
    project.write("f.txt", "changed by hand\n")
    forked = history.fork_chat(project.store, project.chat_id, first.id)
    assert isinstance(forked, Restored)
    assert _warnings(project, forked.chat.id) == ["fork_warning_modified"]
    # The fork's draft is sent, then edited: its context is restored again, still stale.
    sent = chats.append_user_message(project.store, forked.chat.id, forked.draft)
    edited = history.edit_message(project.store, forked.chat.id, sent.id)
    assert isinstance(edited, Restored)
    assert [(w.path, w.issue) for w in edited.warnings] == [("f.txt", "modified")]
    assert _warnings(project, forked.chat.id) == ["fork_warning_modified"]


def test_a_section_after_a_form_feed_is_not_called_modified_by_a_fork(project: Project) -> None:
    # A form feed stays inside its line (as in Neovim): lines 2-3 are the same text at the
    # fork as when added, so no warning; str.splitlines would have cut line 1 in two.
    project.write("f.txt", "a\fb\nsecond\nthird\n")
    context.add(project.store, project.chat_id, Target("f.txt", 2, 3))
    first = chats.append_user_message(project.store, project.chat_id, "question")
    forked = history.fork_chat(project.store, project.chat_id, first.id)
    assert isinstance(forked, Restored)
    assert forked.warnings == []
    assert _warnings(project, forked.chat.id) == []
    project.write("f.txt", "a\fb\nsecond\nTHIRD\n")
    again = history.fork_chat(project.store, project.chat_id, first.id)
    assert isinstance(again, Restored)
    assert [(w.path, w.issue) for w in again.warnings] == [("f.txt", "modified")]
