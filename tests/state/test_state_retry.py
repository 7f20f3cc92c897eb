"""The retry state a failed response leaves: stored with its answer, offered while it still fits."""

from __future__ import annotations

from state_helpers import Project

from bb7.files.fileid import file_id
from bb7.refusal import Problem
from bb7.state import chats, context, history
from bb7.state.context import Target
from bb7.state.outputs import discard_output
from bb7.state.records import Chat, Message, TextPart
from bb7.state.responses import (
    clear_retry,
    edit_bases,
    record_failure,
    record_outputs,
    retry_state,
)
from bb7.state.store import open_global, open_project


def _fail(project: Project, partial: dict[str, str], text: str = "call 1 failed") -> None:
    answer = Message(role="assistant", parts=[TextPart("Changed it.")])
    saved = record_failure(
        project.store,
        project.chat_id,
        [answer],
        retry_text=text,
        partial=partial,
        bases=edit_bases(project.store, project.chat_id),
    )
    assert [m.text() for m in saved] == ["Changed it."]


def _setup(project: Project) -> None:
    project.write("a.py", "a = 1\n")
    assert not isinstance(context.add(project.store, project.chat_id, Target("a.py")), Problem)


def test_a_failure_stores_its_answer_and_the_retry_state_but_no_output(project: Project) -> None:
    _setup(project)
    _fail(project, {"a.py": "a = 2\n", "new.py": "n\n"})
    assert project.store.outputs(project.chat_id) == []
    assert project.store.messages(project.chat_id)[-1].text() == "Changed it."
    state = retry_state(project.store, project.chat_id)
    assert state is not None and state.text == "call 1 failed" and state.dropped == []
    got = {o.path: (o.content, o.file_id, o.base_file_id, o.added) for o in state.outputs}
    assert got == {
        "a.py": ("a = 2\n", file_id("a.py", "a = 2\n"), file_id("a.py", "a = 1\n"), False),
        "new.py": ("n\n", file_id("new.py", "n\n"), "", True),
    }
    assert project.status("a.py") == ""  # the partial version is not a pending output


def test_the_state_survives_reopening_the_database(project: Project) -> None:
    _setup(project)
    _fail(project, {"a.py": "a = 2\n"})
    project.store.close()
    reopened = open_project(project.root)
    assert not isinstance(reopened, Problem)
    project.store = reopened
    state = retry_state(reopened, project.chat_id)
    assert state is not None and [o.content for o in state.outputs] == ["a = 2\n"]


def test_a_partial_version_is_dropped_once_its_base_changed(project: Project) -> None:
    _setup(project)
    project.model_writes("a.py", "a = 5\n")  # a pending output: the base of the next edits
    _fail(project, {"a.py": "a = 6\n"})
    discard_output(project.store, project.chat_id, "a.py")
    state = retry_state(project.store, project.chat_id)
    assert state is not None and state.outputs == [] and state.dropped == ["a.py"]


def test_recording_the_repair_or_dismissing_clears_the_state(project: Project) -> None:
    _setup(project)
    _fail(project, {"a.py": "a = 2\n"})
    bases = edit_bases(project.store, project.chat_id)
    got = record_outputs(
        project.store, project.chat_id, {"a.py": "a = 3\n"}, bases=bases, clear_retry=True
    )
    assert not isinstance(got, Problem)
    assert retry_state(project.store, project.chat_id) is None
    assert project.store.retry_outputs(project.chat_id) == []
    _fail(project, {})
    assert retry_state(project.store, project.chat_id) is not None
    clear_retry(project.store, project.chat_id)
    assert retry_state(project.store, project.chat_id) is None


def test_a_refused_recording_keeps_the_retry_state(project: Project) -> None:
    _setup(project)
    _fail(project, {"a.py": "a = 2\n"})
    stale = edit_bases(project.store, project.chat_id)
    project.model_writes("a.py", "a = 9\n")
    got = record_outputs(
        project.store, project.chat_id, {"a.py": "a = 3\n"}, bases=stale, clear_retry=True
    )
    assert isinstance(got, Problem) and got.kind == "stale_base"
    assert project.store.chat(project.chat_id).retry_context == "call 1 failed"  # type: ignore[union-attr]


def test_editing_an_earlier_message_and_moving_the_chat_drop_the_retry_state(
    project: Project,
) -> None:
    _setup(project)
    first = chats.append_user_message(project.store, project.chat_id, "change a")
    _fail(project, {"a.py": "a = 2\n"})
    edited = history.edit_message(project.store, project.chat_id, first.id)
    assert not isinstance(edited, Problem)
    assert retry_state(project.store, project.chat_id) is None
    _fail(project, {"a.py": "a = 2\n"})
    glob = open_global()
    moved = history.move_chat(project.store, glob, project.chat_id, project.root)
    assert isinstance(moved, Chat) and moved.retry_context == ""
    assert retry_state(glob, moved.id) is None
    glob.close()


def test_deleting_the_chat_deletes_its_retry_state(project: Project) -> None:
    _setup(project)
    _fail(project, {"a.py": "a = 2\n"})
    assert not isinstance(chats.delete_chat(project.store, project.chat_id), Problem)
    assert project.store.retry_outputs(project.chat_id) == []
    assert project.store.integrity_problems() == []
