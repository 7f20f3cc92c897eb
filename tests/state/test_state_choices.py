"""An answer whose only problem is an edit matching several places: it lands with that edit
waiting for the user's choice (`bb7.state.choices`), nothing written until then; taken in the
review or by `choose`, refused with the model told, and apply all or nothing meanwhile."""

from __future__ import annotations

import json

from state_helpers import Project

from bb7.chat.waiting import waiting
from bb7.formats.apply import FileState, Result, apply_response
from bb7.formats.modes import DiffMode
from bb7.prompt.config import SendConfig
from bb7.prompt.turn import build_turn
from bb7.refusal import Problem
from bb7.state import choices, context, outputs
from bb7.state.context import Target
from bb7.state.local import LocalText
from bb7.state.responses import edit_bases, record_outputs
from bb7.state.review import accept_hunks, current, reject_hunks
from bb7.state.status import file_statuses

APP = "# tools\n\ndef a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"
APP += "\n\ndef c():\n    return 3\n"
GOOD = APP.replace("# tools", "# the tools").replace("return 3", "return 4")
MODE: DiffMode = "search_replace_multi"
IN_B = GOOD.replace("def b():\n    x = 1", "def b():\n    x = 2")


def _edits(*pairs: tuple[str, str]) -> str:
    edits = [{"path": "app.py", "old_string": old, "new_string": new} for old, new in pairs]
    return json.dumps({"tool_calls": [{"name": "edit_file", "arguments": {"edits": edits}}]})


# Two edits that match one place each, and between them one that matches two (lines 4 and 9).
THREE = _edits(("# tools", "# the tools"), ("    x = 1\n", "    x = 2\n"), ("return 3", "return 4"))


def _answer(project: Project, response: str = THREE) -> Result:
    """`response` applied to the chat's files as a send does, and recorded when it applies."""
    bases = edit_bases(project.store, project.chat_id)
    files = {p: FileState(content=b.content, base=b.base) for p, b in bases.items()}
    result = apply_response(files, response, MODE, root=project.root, choices=True)
    if result.ok:
        recorded = record_outputs(
            project.store,
            project.chat_id,
            {change.path: change.content for change in result.files},
            bases=bases,
            choices=waiting(result),
        )
        assert not isinstance(recorded, Problem), recorded
    return result


def _with_app(project: Project) -> Project:
    project.write("app.py", APP)
    assert not isinstance(context.add(project.store, project.chat_id, Target("app.py")), Problem)
    return project


def _output(project: Project) -> str | None:
    output = project.store.output(project.chat_id, "app.py")
    return None if output is None else project.store.blob(output.blob)


def test_an_answer_whose_only_problem_is_an_ambiguous_edit_lands_with_it_waiting(
    project: Project,
) -> None:
    _with_app(project)
    result = _answer(project)
    assert result.ok and result.errors == []
    ((choice,),) = [result.choices]
    assert [(p.start_line, p.end_line) for p in choice.places] == [(4, 4), (9, 9)]
    # The two good edits are pending; the file is M, marked for a choice; nothing written.
    assert _output(project) == GOOD
    (row,) = file_statuses(project.store, project.chat_id)
    assert (row.status, row.choose) == ("M", 1)
    assert project.read("app.py") == APP
    # Apply stays all or nothing: the rest is not written without the choice.
    refused = outputs.apply_output(project.store, project.chat_id, "app.py")
    assert isinstance(refused, Problem) and refused.kind == "choose"
    assert project.read("app.py") == APP
    # Without choices (bb7 apply), the same answer fails whole, naming both places.
    files = {"app.py": FileState(content=APP)}
    again = apply_response(files, THREE, MODE, root=project.root)
    assert not again.ok and [e.kind for e in again.errors] == ["ambiguous"]
    assert "lines 4, 9" in again.errors[0].message


def _files_line(project: Project) -> str:
    """The line of app.py in the next request's list of files."""
    turn = build_turn(project.store, project.chat_id, "next", SendConfig(model="test/model"))
    latest = turn.prompt.user[-1].text  # type: ignore[union-attr]
    (line,) = [line for line in latest.splitlines() if " app.py " in line]
    return line.split(" ", 2)[2]


def test_the_next_request_says_which_edits_wait_for_a_choice_until_it_is_made(
    project: Project,
) -> None:
    _with_app(project)
    _answer(project)
    # The model sees its pending version without the edit: it is told the edit waits there.
    assert _files_line(project) == "app.py rw pending_output choosing=1"
    assert "choosing=<k>: k of your edits to the file matched several places" in (
        build_turn(project.store, project.chat_id, "", SendConfig(model="m")).prompt.system
    )
    assert not isinstance(choices.choose(project.store, project.chat_id, "app.py", 2), Problem)
    assert _files_line(project) == "app.py rw pending_output"


def test_the_next_request_tells_the_model_its_edit_was_refused(project: Project) -> None:
    _with_app(project)
    _answer(project)
    assert choices.refuse(project.store, project.chat_id, "app.py", reason="only in b") == 0
    turn = build_turn(project.store, project.chat_id, "next", SendConfig(model="test/model"))
    sent = "\n".join(part.text for part in turn.prompt.user if hasattr(part, "text"))
    (line,) = [line for line in sent.splitlines() if "user_refused_edit" in line]
    assert "path=app.py" in line and "lines=4-4" in line and "only in b" in line
    assert "-    x = 1\n+    x = 2" in sent
    assert _files_line(project) == "app.py rw pending_output"


def test_another_failure_fails_the_answer_and_the_ambiguity_is_among_its_errors(
    project: Project,
) -> None:
    _with_app(project)
    response = _edits(("    x = 1\n", "    x = 2\n"), ("return 9", "return 4"))
    result = _answer(project, response)
    assert not result.ok and result.choices == []
    assert [e.kind for e in result.errors] == ["ambiguous", "not_found"]
    assert _output(project) is None


def test_choosing_a_place_puts_the_edit_there_and_apply_writes_it(project: Project) -> None:
    _with_app(project)
    _answer(project)
    found = choices.places(
        project.store, project.chat_id, project.store.choices(project.chat_id, "app.py")[0]
    )
    assert not isinstance(found, Problem) and len(found.places) == 2
    assert isinstance(choices.choose(project.store, project.chat_id, "app.py", 3), Problem)
    chosen = choices.choose(project.store, project.chat_id, "app.py", 2)
    assert not isinstance(chosen, Problem)
    assert (chosen.place.start_line, chosen.left) == (9, 0)
    (row,) = file_statuses(project.store, project.chat_id)
    assert (row.status, row.choose) == ("M", 0)
    assert not isinstance(outputs.apply_output(project.store, project.chat_id, "app.py"), Problem)
    assert project.read("app.py") == IN_B


def test_refusing_the_edit_tells_the_model_and_keeps_the_rest_pending(project: Project) -> None:
    _with_app(project)
    _answer(project)
    left = choices.refuse(project.store, project.chat_id, "app.py", reason="  only in b ")
    assert left == 0
    assert _output(project) == GOOD
    (row,) = file_statuses(project.store, project.chat_id)
    assert (row.status, row.choose) == ("M", 0)
    (event,) = [
        part.event
        for message in project.store.messages(project.chat_id)
        for part in message.parts
        if hasattr(part, "event") and part.event.action == "user_refused_edit"
    ]
    assert (event.start_line, event.end_line, event.reason) == (4, 4, "only in b")
    assert event.diff == "-    x = 1\n+    x = 2\n"


def test_an_answer_whose_only_edit_waits_makes_the_file_pending_until_it_is_refused(
    project: Project,
) -> None:
    _with_app(project)
    _answer(project, _edits(("    x = 1\n", "    x = 2\n")))
    assert _output(project) == APP  # nothing else changed, but the file is pending
    assert project.status("app.py") == "M"
    assert choices.refuse(project.store, project.chat_id, "app.py") == 0
    assert _output(project) is None and project.status("app.py") == ""


def test_the_review_offers_each_place_and_accepting_one_takes_it_into_the_buffer(
    project: Project,
) -> None:
    _with_app(project)
    _answer(project)
    shown = current(project.store, project.chat_id, "app.py")
    assert not isinstance(shown, Problem)
    # The two good edits as hunks, and one hunk per place of the edit waiting.
    assert [(h.start, h.place, h.places) for h in shown.hunks] == [
        (0, 0, 0),
        (3, 1, 2),
        (8, 2, 2),
        (13, 0, 0),
    ]
    put: list[str] = []
    second = shown.hunks[2]
    left = accept_hunks(project.store, project.chat_id, "app.py", [second], None, put.append)
    assert not isinstance(left, Problem)
    assert put == [APP.replace("def b():\n    x = 1", "def b():\n    x = 2")]
    assert [(h.start, h.choice) for h in left.hunks] == [(0, 0), (13, 0)]  # the other place went
    assert project.store.choices(project.chat_id, "app.py") == []
    assert project.read("app.py") == APP  # the buffer holds it until :w


def test_rejecting_a_place_in_the_review_refuses_the_edit(project: Project) -> None:
    _with_app(project)
    _answer(project)
    shown = current(project.store, project.chat_id, "app.py")
    assert not isinstance(shown, Problem)
    buffers = {"app.py": LocalText(APP)}
    place = shown.hunks[1]
    left = reject_hunks(project.store, project.chat_id, "app.py", [place], buffers, reason="no")
    assert not isinstance(left, Problem)
    assert [h.choice for h in left.hunks] == [0, 0]
    assert project.store.choices(project.chat_id, "app.py") == []
    # Rejecting every hunk refuses what waits too, and nothing stays pending.
    _answer(project)
    done = reject_hunks(project.store, project.chat_id, "app.py", None, buffers)
    assert not isinstance(done, Problem) and done.hunks == []
    assert project.status("app.py") == ""


def test_a_place_next_to_another_hunk_is_its_own_hunk_and_taking_it_takes_it_alone(
    project: Project,
) -> None:
    # The waiting edit's first place (line 4) touches the good edit of line 3.
    app = APP.replace("def a():\n", "def a():\n    y = 0\n")
    project.write("app.py", app)
    assert not isinstance(context.add(project.store, project.chat_id, Target("app.py")), Problem)
    _answer(project, _edits(("    y = 0\n", "    y = 5\n"), ("    x = 1\n", "    x = 2\n")))
    shown = current(project.store, project.chat_id, "app.py")
    assert not isinstance(shown, Problem)
    assert [(h.start, h.removed, h.added, h.place) for h in shown.hunks] == [
        (3, 1, ["    y = 5"], 0),
        (4, 1, ["    x = 2"], 1),
        (9, 1, ["    x = 2"], 2),
    ]
    put: list[str] = []
    first = shown.hunks[1]
    left = accept_hunks(project.store, project.chat_id, "app.py", [first], None, put.append)
    assert not isinstance(left, Problem)
    assert put == [app.replace("y = 0\n    x = 1", "y = 0\n    x = 2")]  # that place alone
    assert [(h.start, h.added, h.place) for h in left.hunks] == [(3, ["    y = 5"], 0)]
    done = accept_hunks(project.store, project.chat_id, "app.py", None, None, put.append)
    assert not isinstance(done, Problem) and done.hunks == []
    assert put[-1] == app.replace("y = 0\n    x = 1", "y = 5\n    x = 2")
