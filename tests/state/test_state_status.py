"""Every status transition, driven through the real operations on real files."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from state_helpers import Project

from bb7.refusal import Problem
from bb7.state import context, outputs
from bb7.state.context import Target
from bb7.state.local import LocalText
from bb7.state.merge import finish_merge
from bb7.state.status import STATUSES, applies_alone, facts_of, file_statuses, status_of

ORIGINAL = "one\ntwo\nthree\n"


def _ok(value: object) -> None:
    assert not isinstance(value, Problem), value


OPS: dict[str, Callable[[Project], None]] = {
    "add": lambda p: _ok(context.add(p.store, p.chat_id, Target("f.txt"))),
    "add_ro": lambda p: _ok(context.add(p.store, p.chat_id, Target("f.txt"), readonly=True)),
    "add_section": lambda p: _ok(context.add(p.store, p.chat_id, Target("f.txt", 2, 3))),
    "edit_local": lambda p: p.write("f.txt", "one\nTWO\nthree\n"),
    "edit_last_line": lambda p: p.write("f.txt", "one\ntwo\nTHREE\n"),
    "crlf_local": lambda p: p.write("f.txt", "one\r\ntwo\r\nthree\r\n"),
    "no_final_newline": lambda p: p.write("f.txt", "one\ntwo\nthree"),
    "delete_local": lambda p: (p.root / "f.txt").unlink(),
    "create_local": lambda p: p.write("f.txt", "someone else's file\n"),
    "model_writes": lambda p: p.model_writes("f.txt", "one\ntwo\nthree\nfour\n"),
    "model_reverts": lambda p: p.model_writes("f.txt", ORIGINAL),
    "apply": lambda p: _ok(outputs.apply_output(p.store, p.chat_id, "f.txt")),
    "force_apply": lambda p: _ok(outputs.apply_output(p.store, p.chat_id, "f.txt", force=True)),
    "discard": lambda p: _ok(outputs.discard_output(p.store, p.chat_id, "f.txt")),
    "update": lambda p: _ok(context.update(p.store, p.chat_id, Target("f.txt"))),
    "undo": lambda p: _ok(outputs.undo_apply(p.store, p.chat_id, "f.txt")),
    "take_output_by_hand": lambda p: p.write("f.txt", "one\ntwo\nthree\nfour\n"),
    "finish_merge": lambda p: _ok(finish_merge(p.store, p.chat_id, "f.txt")),
    "set_readonly": lambda p: _ok(context.set_readonly(p.store, p.chat_id, Target("f.txt"), True)),
    "set_writable": lambda p: _ok(context.set_readonly(p.store, p.chat_id, Target("f.txt"), False)),
}

# (steps from a project where f.txt holds ORIGINAL, expected status of f.txt afterwards)
TRANSITIONS: list[tuple[list[str], str]] = [
    (["add"], ""),
    (["add", "edit_local"], "~"),
    (["add", "crlf_local"], ""),
    (["add", "no_final_newline"], ""),
    (["add", "delete_local"], "~"),
    (["add", "edit_local", "update"], ""),
    (["add", "model_writes"], "M"),
    (["add", "model_writes", "model_reverts"], ""),
    # The model appends after line 3: an edit of line 2 is rebased onto, one of line 3 overlaps.
    (["add", "model_writes", "edit_local"], "M"),
    (["add", "model_writes", "edit_last_line"], "~M"),
    (["add", "model_writes", "edit_local", "apply"], ""),
    (["add", "model_writes", "crlf_local"], "M"),
    (["add", "model_writes", "apply"], ""),
    (["add", "model_writes", "discard"], ""),
    (["add", "model_writes", "edit_local", "discard"], "~"),
    (["add", "model_writes", "edit_last_line", "force_apply"], ""),
    (["add", "model_writes", "edit_local", "update"], "M"),
    (["add", "model_writes", "apply", "undo"], "M"),
    (["add", "model_writes", "take_output_by_hand"], "M"),
    (["add", "model_writes", "take_output_by_hand", "finish_merge"], ""),
    (["add", "model_writes", "delete_local"], "~M"),
    (["add_ro"], "R"),
    (["add_ro", "edit_local"], "~R"),
    (["add_ro", "set_writable"], ""),
    (["add", "set_readonly"], "R"),
    (["add_section"], "S"),
    (["add_section", "edit_local"], "S"),
    (["delete_local", "model_writes"], "A"),
    (["delete_local", "model_writes", "create_local"], "!A"),
    (["model_writes"], "!A"),
    (["delete_local", "model_writes", "apply"], ""),
    (["delete_local", "model_writes", "apply", "undo"], "A"),
    (["model_writes", "force_apply"], ""),
]


@pytest.mark.parametrize(
    ("steps", "expected"), TRANSITIONS, ids=["+".join(s) for s, _ in TRANSITIONS]
)
def test_status_after_steps(project: Project, steps: list[str], expected: str) -> None:
    project.write("f.txt", ORIGINAL)
    for step in steps:
        OPS[step](project)
    assert project.status("f.txt") == expected


def test_unsaved_buffer_text_counts_instead_of_the_disk(project: Project) -> None:
    project.write("f.txt", ORIGINAL)
    OPS["add"](project)
    assert project.status("f.txt", {"f.txt": LocalText("edited in the buffer\n", 7)}) == "~"
    assert project.status("f.txt", {"f.txt": LocalText(ORIGINAL.replace("\n", "\r\n"))}) == ""
    assert project.status("f.txt") == ""


@pytest.mark.parametrize(
    ("kind", "snapshot", "output", "local", "exists", "expected"),
    [
        ("section", "a", None, "b", True, "S"),
        (None, None, None, None, False, "A"),
        (None, None, None, "x", True, "!A"),
        (None, None, None, None, True, "!A"),  # exists but unreadable (binary, too large)
        ("readonly", "a\n", None, "a\r\n", True, "R"),
        ("external", "a\n", None, "b\n", True, "~R"),
        ("writable", "a\n", None, "a", True, ""),
        ("writable", "a\n", None, None, False, "~"),
        ("writable", "a\n", "b\n", "a\n", True, "M"),
        ("writable", "a\n", "a\r\n", "a\n", True, ""),
        ("writable", "a\n", "b\n", "c\n", True, "~M"),
        ("writable", "a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n", True, "M"),
        ("writable", "a\nb\nc\n", "A\nb\nc\n", None, False, "~M"),
    ],
)
def test_status_of_is_a_pure_function_of_its_inputs(
    kind: str | None,
    snapshot: str | None,
    output: str | None,
    local: str | None,
    exists: bool,
    expected: str,
) -> None:
    assert status_of(kind, snapshot, output, local, exists) == expected


def test_json_rows_carry_tokens_and_the_local_view(project: Project) -> None:
    from bb7.state.status import file_statuses

    project.write("f.txt", "x" * 40)
    OPS["add"](project)
    project.model_writes("f.txt", "y" * 80)
    (row,) = file_statuses(project.store, project.chat_id)
    assert (row.status, row.original_tokens, row.output_tokens, row.tokens) == ("M", 10, 20, 30)
    assert row.local_hash and row.has_output


def test_statuses_of_some_paths_leave_the_others_out(project: Project) -> None:
    from bb7.state.status import file_statuses

    for name in ("a.txt", "b.txt"):
        project.write(name, ORIGINAL)
        _ok(context.add(project.store, project.chat_id, Target(name)))
    project.model_writes("c.txt", "new\n")
    rows = file_statuses(project.store, project.chat_id, paths={"b.txt", "c.txt"})
    assert [(r.path, r.status) for r in rows] == [("b.txt", ""), ("c.txt", "A")]


@pytest.mark.parametrize(
    ("steps", "expected"),
    [t for t in TRANSITIONS if t[1] in ("M", "A", "!A", "~M", "~", "R")],
    ids=lambda v: "+".join(v) if isinstance(v, list) else v,
)
def test_the_facts_declared_per_status_are_what_the_core_does(
    project: Project, steps: list[str], expected: str
) -> None:
    """`STATUSES` is read by apply-all, the host and the generated Lua: each fact holds for a
    file that reached the status, so a letter's facts cannot drift from what is decided."""
    project.write("f.txt", ORIGINAL)
    for step in steps:
        OPS[step](project)
    row = next(r for r in file_statuses(project.store, project.chat_id) if r.path == "f.txt")
    facts = facts_of(row.status)
    assert row.status == expected
    assert facts.pending == row.has_output
    assert facts.new_file == (project.store.entry(project.chat_id, "f.txt") is None)
    pending = project.store.output(project.chat_id, "f.txt")
    [report] = outputs.apply_all(project.store, project.chat_id) or [None]
    if not facts.pending:
        assert report is None
        return
    assert pending is not None and report is not None
    assert report.applied == applies_alone(row.status)
    left = project.store.output(project.chat_id, "f.txt")
    assert (left is None) == applies_alone(row.status)


def test_the_contract_and_the_generated_lua_take_the_statuses_from_the_core() -> None:
    from bb7.host.protocol import vocab

    assert vocab.STATUSES is STATUSES
    assert {f.status for f in STATUSES if applies_alone(f.status)} == {"M", "A"}
