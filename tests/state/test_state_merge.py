"""Three-way merge, and finishing a vimdiff merge (none / full / partial)."""

from __future__ import annotations

from state_helpers import Project

from bb7.refusal import Problem
from bb7.state import context, outputs
from bb7.state.context import Target
from bb7.state.merge import finish_merge
from bb7.text.merge import merge3

BASE = "".join(f"line {i}\n" for i in range(1, 11))


def _change(text: str, line: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[line - 1] = new + "\n"
    return "".join(lines)


def test_changes_on_different_lines_are_combined() -> None:
    local = _change(BASE, 2, "local 2")
    output = _change(BASE, 8, "output 8")
    merged = merge3(BASE, local, output)
    assert merged.conflicts == 0
    assert merged.text == _change(local, 8, "output 8")


def test_the_same_change_on_both_sides_is_taken_once() -> None:
    both = _change(BASE, 5, "same")
    assert merge3(BASE, both, both).text == both


def test_overlapping_changes_become_conflict_regions() -> None:
    merged = merge3(BASE, _change(BASE, 5, "mine"), _change(BASE, 5, "theirs"))
    assert merged.conflicts == 1
    assert "<<<<<<< local\nmine\n=======\ntheirs\n>>>>>>> output\n" in merged.text
    assert merged.text.startswith("line 1\n") and merged.text.endswith("line 10\n")


def test_prefer_output_resolves_conflicts_to_the_output() -> None:
    merged = merge3(BASE, _change(BASE, 5, "mine"), _change(BASE, 5, "theirs"), prefer_output=True)
    assert (merged.conflicts, merged.text) == (0, _change(BASE, 5, "theirs"))


def test_a_crlf_local_file_merges_with_an_lf_output_without_conflicts() -> None:
    local = _change(BASE, 2, "local 2").replace("\n", "\r\n")
    merged = merge3(BASE, local, _change(BASE, 8, "output 8"))
    assert merged.conflicts == 0
    assert merged.text == _change(_change(BASE, 2, "local 2"), 8, "output 8").replace("\n", "\r\n")


def test_an_insertion_after_a_last_line_without_newline_stays_on_its_own_line() -> None:
    assert merge3("a\nb", "a\nb", "a\nb\nc\n").text == "a\nb\nc\n"


def _with_output(project: Project, output: str) -> None:
    project.write("f.txt", BASE)
    context.add(project.store, project.chat_id, Target("f.txt"))
    project.model_writes("f.txt", output)


def test_merge_closed_without_taking_anything_is_none(project: Project) -> None:
    _with_output(project, _change(BASE, 3, "model 3"))
    result = finish_merge(project.store, project.chat_id, "f.txt")
    assert not isinstance(result, Problem) and result.outcome == "none"
    assert project.status("f.txt") == "M"


def test_merge_closed_without_taking_anything_keeps_the_users_edits_their_own(
    project: Project,
) -> None:
    _with_output(project, _change(_change(BASE, 3, "model 3"), 9, "model 9"))
    project.write("f.txt", _change(BASE, 4, "my own line 4"))  # a ~M: next to hunk 1
    assert project.status("f.txt") == "~M"
    result = finish_merge(project.store, project.chat_id, "f.txt")
    assert not isinstance(result, Problem) and result.outcome == "none"
    assert project.status("f.txt") == "~M"


def test_merge_taking_every_hunk_is_a_full_apply(project: Project) -> None:
    output = _change(_change(BASE, 3, "model 3"), 9, "model 9")
    _with_output(project, output)
    project.write("f.txt", output)
    result = finish_merge(project.store, project.chat_id, "f.txt")
    assert not isinstance(result, Problem) and result.outcome == "full"
    assert project.status("f.txt") == ""
    assert project.store.output(project.chat_id, "f.txt") is None


def test_partial_merge_leaves_only_the_remaining_hunks(project: Project) -> None:
    output = _change(_change(BASE, 3, "model 3"), 9, "model 9")
    _with_output(project, output)
    project.write("f.txt", _change(BASE, 3, "model 3"))  # `do` on the first hunk only
    result = finish_merge(project.store, project.chat_id, "f.txt")
    assert not isinstance(result, Problem) and result.outcome == "partial"
    assert project.status("f.txt") == "M"
    diff = outputs.output_diff(project.store, project.chat_id, "f.txt")
    assert isinstance(diff, str)
    assert "-line 9\n+model 9\n" in diff and "model 3" not in diff.replace(" model 3\n", "")
    assert diff.count("@@ ") == 1


def test_partial_merge_keeps_the_users_own_edits_out_of_the_remaining_hunks(
    project: Project,
) -> None:
    output = _change(_change(BASE, 3, "model 3"), 9, "model 9")
    _with_output(project, output)
    # The user had edited line 6 by hand (a ~M conflict) and took hunk 1 in vimdiff.
    project.write("f.txt", _change(_change(BASE, 3, "model 3"), 6, "my own line 6"))
    result = finish_merge(project.store, project.chat_id, "f.txt")
    assert not isinstance(result, Problem) and result.outcome == "partial"
    diff = outputs.output_diff(project.store, project.chat_id, "f.txt")
    assert isinstance(diff, str) and "my own line 6" not in diff.replace(" my own line 6\n", "")
    # Applying the rest now keeps the user's line.
    assert not isinstance(outputs.apply_output(project.store, project.chat_id, "f.txt"), Problem)
    assert project.read("f.txt") == _change(output, 6, "my own line 6")


def test_partial_merge_of_a_new_file_puts_it_in_context(project: Project) -> None:
    project.model_writes("new.txt", "one\ntwo\n")
    project.write("new.txt", "one\n")
    result = finish_merge(project.store, project.chat_id, "new.txt")
    assert not isinstance(result, Problem) and result.outcome == "partial"
    entry = project.store.entry(project.chat_id, "new.txt")
    assert entry is not None and entry.added and project.status("new.txt") == "M"
