"""The state side of applying a model response: edit bases and recording pending outputs."""

from __future__ import annotations

from state_helpers import Project

from bb7.files.fileid import file_id
from bb7.refusal import Problem
from bb7.state import context
from bb7.state.context import Target
from bb7.state.records import EventPart, Message, TextPart
from bb7.state.responses import Recorded, edit_bases, record_outputs


def _setup(project: Project) -> None:
    project.write("w.py", "w\n")
    project.write("r.py", "r\n")
    project.write("s.py", "s1\ns2\n")
    context.add(project.store, project.chat_id, Target("w.py"))
    context.add(project.store, project.chat_id, Target("r.py"), readonly=True)
    context.add(project.store, project.chat_id, Target("s.py", 1, 1))


def test_bases_are_the_pending_output_else_the_snapshot(project: Project) -> None:
    _setup(project)
    bases = edit_bases(project.store, project.chat_id)
    assert set(bases) == {"w.py", "r.py"}  # a section is a quote, not something to edit
    assert (bases["w.py"].base, bases["w.py"].writable) == ("snapshot", True)
    assert bases["w.py"].file_id == file_id("w.py", "w\n")
    assert not bases["r.py"].writable
    project.model_writes("w.py", "w2\n")
    project.model_writes("new.py", "n\n")
    bases = edit_bases(project.store, project.chat_id)
    assert (bases["w.py"].content, bases["w.py"].base) == ("w2\n", "pending_output")
    assert bases["w.py"].file_id == file_id("w.py", "w2\n")
    assert (bases["new.py"].content, bases["new.py"].writable) == ("n\n", True)


def test_recording_stores_outputs_and_the_message_with_events_at_once(project: Project) -> None:
    _setup(project)
    bases = edit_bases(project.store, project.chat_id)
    reply = Message(role="assistant", parts=[TextPart("Done.")], model="m")
    got = record_outputs(
        project.store,
        project.chat_id,
        {"w.py": "w changed\n", "new.py": "n\n"},
        bases=bases,
        message=reply,
    )
    assert isinstance(got, Recorded) and got.message is not None
    outputs = {o.path: o for o in project.store.outputs(project.chat_id)}
    assert outputs["w.py"].base_file_id == bases["w.py"].file_id and not outputs["w.py"].added
    assert outputs["new.py"].added and outputs["new.py"].base_file_id == ""
    stored = project.store.messages(project.chat_id)[-1]
    assert stored.text() == "Done."
    events = [p.event for p in stored.parts if isinstance(p, EventPart)]
    assert [(e.action, e.path, e.added) for e in events] == [
        ("assistant_wrote", "w.py", False),
        ("assistant_wrote", "new.py", True),
    ]


def test_a_read_only_path_refuses_the_whole_response(project: Project) -> None:
    _setup(project)
    got = record_outputs(project.store, project.chat_id, {"w.py": "ok\n", "r.py": "no\n"})
    assert isinstance(got, Problem) and got.kind == "readonly"
    assert project.store.outputs(project.chat_id) == []


def test_a_base_that_changed_meanwhile_refuses_the_whole_response(project: Project) -> None:
    _setup(project)
    bases = edit_bases(project.store, project.chat_id)
    project.write("w.py", "edited\n")
    context.update(project.store, project.chat_id, Target("w.py"))
    got = record_outputs(project.store, project.chat_id, {"w.py": "model\n"}, bases=bases)
    assert isinstance(got, Problem) and got.kind == "stale_base"
    assert project.store.outputs(project.chat_id) == []


def test_paths_outside_or_protected_are_refused(project: Project) -> None:
    for path in ("../escape.py", ".git/hooks/pre-commit", "/etc/passwd", "a/../b.py"):
        got = record_outputs(project.store, project.chat_id, {path: "x\n"})
        assert isinstance(got, Problem) and got.kind == "invalid_path", path


def test_writing_back_the_snapshot_drops_the_pending_change(project: Project) -> None:
    _setup(project)
    project.model_writes("w.py", "w2\n")
    got = record_outputs(project.store, project.chat_id, {"w.py": "w\n"})
    assert isinstance(got, Recorded) and got.reverted == ["w.py"]
    assert project.store.outputs(project.chat_id) == []
    unchanged = record_outputs(project.store, project.chat_id, {"w.py": "w\n"})
    assert isinstance(unchanged, Recorded) and unchanged.unchanged == ["w.py"]


def test_global_chats_offer_no_writable_base_and_record_nothing(project: Project) -> None:
    from bb7.state.chats import new_chat
    from bb7.state.store import open_global

    glob = open_global()
    chat = new_chat(glob)
    project.write("w.py", "w\n")
    context.add(glob, chat.id, Target(str(project.root / "w.py")))
    assert [b.writable for b in edit_bases(glob, chat.id).values()] == [False]
    got = record_outputs(glob, chat.id, {"w.py": "x\n"})
    assert isinstance(got, Problem) and got.kind == "global"
    glob.close()
