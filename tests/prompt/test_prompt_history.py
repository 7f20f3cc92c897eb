"""Stored messages and file events as the prompt's history (the one mapping between them)."""

from __future__ import annotations

from typing import get_args

from bb7.prompt.assemble import (
    ContextFile,
    HistoryEvent,
    HistoryMessage,
    HistoryTurn,
    PendingOutput,
)
from bb7.prompt.history import history, history_event
from bb7.prompt.markers import EVENT_MEANINGS, EventAction
from bb7.state.records import (
    Event,
    EventPart,
    Message,
    OutputRef,
    ReasoningPart,
    SnapshotRef,
    TextPart,
)

# Every action the state layer records (see bb7.state.records.Event).
STATE_ACTIONS = [
    "user_added",
    "user_removed",
    "user_updated",
    "user_set_readonly",
    "user_applied",
    "user_partially_applied",
    "user_discarded",
    "user_undid_apply",
    "assistant_wrote",
    "fork_warning_modified",
    "fork_warning_deleted",
]


def test_every_state_action_maps_to_an_explained_prompt_action_or_is_left_out() -> None:
    mapped = {a: history_event(Event(action=a, path="a.py")) for a in STATE_ACTIONS}
    left_out = sorted(a for a, e in mapped.items() if e is None)
    assert left_out == ["fork_warning_deleted", "fork_warning_modified"]
    for event in mapped.values():
        if event is not None:
            assert event.action in get_args(EventAction) and event.action in EVENT_MEANINGS


def test_the_read_only_flag_picks_set_readonly_or_set_writable() -> None:
    on = history_event(Event(action="user_set_readonly", path="a.py", readonly=True))
    off = history_event(Event(action="user_set_readonly", path="a.py", readonly=False))
    assert (on and on.action, off and off.action) == ("user_set_readonly", "user_set_writable")


def test_ids_and_section_lines_are_kept_and_empty_ones_dropped() -> None:
    section = Event(action="user_added", path="a.py", file_id="1234abcd", start_line=3, end_line=9)
    assert history_event(section) == HistoryEvent(
        action="user_added", path="a.py", file_id="1234abcd", start_line=3, end_line=9
    )
    wrote = Event(action="assistant_wrote", path="b.py", file_id="22", prev_file_id="11")
    assert history_event(wrote) == HistoryEvent(
        action="assistant_wrote", path="b.py", file_id="22", prev_file_id="11"
    )


def test_messages_give_their_text_and_events_in_order_without_reasoning() -> None:
    messages = [
        Message(role="event", parts=[EventPart(Event(action="user_added", path="a.py"))]),
        Message(role="user", parts=[TextPart("Fix a.py")]),
        Message(
            role="assistant",
            parts=[
                ReasoningPart("thinking"),
                TextPart("Fixed."),
                EventPart(Event(action="assistant_wrote", path="a.py", file_id="9")),
            ],
        ),
        Message(role="system", parts=[TextPart("Response cancelled by the user.")]),
        Message(role="assistant", parts=[ReasoningPart("only thoughts")]),
    ]
    assert history(messages) == [
        HistoryEvent(action="user_added", path="a.py"),
        HistoryMessage(role="user", text="Fix a.py"),
        HistoryMessage(role="assistant", text="Fixed."),
        HistoryEvent(action="assistant_wrote", path="a.py", file_id="9"),
        HistoryMessage(role="system", text="Response cancelled by the user."),
    ]


def test_each_user_message_is_preceded_by_the_files_it_was_sent_with() -> None:
    blobs = {"b1": "a = 1\n", "b2": "x\n", "b3": "a = 2\n"}
    sent = Message(
        role="user",
        parts=[TextPart("Fix a.py")],
        context_snapshot=[
            SnapshotRef(path="a.py", kind="writable", blob="b1", file_id="f1"),
            SnapshotRef(
                path="b.py", kind="section", blob="b2", file_id="f2", start_line=2, end_line=2
            ),
        ],
        outputs_snapshot=[OutputRef(path="a.py", blob="b3", file_id="f3", base_file_id="f1")],
    )
    assert history([sent], blobs.__getitem__) == [
        HistoryTurn(
            files=[
                ContextFile("a.py", "a = 1\n", file_id="f1"),
                ContextFile("b.py", "x\n", readonly=True, start_line=2, end_line=2, file_id="f2"),
            ],
            outputs=[PendingOutput("a.py", "a = 2\n", file_id="f3", added=False)],
        ),
        HistoryMessage(role="user", text="Fix a.py"),
    ]
    assert history([sent]) == [HistoryMessage(role="user", text="Fix a.py")]
