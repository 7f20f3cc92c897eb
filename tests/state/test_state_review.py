"""The inline review without an editor: hunks on the local text, accept and reject one hunk,
signs that tell the model's lines from the user's, and the merge that leaves overlaps pending."""

from __future__ import annotations

from state_helpers import Project

from bb7.prompt.assemble import HistoryEvent
from bb7.prompt.config import SendConfig
from bb7.prompt.history import history
from bb7.prompt.turn import build_turn
from bb7.refusal import Problem
from bb7.state import context
from bb7.state.context import Target
from bb7.state.local import LocalText
from bb7.state.merge import finish_merge, merge_output
from bb7.state.review import accept_hunks, current, reject_hunks
from bb7.text import hunks
from bb7.text.merge import plan_merge

BASE = "".join(f"line {i}\n" for i in range(1, 11))


def _change(text: str, line: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[line - 1] = new + "\n"
    return "".join(lines)


TWO_HUNKS = _change(_change(BASE, 3, "model 3"), 8, "model 8")


def test_hunks_are_the_models_changes_placed_on_the_local_lines() -> None:
    assert hunks.hunks(BASE, BASE, TWO_HUNKS) == [
        hunks.Hunk(start=2, removed=1, added=["model 3"]),
        hunks.Hunk(start=7, removed=1, added=["model 8"]),
    ]


def test_the_users_own_edits_are_never_hunks_and_shift_the_hunks() -> None:
    local = BASE.replace("line 1\n", "line 0\nline 1\n")
    assert hunks.hunks(BASE, local, TWO_HUNKS) == [
        hunks.Hunk(start=3, removed=1, added=["model 3"]),
        hunks.Hunk(start=8, removed=1, added=["model 8"]),
    ]


def test_a_hunk_over_a_user_edit_is_an_overlap() -> None:
    local = _change(BASE, 3, "mine 3")
    first = hunks.hunks(BASE, local, TWO_HUNKS)[0]
    assert first == hunks.Hunk(start=2, removed=1, added=["model 3"], overlap=True)


def test_insertions_and_deletions() -> None:
    output = BASE.replace("line 5\n", "").replace("line 9\n", "line 9\nnew a\nnew b\n")
    assert hunks.hunks(BASE, BASE, output) == [
        hunks.Hunk(start=4, removed=1, added=[]),
        hunks.Hunk(start=9, removed=0, added=["new a", "new b"]),
    ]


def test_signs_mark_the_models_lines_apart_from_the_users() -> None:
    local = _change(BASE, 5, "mine 5")
    marks = hunks.marks(BASE, local, TWO_HUNKS)
    assert (marks.model, marks.user) == ([3, 8], [5])


def test_a_user_edit_next_to_a_model_change_keeps_its_own_sign() -> None:
    local = _change(BASE, 4, "mine 4")
    marks = hunks.marks(BASE, local, _change(BASE, 3, "model 3"))
    assert (marks.model, marks.user) == ([3], [4])


def test_signs_of_insertions_and_deletions_mark_the_line_they_follow() -> None:
    local = BASE.replace("line 7\n", "")
    output = BASE.replace("line 2\n", "line 2\nnew\n")
    marks = hunks.marks(BASE, local, output)
    assert (marks.model, marks.user) == ([2], [6])


def test_accept_takes_one_hunk_into_local_and_snapshot() -> None:
    hunk = hunks.hunks(BASE, BASE, TWO_HUNKS)[0]
    split = hunks.accept(BASE, BASE, TWO_HUNKS, hunk)
    assert split is not None
    assert split.local == split.base == _change(BASE, 3, "model 3")
    assert hunks.hunks(split.base, split.local, split.output) == [
        hunks.Hunk(start=7, removed=1, added=["model 8"])
    ]


def test_reject_drops_one_hunk_from_the_output() -> None:
    hunk = hunks.hunks(BASE, BASE, TWO_HUNKS)[1]
    split = hunks.reject(BASE, BASE, TWO_HUNKS, hunk)
    assert split is not None
    assert (split.local, split.output) == (BASE, _change(BASE, 3, "model 3"))
    assert (split.lines, split.in_output) == ((8, 8), True)


def test_a_hunk_the_texts_no_longer_have_is_refused() -> None:
    stale = hunks.Hunk(start=2, removed=1, added=["something else"])
    assert hunks.accept(BASE, BASE, TWO_HUNKS, stale) is None
    assert hunks.reject(BASE, BASE, TWO_HUNKS, stale) is None


def test_crlf_local_text_keeps_its_line_endings_on_accept() -> None:
    local = BASE.replace("\n", "\r\n")
    hunk = hunks.hunks(BASE, local, TWO_HUNKS)[0]
    split = hunks.accept(BASE, local, TWO_HUNKS, hunk)
    assert split is not None and split.local == _change(BASE, 3, "model 3").replace("\n", "\r\n")


def test_plan_merge_keeps_both_sides_and_leaves_overlaps_pending() -> None:
    local = _change(_change(BASE, 3, "mine 3"), 5, "mine 5")
    plan = plan_merge(BASE, local, TWO_HUNKS)
    assert plan.local == _change(local, 8, "model 8")
    assert plan.overlaps == [(3, 3)]
    assert "<<<<<<<" not in plan.local
    # What stays pending is exactly the overlap, on top of the merged text.
    assert hunks.hunks(plan.base, plan.local, plan.output) == [
        hunks.Hunk(start=2, removed=1, added=["model 3"], overlap=True)
    ]


# -- in the store ------------------------------------------------------------------------------


def _pending(project: Project, output: str) -> None:
    project.write("f.txt", BASE)
    context.add(project.store, project.chat_id, Target("f.txt"))
    project.model_writes("f.txt", output)


def test_accept_then_reject_leaves_exactly_the_accepted_hunk(project: Project) -> None:
    _pending(project, TWO_HUNKS)
    put: list[str] = []
    first = hunks.hunks(BASE, BASE, TWO_HUNKS)[0]
    left = accept_hunks(project.store, project.chat_id, "f.txt", [first], None, put.append)
    assert not isinstance(left, Problem) and len(left.hunks) == 1
    assert put == [_change(BASE, 3, "model 3")]
    assert project.read("f.txt") == BASE  # nothing written to disk
    buffers = {"f.txt": LocalText(put[0])}
    left = reject_hunks(project.store, project.chat_id, "f.txt", [left.hunks[0]], buffers)
    assert not isinstance(left, Problem) and left.hunks == []
    assert project.store.output(project.chat_id, "f.txt") is None
    assert project.status("f.txt", buffers) == ""


def test_a_rejected_hunk_reaches_the_models_history(project: Project) -> None:
    _pending(project, TWO_HUNKS)
    hunk = hunks.hunks(BASE, BASE, TWO_HUNKS)[1]
    reject_hunks(project.store, project.chat_id, "f.txt", [hunk], None)
    events = [e for e in history(project.store.messages(project.chat_id))]
    rejected = [e for e in events if isinstance(e, HistoryEvent)][-1]
    assert (rejected.action, rejected.start_line, rejected.end_line) == ("user_rejected_hunk", 8, 8)
    left = current(project.store, project.chat_id, "f.txt")
    assert not isinstance(left, Problem)
    assert left.hunks == [hunks.Hunk(start=2, removed=1, added=["model 3"])]


def test_a_failed_put_changes_nothing(project: Project) -> None:
    _pending(project, TWO_HUNKS)

    def fail(_: str) -> None:
        raise OSError("its buffer changed just now")

    hunk = hunks.hunks(BASE, BASE, TWO_HUNKS)[0]
    refused = accept_hunks(project.store, project.chat_id, "f.txt", [hunk], None, fail)
    assert isinstance(refused, Problem) and "changed just now" in refused.message
    assert project.status("f.txt") == "M"
    left = current(project.store, project.chat_id, "f.txt")
    assert not isinstance(left, Problem) and len(left.hunks) == 2


def test_merge_output_keeps_overlaps_pending(project: Project) -> None:
    _pending(project, TWO_HUNKS)
    local = _change(_change(BASE, 3, "mine 3"), 5, "mine 5")
    put: list[str] = []
    buffers = {"f.txt": LocalText(local)}
    merged = merge_output(project.store, project.chat_id, "f.txt", buffers, put.append)
    assert not isinstance(merged, Problem) and merged.overlaps == [(3, 3)]
    assert put == [_change(local, 8, "model 8")]
    after = {"f.txt": LocalText(put[0])}
    assert project.status("f.txt", after) == "~M"
    left = current(project.store, project.chat_id, "f.txt", after)
    assert not isinstance(left, Problem)
    assert left.hunks == [hunks.Hunk(start=2, removed=1, added=["model 3"], overlap=True)]


def test_accepting_all_takes_every_hunk_into_the_buffer_at_once(project: Project) -> None:
    output = TWO_HUNKS.replace("line 5\n", "").replace("line 9\n", "line 9\nnew\n")
    _pending(project, output)
    put: list[str] = []
    left = accept_hunks(project.store, project.chat_id, "f.txt", None, None, put.append)
    assert not isinstance(left, Problem) and left.hunks == []
    assert put == [output]
    assert project.store.output(project.chat_id, "f.txt") is None


def test_rejecting_all_names_each_hunk_in_the_models_version(project: Project) -> None:
    _pending(project, TWO_HUNKS)
    left = reject_hunks(project.store, project.chat_id, "f.txt", None, None)
    assert not isinstance(left, Problem) and left.hunks == []
    events = [e for e in history(project.store.messages(project.chat_id))]
    rejected = [
        (e.start_line, e.end_line)
        for e in events
        if isinstance(e, HistoryEvent) and e.action == "user_rejected_hunk"
    ]
    assert rejected == [(8, 8), (3, 3)]
    assert project.status("f.txt") == ""


def test_a_new_file_is_one_hunk_and_accepting_it_fills_the_buffer(project: Project) -> None:
    project.model_writes("new.txt", "a\nb\n")
    left = current(project.store, project.chat_id, "new.txt")
    assert not isinstance(left, Problem)
    assert left.hunks == [hunks.Hunk(start=0, removed=0, added=["a", "b"])]
    put: list[str] = []
    done = accept_hunks(project.store, project.chat_id, "new.txt", None, None, put.append)
    assert not isinstance(done, Problem) and done.hunks == []
    assert put == ["a\nb\n"]
    assert not (project.root / "new.txt").exists()  # the buffer holds it until :w
    assert project.status("new.txt", {"new.txt": LocalText(put[0])}) == ""


# -- what the model is told of what the user did -----------------------------------------------


def _events(project: Project, *actions: str) -> list:  # type: ignore[type-arg]
    return [
        part.event
        for message in project.store.messages(project.chat_id)
        for part in message.parts
        if hasattr(part, "event") and part.event.action in actions
    ]


def test_an_amended_hunk_is_taken_as_amended_and_recorded_as_the_difference(
    project: Project,
) -> None:
    _pending(project, TWO_HUNKS)
    first = hunks.hunks(BASE, BASE, TWO_HUNKS)[0]
    put: list[str] = []
    left = accept_hunks(
        project.store, project.chat_id, "f.txt", [first], None, put.append, amended=["mine 3"]
    )
    assert not isinstance(left, Problem)
    assert left.hunks == [hunks.Hunk(start=7, removed=1, added=["model 8"])]
    assert put == [_change(BASE, 3, "mine 3")]
    output = project.store.output(project.chat_id, "f.txt")
    assert output is not None and project.store.blob(output.blob) == _change(TWO_HUNKS, 3, "mine 3")
    (amended,) = _events(project, "user_amended_hunk", "user_accepted_hunk")
    assert (amended.action, amended.start_line, amended.end_line) == ("user_amended_hunk", 3, 3)
    assert amended.diff == "-model 3\n+mine 3\n"
    # The next request names the amendment.
    turn = build_turn(project.store, project.chat_id, "Next?", SendConfig())
    prompt = "".join(part.text for part in turn.prompt.user)
    assert "action=user_amended_hunk path=f.txt" in prompt
    assert " lines=3-3\n-model 3\n+mine 3\n" in prompt


def test_a_hunk_amended_to_no_lines_deletes_its_lines() -> None:
    hunk = hunks.hunks(BASE, BASE, TWO_HUNKS)[0]
    split = hunks.accept(BASE, BASE, TWO_HUNKS, hunk, amended=[])
    assert split is not None and split.local == BASE.replace("line 3\n", "")
    assert split.output == TWO_HUNKS.replace("model 3\n", "")


def test_a_hunk_taken_as_proposed_is_named_while_the_rest_stays_pending(
    project: Project,
) -> None:
    _pending(project, TWO_HUNKS)
    second = hunks.hunks(BASE, BASE, TWO_HUNKS)[1]
    accept_hunks(project.store, project.chat_id, "f.txt", [second], None, lambda _: None)
    (taken,) = _events(project, "user_amended_hunk", "user_accepted_hunk")
    assert (taken.action, taken.start_line, taken.diff) == ("user_accepted_hunk", 8, "")


def test_a_rejected_hunk_keeps_the_users_reason_on_one_line(project: Project) -> None:
    _pending(project, TWO_HUNKS)
    hunk = hunks.hunks(BASE, BASE, TWO_HUNKS)[0]
    reject_hunks(project.store, project.chat_id, "f.txt", [hunk], None, reason=" keep\nline 3 ")
    (rejected,) = _events(project, "user_rejected_hunk")
    assert rejected.reason == "keep line 3"


def test_merge_records_the_hunks_it_took_and_not_the_overlaps_left(project: Project) -> None:
    _pending(project, TWO_HUNKS)
    local = _change(BASE, 3, "mine 3")
    merged = merge_output(
        project.store, project.chat_id, "f.txt", {"f.txt": LocalText(local)}, lambda _: None
    )
    assert not isinstance(merged, Problem) and merged.overlaps == [(3, 3)]
    (kept,) = _events(project, "user_accepted_hunk", "user_amended_hunk")
    assert (kept.action, kept.start_line) == ("user_accepted_hunk", 8)


def test_a_vimdiff_merge_records_the_hunks_taken_and_leaves_the_rest_pending(
    project: Project,
) -> None:
    _pending(project, TWO_HUNKS)
    by_hand = _change(_change(BASE, 3, "model 3"), 8, "model 8, but mine")
    done = finish_merge(project.store, project.chat_id, "f.txt", {"f.txt": LocalText(by_hand)})
    assert not isinstance(done, Problem) and done.outcome == "partial"
    (kept,) = _events(project, "user_accepted_hunk", "user_amended_hunk")
    assert (kept.action, kept.start_line) == ("user_accepted_hunk", 3)


def test_a_hunk_accepted_then_undone_in_the_buffer_is_followed_at_the_next_send(
    project: Project,
) -> None:
    _pending(project, TWO_HUNKS)
    hunk = hunks.hunks(BASE, BASE, TWO_HUNKS)[0]
    put: list[str] = []
    accept_hunks(project.store, project.chat_id, "f.txt", [hunk], None, put.append)
    assert put == [_change(BASE, 3, "model 3")]
    undone = {"f.txt": LocalText(BASE)}  # `u` in the buffer: the snapshot is stale
    context.follow_edits(project.store, project.chat_id, buffers=undone)
    entry = project.store.entry(project.chat_id, "f.txt")
    assert entry is not None and project.store.blob(entry.blob) == BASE
    # The user's text is the truth: the other hunk stays pending on it.
    output = project.store.output(project.chat_id, "f.txt")
    assert output is not None and project.store.blob(output.blob) == _change(BASE, 8, "model 8")
    assert project.status("f.txt", undone) == "M"
