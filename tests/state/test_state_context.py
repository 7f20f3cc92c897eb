"""Context entries: path rules, refused files, sections vs whole files, read-only, updates."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import pytest
from state_helpers import Project

from bb7.refusal import Problem
from bb7.state import context
from bb7.state.context import Target, parse_target
from bb7.state.local import LocalText
from bb7.state.records import EXTERNAL, IMAGE, SECTION, ContextEntry
from bb7.state.responses import edit_bases
from image_files import png


def _add(project: Project, spec: str, **kw: object) -> ContextEntry | Problem:
    return context.add(project.store, project.chat_id, parse_target(spec), **kw)  # type: ignore[arg-type]


def test_paths_are_stored_relative_to_the_root(project: Project) -> None:
    project.write("src/a.py", "a\n")
    entry = _add(project, str(project.root / "src" / ".." / "src" / "a.py"))
    assert isinstance(entry, ContextEntry) and entry.path == "src/a.py"
    assert _add(project, "./src/a.py") == entry


@pytest.mark.parametrize("spec", [".git/config", ".bb7/bb7.db", ".bb7/x"])
def test_git_and_bb7_directories_are_refused(project: Project, spec: str) -> None:
    (project.root / ".git").mkdir(exist_ok=True)
    (project.root / ".git" / "config").write_text("[core]\n")
    problem = _add(project, spec)
    assert isinstance(problem, Problem) and problem.kind == "protected"


def test_files_outside_the_project_become_read_only_externals(
    project: Project, tmp_path: Path
) -> None:
    (tmp_path / "notes.md").write_text("outside\n")
    for spec in ("../notes.md", str(tmp_path / "notes.md")):
        entry = _add(project, spec)
        assert isinstance(entry, ContextEntry)
        assert (entry.kind, entry.path) == (EXTERNAL, os.path.realpath(tmp_path / "notes.md"))
    assert len(project.store.entries(project.chat_id)) == 1
    assert project.status(os.path.realpath(tmp_path / "notes.md")) == "R"
    assert not edit_bases(project.store, project.chat_id)[entry.path].writable


def test_a_symlink_leading_outside_is_an_external_not_a_project_file(
    project: Project, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text("s\n")
    os.symlink(outside, project.root / "link")
    entry = _add(project, "link/secret.txt")
    assert isinstance(entry, ContextEntry) and entry.kind == EXTERNAL
    assert entry.path == os.path.realpath(outside / "secret.txt")


def test_binary_files_are_refused_with_a_clear_message(project: Project) -> None:
    (project.root / "tool.bin").write_bytes(b"\x7fELF\0\0\0\x01")
    problem = _add(project, "tool.bin")
    assert isinstance(problem, Problem) and problem.kind == "binary"
    assert "binary" in problem.message and "text files" in problem.message


def test_an_image_named_is_added_as_an_image_and_a_broken_one_refused(project: Project) -> None:
    (project.root / "shot.png").write_bytes(png(40, 30))
    entry = _add(project, "shot.png")
    assert isinstance(entry, ContextEntry) and entry.kind == IMAGE and entry.readonly
    stored = project.store.blob(entry.blob)
    assert stored.startswith("data:image/png;base64,")
    assert project.status("shot.png") == "R"
    assert not edit_bases(project.store, project.chat_id).get("shot.png", None)
    again = _add(project, "shot.png")
    assert isinstance(again, ContextEntry) and again.file_id == entry.file_id
    (project.root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    problem = _add(project, "logo.png")
    assert problem == Problem("not_image", "logo.png is a damaged PNG image")
    pasted = context.add_image(project.store, project.chat_id, "clipboard-1.png", png(8, 8))
    assert isinstance(pasted, ContextEntry) and pasted.kind == IMAGE
    refused = context.add_image(project.store, project.chat_id, "clipboard-2.png", b"text")
    assert isinstance(refused, Problem) and refused.kind == "not_image"


def test_oversized_files_are_refused_but_a_section_of_them_is_fine(project: Project) -> None:
    project.write("big.log", "x" * 99 + "\n" + "y\n" * 200)
    problem = _add(project, "big.log", max_bytes=100)
    assert isinstance(problem, Problem) and problem.kind == "too_large"
    assert "100 bytes" in problem.message and "section" in problem.message
    section = _add(project, "big.log:2-3", max_bytes=100)
    assert isinstance(section, ContextEntry) and section.kind == SECTION
    assert project.store.blob(section.blob) == "y\ny\n"


def test_a_whole_file_and_its_section_are_separate_entries(project: Project) -> None:
    project.write("a.py", "one\ntwo\nthree\n")
    whole = _add(project, "a.py")
    part = _add(project, "a.py:2-3")
    assert isinstance(whole, ContextEntry) and isinstance(part, ContextEntry)
    assert project.store.blob(whole.blob) == "one\ntwo\nthree\n"
    assert project.store.blob(part.blob) == "two\nthree\n"
    assert whole.file_id != part.file_id
    assert not isinstance(
        context.remove(project.store, project.chat_id, Target("a.py", 2, 3)), Problem
    )
    (left,) = project.store.entries(project.chat_id)
    assert left == whole


def test_a_section_counts_lines_at_lf_only(project: Project) -> None:
    # A form feed (like a vertical tab or U+2028) stays inside its line, as in Neovim.
    project.write("a.c", "one\x0cpage\ntwo\x0bx\nthree\u2028y\n")
    part = _add(project, "a.c:2-3")
    assert isinstance(part, ContextEntry)
    assert project.store.blob(part.blob) == "two\x0bx\nthree\u2028y\n"
    problem = _add(project, "a.c:1-4")
    assert isinstance(problem, Problem) and "only 3 lines" in problem.message


def test_a_section_range_must_fit_the_file(project: Project) -> None:
    project.write("a.py", "one\ntwo\n")
    for spec in ("a.py:0-1", "a.py:2-1", "a.py:1-5"):
        problem = _add(project, spec)
        assert isinstance(problem, Problem) and problem.kind == "invalid_range", spec


def test_adding_several_paths_is_all_or_nothing(project: Project) -> None:
    project.write("a.py", "a\n")
    problem = context.add_many(
        project.store, project.chat_id, [Target("a.py"), Target("missing.py")]
    )
    assert isinstance(problem, Problem) and problem.kind == "missing"
    assert project.store.entries(project.chat_id) == []


def test_files_the_user_did_not_name_are_skipped_with_why(project: Project) -> None:
    for name in ("a.md", "b.md", "c.md"):
        project.write(name, f"{name}\n")
    context.add(project.store, project.chat_id, Target("b.md"), readonly=True)
    targets = [Target("a.md"), Target("b.md"), Target(".bb7/instructions"), Target("c.md")]
    done = context.add_many(
        project.store, project.chat_id, targets, skippable=[True, True, True, False]
    )
    assert isinstance(done, context.Added)
    assert [e.path for e in done.entries] == ["a.md", "c.md"] == [t.path for t in done.kept]
    assert done.skipped == [
        (Target("b.md"), "already read-only"),
        (Target(".bb7/instructions"), "bb7's own"),
    ]
    said = context.skipped_summary(done.skipped, str)
    assert said == "skipped 2: b.md (already read-only), .bb7/instructions (bb7's own)"
    # One the user named refuses them all, as before.
    refused = context.add_many(
        project.store, project.chat_id, [Target("d.md"), Target("missing.md")], skippable=[True]
    )
    assert isinstance(refused, Problem) and refused.kind == "missing"


def test_buffer_text_is_snapshotted_instead_of_the_disk(project: Project) -> None:
    project.write("a.py", "on disk\n")
    entry = _add(project, "a.py", text="unsaved buffer\n")
    assert isinstance(entry, ContextEntry)
    assert project.store.blob(entry.blob) == "unsaved buffer\n"


def test_read_only_toggle_rules(project: Project) -> None:
    project.write("a.py", "a\n")
    _add(project, "a.py")
    _add(project, "a.py:1-1")
    project.model_writes("a.py", "A\n")
    refused = context.set_readonly(project.store, project.chat_id, Target("a.py"), True)
    assert isinstance(refused, Problem) and refused.kind == "pending_output"
    section = context.set_readonly(project.store, project.chat_id, Target("a.py", 1, 1), False)
    assert isinstance(section, Problem) and section.kind == "always_readonly"


def test_update_takes_the_local_text_and_records_an_event(project: Project) -> None:
    project.write("a.py", "a\n")
    old = _add(project, "a.py")
    project.write("a.py", "a\nb\n")
    new = context.update(project.store, project.chat_id, Target("a.py"))
    assert isinstance(new, ContextEntry) and isinstance(old, ContextEntry)
    assert project.store.blob(new.blob) == "a\nb\n" and new.file_id != old.file_id
    last = project.store.messages(project.chat_id)[-1]
    assert last.role == "event" and last.parts[0].event.action == "user_updated"  # type: ignore[union-attr]
    # The old version stays restorable.
    assert project.store.blob(old.blob) == "a\n"


def test_update_refuses_when_the_pending_output_overlaps_local_edits(project: Project) -> None:
    project.write("a.py", "a\nb\nc\n")
    _add(project, "a.py")
    project.model_writes("a.py", "a\nB\nc\n")
    project.write("a.py", "a\nX\nc\n")
    refused = context.update(project.store, project.chat_id, Target("a.py"))
    assert isinstance(refused, Problem) and refused.kind == "conflict"
    assert "change the same lines (1 region)" in refused.message
    assert project.status("a.py") == "~M"


def test_removing_a_file_with_a_pending_change_is_refused(project: Project) -> None:
    project.write("a.py", "a\n")
    _add(project, "a.py")
    project.model_writes("a.py", "A\n")
    refused = context.remove(project.store, project.chat_id, Target("a.py"))
    assert isinstance(refused, Problem) and refused.kind == "pending_output"


def test_parse_target_reads_line_ranges_only_at_the_end() -> None:
    assert parse_target("a.py:3-9") == Target("a.py", 3, 9)
    assert parse_target("c:/odd:name.py") == Target("c:/odd:name.py")


def test_update_all_updates_what_it_can_and_reports_the_rest(project: Project) -> None:
    for name in ("a.py", "b.py", "c.py"):
        project.write(name, "1\n2\n3\n")
        _add(project, name)
    project.model_writes("b.py", "1\nTWO\n3\n")
    project.write("a.py", "1\n2\n3\n4\n")
    project.write("b.py", "1\nzwei\n3\n")  # overlaps the pending change
    results = dict(context.update_all(project.store, project.chat_id))
    assert set(results) == {"a.py", "b.py"}
    assert isinstance(results["a.py"], ContextEntry)
    assert isinstance(results["b.py"], Problem) and results["b.py"].kind == "conflict"
    assert (project.status("a.py"), project.status("b.py"), project.status("c.py")) == (
        "",
        "~M",
        "",
    )


def test_following_edits_updates_files_and_sections_from_buffers_and_says_so(
    project: Project,
) -> None:
    project.write("a.py", "1\n2\n3\n")
    project.write("b.py", "x\ny\nz\n")
    project.write("c.py", "same\n")
    for spec in ("a.py", "b.py:2-3", "c.py"):
        _add(project, spec)
    buffers = {"a.py": LocalText("1\n2\n3\n4\n")}  # unsaved edits count
    project.write("b.py", "x\nY\nz\n")
    results = dict(context.follow_edits(project.store, project.chat_id, buffers=buffers))
    assert set(results) == {"a.py", "b.py:2-3"}
    section = results["b.py:2-3"]
    assert isinstance(section, ContextEntry) and project.store.blob(section.blob) == "Y\nz\n"
    events = [m.parts[0].event for m in project.store.messages(project.chat_id)[-2:]]  # type: ignore[union-attr]
    assert [(e.action, e.path, e.start_line, e.followed) for e in events] == [
        ("user_updated", "a.py", 0, True),
        ("user_updated", "b.py", 2, True),
    ]
    assert project.status("a.py", buffers) == ""  # no `~` once followed


def test_adding_a_file_already_in_the_chat_refreshes_it(project: Project) -> None:
    project.write("a.py", "a\n")
    first = _add(project, "a.py")
    before = context.existing(project.store, project.chat_id, Target("a.py"))
    assert before == first and isinstance(first, ContextEntry)
    assert context.added_verb(before, first) == "already up to date:"
    again = _add(project, "a.py", text="a\nb\n")
    assert isinstance(again, ContextEntry) and project.store.blob(again.blob) == "a\nb\n"
    assert context.added_verb(before, again) == "refreshed"
    assert context.added_verb(None, again) == "added"
    # Several at once: each file counted once, by what adding did to it.
    summary = partial(context.added_summary, shown=str)
    assert summary([None, None], [first, again]) == "added 2 files"
    assert summary([None, before, first], [again, again, first]) == (
        "added 1 file, 1 refreshed, 1 already up to date"
    )
    assert summary([before, before], [again, again]) == "refreshed 2 files"
    assert summary([first, first], [first, first]) == "2 files already up to date"
