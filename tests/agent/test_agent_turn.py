"""An agent's turn through bb7's sandbox, with the scripted ACP agent: its writes become
pending outputs (the disk untouched), its reads see its own work, what it writes to disk
itself becomes an apply to review and undo, and every failure is one line that keeps what
was pending."""

from __future__ import annotations

from pathlib import Path

from agent_helpers import A_TEXT, HELLO, Sitting

from acp_agent import logged
from bb7.agent import events as ev
from bb7.chatview.conversation import render
from bb7.state.outputs import undo_apply
from bb7.state.review import accept_hunks, current, reject_hunks
from bb7.state.status import file_statuses
from waits import until

NEW_A = A_TEXT.replace("two = 2", "two = 22")
NEW_HELLO = "print('hello, world')\n"

THE_TURN = [
    {"think": "look first"},
    {"say": "Reading a.py. "},
    {"read": "a.py"},
    {"write": "a.py", "content": NEW_A},
    {"read": "a.py", "line": 2, "limit": 1},
    {"ask": "Edit hello.py", "kind": "edit"},
    {
        "tool": "t1",
        "title": "hello.py",
        "kind": "edit",
        "status": "pending",
        "diff": ["hello.py", HELLO, NEW_HELLO],
    },
    {"disk": "hello.py", "content": NEW_HELLO},
    {"tool_update": "t1", "status": "completed"},
    {"plan": [["read a.py", "completed"], ["edit hello.py", "in_progress"]]},
    {"say": "Done."},
]


def statuses(s: Sitting) -> dict[str, str]:
    return {r.path: r.status for r in file_statuses(s.store, s.chat_id)}


def by_agent(s: Sitting) -> list[str]:
    """The files marked `agent`: the agent's own write of each waits for review."""
    return [r.path for r in file_statuses(s.store, s.chat_id) if r.agent]


def test_a_turn_writes_into_the_sandbox_and_its_own_disk_write_is_caught(sitting: Sitting) -> None:
    session = sitting.session({"turns": [THE_TURN]}, answer=lambda q: q.choices[0].option_id)
    ended = sitting.turn(session, "Make two 22 and greet the world")
    assert ended.ok and ended.stop_reason == "end_turn"
    assert ended.pending == ["a.py"] and ended.applied == ["hello.py"]
    # The write is pending: the disk has a.py as it was.
    assert (sitting.root / "a.py").read_text() == A_TEXT
    assert statuses(sitting) == {"a.py": "M", "hello.py": ""}
    assert by_agent(sitting) == ["hello.py"]  # in sync, but its review is to come
    # The first read saw the disk, the second the agent's own pending text (line 2 only).
    reads = [entry["answer"]["result"]["content"] for entry in logged(sitting.log, "read")]
    assert reads == [A_TEXT, "two = 22\n"]
    assert logged(sitting.log, "write")[0]["answer"]["result"] == {}
    # The permission answer reached the agent.
    asked = logged(sitting.log, "asked")[0]["answer"]["result"]["outcome"]
    assert asked == {"outcome": "selected", "optionId": "once"}
    question = sitting.of(ev.Permission)[0]
    assert question.question == "scripted asks: Edit hello.py (edit)"
    assert [c.key for c in question.choices] == ["y", "a", "n"]
    # The stream: thought, text, the tool call updated in place with its diff, the plan.
    assert [e.text for e in sitting.of(ev.Chunk)] == ["Reading a.py. ", "Done."]
    tools = sitting.of(ev.Tool)
    assert [(t.id, t.status) for t in tools] == [("t1", "pending"), ("t1", "completed")]
    assert "+print('hello, world')" in tools[-1].diff
    assert [e.content for e in sitting.of(ev.PlanShown)[0].entries] == [
        "read a.py",
        "edit hello.py",
    ]
    lines = render(sitting.store.messages(sitting.chat_id)).lines
    assert "✓ edit · hello.py · completed" in lines
    assert "- [~] edit hello.py" in lines
    assert "Assistant modified: a.py" in lines
    assert "Agent changed on disk: hello.py (:BB7Review, :BB7UndoApply)" in lines


def test_the_agents_own_write_is_reviewed_hunk_by_hunk(sitting: Sitting) -> None:
    before = "a = 1\nb = 2\nc = 3\nd = 4\n"
    after = "a = 10\nb = 2\nc = 3\nd = 40\n"
    (sitting.root / "hello.py").write_text(before)
    session = sitting.session({"turns": [[{"disk": "hello.py", "content": after}]]})
    sitting.turn(session)
    shown = current(sitting.store, sitting.chat_id, "hello.py")
    assert not isinstance(shown, Exception)
    hunks = shown.hunks  # type: ignore[union-attr]
    assert [(h.start, h.removed, h.added, h.applied) for h in hunks] == [
        (0, 1, ["a = 1"], True),
        (3, 1, ["d = 4"], True),
    ]
    # Keep the first, reject the second: its line from before comes back.
    put: list[str] = []
    kept = accept_hunks(sitting.store, sitting.chat_id, "hello.py", [hunks[0]], None, put.append)
    assert [h.start for h in kept.hunks] == [3]  # type: ignore[union-attr]
    assert put == []  # keeping changes nothing on disk or in a buffer
    assert by_agent(sitting) == ["hello.py"]  # a hunk is left to review
    left = reject_hunks(
        sitting.store, sitting.chat_id, "hello.py", [hunks[1]], None, put=put.append
    )
    assert left.hunks == []  # type: ignore[union-attr]
    assert put == ["a = 10\nb = 2\nc = 3\nd = 4\n"]
    assert by_agent(sitting) == []  # reviewed: the mark goes


def test_undo_restores_the_lines_from_before_the_turn_and_keeps_the_users_edits(
    sitting: Sitting,
) -> None:
    before = "a = 1\nb = 2\nc = 3\nd = 4\n"
    (sitting.root / "hello.py").write_text(before)
    session = sitting.session(
        {"turns": [[{"disk": "hello.py", "content": "a = 10\nb = 2\nc = 3\nd = 4\n"}]]}
    )
    sitting.turn(session)
    # The user edits another line after the turn (in the editor, saved).
    (sitting.root / "hello.py").write_text("a = 10\nb = 2\nc = 3\nd = 4\ne = 5\n")
    done = undo_apply(sitting.store, sitting.chat_id, "hello.py")
    assert not isinstance(done, Exception), done
    assert (sitting.root / "hello.py").read_text() == "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"
    # The agent's version is pending again: nothing it did is lost either.
    assert statuses(sitting)["hello.py"] == "M" and by_agent(sitting) == []


def test_a_file_the_agent_created_or_deleted_on_disk(sitting: Sitting) -> None:
    session = sitting.session(
        {"turns": [[{"disk": "notes.txt", "content": "new\n"}, {"disk": "a.py", "content": None}]]}
    )
    ended = sitting.turn(session)
    assert sorted(ended.applied) == ["a.py", "notes.txt"]
    # The deleted file's text is pending as a new file (applying it restores it).
    assert statuses(sitting) == {"a.py": "A", "notes.txt": ""}
    undone = undo_apply(sitting.store, sitting.chat_id, "notes.txt")
    assert not isinstance(undone, Exception), undone
    assert not (sitting.root / "notes.txt").exists()


def test_the_sandbox_refuses_paths_as_for_the_models_own_tools(sitting: Sitting) -> None:
    (sitting.root / ".bb7" / "ignore").write_text("secret.env\n")
    (sitting.root / "secret.env").write_text("KEY=1\n")
    outside = sitting.tmp / "outside.txt"
    outside.write_text("x\n")
    session = sitting.session(
        {
            "turns": [
                [
                    {"read": str(outside)},
                    {"write": ".git/config", "content": "x"},
                    {"write": ".bb7/bb7.db", "content": "x"},
                    {"read": "secret.env"},
                    {"read": "missing.py"},
                ]
            ]
        }
    )
    sitting.turn(session)
    errors = [e["answer"]["error"]["message"] for e in logged(sitting.log, "answer")]
    assert len(errors) == 5, errors
    assert "outside the project" in errors[0]
    assert ".git/ holds git's or bb7's own state" in errors[1]
    assert ".bb7/ holds git's or bb7's own state" in errors[2]
    assert errors[3] == "secret.env is named by .bb7/ignore: bb7 keeps it from agents"
    assert "missing.py" in errors[4]
    notices = [n.message for n in sitting.of(ev.Notice)]
    assert (
        notices[3]
        == "read secret.env: secret.env is named by .bb7/ignore: bb7 keeps it from agents"
    )
    assert statuses(sitting) == {}


def test_a_read_sees_the_editors_unsaved_text(sitting: Sitting) -> None:
    from bb7.state.local import LocalText

    def buffer_text(path: str) -> LocalText | None:
        return LocalText("unsaved\n") if path == "a.py" else None

    session = sitting.session({"turns": [[{"read": "a.py"}]]}, buffer_text=buffer_text)
    sitting.turn(session)
    assert logged(sitting.log, "read")[0]["answer"]["result"]["content"] == "unsaved\n"


def test_the_permissions_policy_answers_without_asking(sitting: Sitting) -> None:
    script = {"turns": [[{"ask": "Edit a.py"}], [{"ask": "Edit a.py"}]]}
    session = sitting.session(script, permissions="reject")
    sitting.turn(session)
    session.permissions = "allow"
    sitting.turn(session)
    outcomes = [e["answer"]["result"]["outcome"] for e in logged(sitting.log, "asked")]
    assert outcomes == [
        {"outcome": "selected", "optionId": "reject"},
        {"outcome": "selected", "optionId": "once"},
    ]
    assert sitting.of(ev.Permission) == []


def test_cancel_sends_session_cancel_and_keeps_what_is_pending(sitting: Sitting) -> None:
    script = {
        "turns": [[{"write": "a.py", "content": NEW_A}, {"say": "working"}, {"wait_cancel": True}]]
    }
    session = sitting.session(script)
    handle = session.start_turn("Go")
    assert not isinstance(handle, Exception)
    wait_for_event(sitting, ev.Chunk)
    session.cancel()
    ended = handle.wait(30)  # type: ignore[union-attr]
    assert ended is not None and not ended.ok and ended.kind == "cancelled"
    assert ended.message == "scripted stopped its turn"
    assert any(
        e.get("received", {}).get("method") == "session/cancel"
        for e in logged(sitting.log, "received")
    )
    assert statuses(sitting) == {"a.py": "M"}
    messages = sitting.store.messages(sitting.chat_id)
    assert messages[-1].text() == "Turn cancelled: scripted stopped its turn"


def wait_for_event(s: Sitting, kind: type[object], timeout: float = 30.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not s.of(kind):
        assert time.monotonic() < deadline, f"no {kind.__name__} event"
        time.sleep(0.01)


def failed(s: Sitting, script: dict[str, object], **kwargs: object) -> ev.Ended:
    session = s.session(script, **kwargs)  # type: ignore[arg-type]
    ended = s.turn(session)
    assert not ended.ok
    assert "\n" not in ended.message
    return ended


def test_an_agent_that_dies_mid_turn_is_one_line_and_its_writes_stay_pending(
    sitting: Sitting,
) -> None:
    script = {"turns": [[{"write": "a.py", "content": NEW_A}, {"say": "half"}, {"crash": 7}]]}
    ended = failed(sitting, script)
    assert ended.kind == "exited"
    assert ended.message == "python exited with status 7: scripted agent: crashing as told" or (
        ended.message.endswith("exited with status 7: scripted agent: crashing as told")
    )
    assert statuses(sitting) == {"a.py": "M"}
    messages = sitting.store.messages(sitting.chat_id)
    assert messages[-2].text() == "half"  # what came is kept
    assert messages[-1].text().startswith("The agent failed: ")


def test_each_failure_to_talk_is_one_line(sitting: Sitting, tmp_path: Path) -> None:
    cases = [
        (
            {"protocol_version": 2, "turns": []},
            "version",
            "speaks ACP version 2; bb7 speaks version 1",
        ),
        ({"turns": [[{"raw": "this is not json"}]]}, "malformed", "sent a malformed message"),
        ({"turns": [[{"big": 9 * 1024 * 1024}]]}, "too_large", "sent a message over 8 MiB"),
        ({"initialize": "crash", "turns": []}, "exited", "exited with status 3"),
    ]
    for script, kind, said in cases:
        ended = failed(sitting, script)
        assert ended.kind == kind, (ended, script)
        assert said in ended.message, ended.message
    hung = failed(sitting, {"initialize": "hang", "turns": []}, init_timeout=0.3)
    assert hung.kind == "timeout"
    assert hung.message.endswith("did not answer initialize within 0.3 s; bb7 stopped it")


def test_an_agent_command_that_is_not_found_is_one_line(sitting: Sitting) -> None:
    from bb7.agent.agents import AgentSpec
    from bb7.agent.session import AgentSession

    ended_events: list[ev.AgentEvent] = []
    session = AgentSession(
        sitting.store,
        sitting.chat_id,
        AgentSpec("nope", ("bb7-no-such-agent", "acp")),
        ended_events.append,
    )
    handle = session.start_turn("hi")
    ended = handle.wait(30)  # type: ignore[union-attr]
    assert ended is not None and ended.kind == "not_found"
    assert ended.message == "agent command not found: bb7-no-such-agent (is it on $PATH?)"
    assert (
        sitting.store.messages(sitting.chat_id)[-1].text() == f"The agent failed: {ended.message}"
    )


def test_a_write_after_the_turn_ended_is_refused(sitting: Sitting) -> None:
    # Taken then, it would be pending with no turn to record or show it.
    late = [{"late": [{"write": "b.py", "content": "print('late')\n"}]}, {"say": "Done."}]
    session = sitting.session({"turns": [late]})
    ended = sitting.turn(session)
    assert ended.ok and ended.pending == []
    answer = until(lambda: logged(sitting.log, "write"), "the late write's answer")[0]["answer"]
    assert answer["error"]["message"] == (
        "the turn has ended: bb7 takes an agent's writes during its turns"
    )
    assert sitting.store.outputs(sitting.chat_id) == []
    assert not (sitting.root / "b.py").exists()


def test_the_agent_keeps_running_across_turns(sitting: Sitting) -> None:
    session = sitting.session({"turns": [[{"say": "one"}], [{"say": "two"}]]})
    sitting.turn(session)
    pid = session.client.peer.pid if session.client else None
    sitting.turn(session)
    assert session.client is not None and session.client.peer.pid == pid
    inits = [
        e for e in logged(sitting.log, "received") if e["received"].get("method") == "initialize"
    ]
    assert len(inits) == 1
    assert inits[0]["received"]["params"]["clientCapabilities"] == {
        "fs": {"readTextFile": True, "writeTextFile": True}
    }
