"""Apply, apply all, discard, diff and undo of pending outputs, on real files."""

from __future__ import annotations

import os
import subprocess
import sys

from state_helpers import Project

from bb7.refusal import Problem
from bb7.state import context, outputs
from bb7.state.context import Target
from bb7.state.local import LocalText, LocalView, local_hash
from bb7.state.status import file_statuses


def _setup(project: Project, text: str = "a\nb\nc\n") -> None:
    project.write("f.txt", text)
    assert not isinstance(context.add(project.store, project.chat_id, Target("f.txt")), Problem)


def _events(project: Project) -> list[str]:
    return [
        part.event.action
        for message in project.store.messages(project.chat_id)
        for part in message.parts
        if hasattr(part, "event")
    ]


def test_apply_writes_the_output_and_makes_it_the_snapshot(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\nB\nc\n")
    done = outputs.apply_output(project.store, project.chat_id, "f.txt")
    assert not isinstance(done, Problem)
    assert project.read("f.txt") == "a\nB\nc\n"
    assert project.store.output(project.chat_id, "f.txt") is None
    entry = project.store.entry(project.chat_id, "f.txt")
    assert entry is not None and project.store.blob(entry.blob) == "a\nB\nc\n"
    assert _events(project)[-1] == "user_applied"


def test_apply_keeps_mode_crlf_and_bom(project: Project) -> None:
    _setup(project, "\ufeffa\r\nb\r\n")
    os.chmod(project.root / "f.txt", 0o755)
    project.model_writes("f.txt", "\ufeffa\r\nB\r\n")
    assert not isinstance(outputs.apply_output(project.store, project.chat_id, "f.txt"), Problem)
    assert (project.root / "f.txt").read_bytes() == "\ufeffa\r\nB\r\n".encode()
    assert os.stat(project.root / "f.txt").st_mode & 0o777 == 0o755


def test_a_conflict_is_refused_and_the_local_file_kept(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\nB\nc\n")
    project.write("f.txt", "a\nb\nC\n")
    refused = outputs.apply_output(project.store, project.chat_id, "f.txt")
    assert isinstance(refused, Problem) and refused.kind == "conflict"
    # What is wrong, in no front end's words: each adds its own way out.
    assert "--" not in refused.message and ":BB7" not in refused.message
    assert project.read("f.txt") == "a\nb\nC\n"
    assert project.status("f.txt") == "~M"


def test_apply_with_merge_keeps_both_changes(project: Project) -> None:
    _setup(project, "a\nb\nc\nd\n")
    project.model_writes("f.txt", "a\nB\nc\nd\n")
    project.write("f.txt", "a\nb\nc\nD\n")
    done = outputs.apply_output(project.store, project.chat_id, "f.txt", merge=True)
    assert not isinstance(done, Problem) and done.merged
    assert project.read("f.txt") == "a\nB\nc\nD\n"
    assert project.status("f.txt") == ""


def test_apply_with_merge_refuses_overlapping_changes(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\nB\nc\n")
    project.write("f.txt", "a\nX\nc\n")
    refused = outputs.apply_output(project.store, project.chat_id, "f.txt", merge=True)
    assert isinstance(refused, Problem) and refused.kind == "conflict"
    assert project.read("f.txt") == "a\nX\nc\n"


def test_a_plain_apply_keeps_local_edits_away_from_the_change(project: Project) -> None:
    _setup(project, "a\nb\nc\nd\n")
    project.model_writes("f.txt", "a\nB\nc\nd\n")
    project.write("f.txt", "a\nb\nc\nD\n")
    assert project.status("f.txt") == "M"
    done = outputs.apply_output(project.store, project.chat_id, "f.txt")
    assert not isinstance(done, Problem) and done.merged
    assert project.read("f.txt") == "a\nB\nc\nD\n"
    assert project.status("f.txt") == ""
    assert not isinstance(outputs.undo_apply(project.store, project.chat_id, "f.txt"), Problem)
    assert project.read("f.txt") == "a\nb\nc\nD\n"


def test_the_diff_of_a_change_rebased_onto_local_edits_shows_only_the_models(
    project: Project,
) -> None:
    _setup(project, "a\nb\nc\nd\n")
    project.model_writes("f.txt", "a\nB\nc\nd\n")
    project.write("f.txt", "a\nb\nc\nD\n")
    diff = outputs.output_diff(project.store, project.chat_id, "f.txt")
    assert isinstance(diff, str) and "-b\n+B\n" in diff and "-D" not in diff


def test_forced_apply_over_a_conflict_is_undoable(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\nB\nc\n")
    project.write("f.txt", "my precious edit\n")
    assert not isinstance(
        outputs.apply_output(project.store, project.chat_id, "f.txt", force=True), Problem
    )
    assert project.read("f.txt") == "a\nB\nc\n"
    assert not isinstance(outputs.undo_apply(project.store, project.chat_id, "f.txt"), Problem)
    assert project.read("f.txt") == "my precious edit\n"
    assert project.status("f.txt") == "~M"


def test_a_local_change_between_status_and_apply_is_refused(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\nB\nc\n")
    (row,) = file_statuses(project.store, project.chat_id)
    seen = LocalView(row.local_hash, row.changedtick)
    project.write("f.txt", "a\nb\nc\n# typed meanwhile\n")
    refused = outputs.apply_output(project.store, project.chat_id, "f.txt", seen=seen)
    assert isinstance(refused, Problem) and refused.kind == "changed"
    assert project.read("f.txt") == "a\nb\nc\n# typed meanwhile\n"
    assert project.store.output(project.chat_id, "f.txt") is not None


def test_a_changedtick_bump_is_refused_even_with_the_same_text(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\nB\nc\n")
    text = "a\nb\nc\n"
    seen = LocalView(local_hash(text), 41)
    buffers = {"f.txt": LocalText(text, 42)}
    refused = outputs.apply_output(
        project.store, project.chat_id, "f.txt", seen=seen, buffers=buffers
    )
    assert isinstance(refused, Problem) and refused.kind == "changed"
    buffers = {"f.txt": LocalText(text, 41)}
    written: list[str] = []

    def write(path: str, new: str) -> bool:
        assert path == "f.txt"  # the project path, as stored
        written.append(new)
        return True

    done = outputs.apply_output(
        project.store,
        project.chat_id,
        "f.txt",
        seen=seen,
        buffers=buffers,
        write=write,
    )
    assert not isinstance(done, Problem)
    assert written == ["a\nB\nc\n"]


_APPLY_UNDER_A_FILE_SIZE_LIMIT = """
import resource, signal, sys
from pathlib import Path
from bb7.state.outputs import apply_output
from bb7.state.store import StoreError, init_project
# Writes past 64 KiB now fail with EFBIG (a real I/O error, like a full disk).
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
store = init_project(Path(sys.argv[1]))
try:
    result = apply_output(store, sys.argv[2], "f.txt")
except StoreError as exc:  # the intent (with both texts) is committed before the file write
    print(exc.kind)
else:
    print(getattr(result, "kind", "applied"))
"""


def test_a_failed_write_leaves_file_snapshot_and_output_as_they_were(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "long line\n" * 20_000)
    before = project.store.entry(project.chat_id, "f.txt")
    child = subprocess.run(
        [sys.executable, "-c", _APPLY_UNDER_A_FILE_SIZE_LIMIT, str(project.root), project.chat_id],
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout.strip() == "io", child.stderr
    assert project.read("f.txt") == "a\nb\nc\n"
    assert project.store.output(project.chat_id, "f.txt") is not None
    assert project.store.entry(project.chat_id, "f.txt") == before
    assert project.store.last_undo(project.chat_id, "f.txt") is None
    assert _events(project)[-1] == "assistant_wrote"
    assert [p.name for p in project.root.iterdir() if p.name.endswith(".bb7-tmp")] == []


def test_a_new_file_needs_force_when_the_path_now_exists(project: Project) -> None:
    project.model_writes("new.txt", "from the model\n")
    assert project.status("new.txt") == "A"
    project.write("new.txt", "written by hand meanwhile\n")
    refused = outputs.apply_output(project.store, project.chat_id, "new.txt")
    assert isinstance(refused, Problem) and refused.kind == "exists"
    assert project.read("new.txt") == "written by hand meanwhile\n"
    assert not isinstance(
        outputs.apply_output(project.store, project.chat_id, "new.txt", force=True), Problem
    )
    assert project.read("new.txt") == "from the model\n"


def test_apply_all_applies_m_and_a_and_reports_skips(project: Project) -> None:
    _setup(project)
    project.write("g.txt", "g\n")
    context.add(project.store, project.chat_id, Target("g.txt"))
    project.model_writes("f.txt", "a\nB\nc\n")
    project.model_writes("g.txt", "G\n")
    project.model_writes("new.txt", "n\n")
    project.model_writes("exists.txt", "model\n")
    project.write("exists.txt", "mine\n")
    project.write("g.txt", "g edited\n")
    reports = {r.path: r for r in outputs.apply_all(project.store, project.chat_id)}
    assert {p: r.applied for p, r in reports.items()} == {
        "exists.txt": False,
        "f.txt": True,
        "g.txt": False,
        "new.txt": True,
    }
    assert reports["g.txt"].status == "~M" and "conflict" in reports["g.txt"].message
    assert reports["exists.txt"].status == "!A"
    assert project.read("g.txt") == "g edited\n" and project.read("exists.txt") == "mine\n"
    assert project.read("new.txt") == "n\n"


def test_apply_all_writes_through_the_given_hook(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\nB\nc\n")
    written: list[tuple[str, str]] = []

    def write(path: str, text: str) -> bool:
        written.append((path, text))
        return True

    reports = outputs.apply_all(project.store, project.chat_id, write=write)
    assert [r.applied for r in reports] == [True]
    assert written == [("f.txt", "a\nB\nc\n")]
    assert project.read("f.txt") == "a\nb\nc\n"  # the hook did the writing, not the core


def test_a_hook_that_declines_leaves_the_write_to_the_core(project: Project) -> None:
    _setup(project)
    project.write("sub/g.txt", "g\n")
    assert not isinstance(context.add(project.store, project.chat_id, Target("sub/g.txt")), Problem)
    project.model_writes("f.txt", "a\nB\nc\n")
    project.model_writes("sub/g.txt", "G\n")
    asked: list[str] = []

    def write(path: str, text: str) -> bool:
        asked.append(path)
        return path == "f.txt"  # the editor holds f.txt only

    reports = outputs.apply_all(project.store, project.chat_id, write=write)
    assert [r.applied for r in reports] == [True, True]
    assert sorted(asked) == ["f.txt", "sub/g.txt"]  # project paths, as stored
    assert project.read("f.txt") == "a\nb\nc\n"  # the hook took it
    assert project.read("sub/g.txt") == "G\n"  # the core wrote it


def test_discard_drops_the_output_and_records_it(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\nB\nc\n")
    gone = outputs.discard_output(project.store, project.chat_id, "f.txt")
    assert not isinstance(gone, Problem)
    assert project.store.output(project.chat_id, "f.txt") is None
    assert project.read("f.txt") == "a\nb\nc\n"
    assert _events(project)[-1] == "user_discarded"
    assert project.store.blob(gone.blob) == "a\nB\nc\n"


def test_diff_shows_what_apply_would_do(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\nB\nc\n")
    diff = outputs.output_diff(project.store, project.chat_id, "f.txt")
    assert diff == "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"


def test_a_form_feed_is_a_character_in_the_diff_not_a_line_break(project: Project) -> None:
    _setup(project, "a\x0cb\nc\n")
    project.model_writes("f.txt", "a\x0cb\nd\n")
    diff = outputs.output_diff(project.store, project.chat_id, "f.txt")
    assert diff == "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\x0cb\n-c\n+d\n"


def test_undo_of_a_new_file_removes_it_and_restores_the_output(project: Project) -> None:
    project.model_writes("new.txt", "n\n")
    outputs.apply_output(project.store, project.chat_id, "new.txt")
    assert project.read("new.txt") == "n\n"
    assert not isinstance(outputs.undo_apply(project.store, project.chat_id, "new.txt"), Problem)
    assert not (project.root / "new.txt").exists()
    assert project.status("new.txt") == "A"
    assert project.store.entry(project.chat_id, "new.txt") is None


def test_undo_refuses_when_the_file_changed_since_the_apply(project: Project) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\nB\nc\n")
    outputs.apply_output(project.store, project.chat_id, "f.txt")
    project.write("f.txt", "a\nB\nc\nmore work\n")
    refused = outputs.undo_apply(project.store, project.chat_id, "f.txt")
    assert isinstance(refused, Problem) and refused.kind == "changed"
    assert project.read("f.txt") == "a\nB\nc\nmore work\n"


def test_applying_into_a_symlink_leading_outside_is_refused(project: Project, tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project.model_writes("link/x.txt", "x\n")
    os.symlink(outside, project.root / "link")
    refused = outputs.apply_output(project.store, project.chat_id, "link/x.txt", force=True)
    assert isinstance(refused, Problem) and refused.kind == "outside_root"
    assert list(outside.iterdir()) == []


def test_an_output_differing_only_in_line_endings_never_overwrites_local_edits(
    project: Project,
) -> None:
    _setup(project)
    project.model_writes("f.txt", "a\r\nb\r\nc\r\n")
    project.write("f.txt", "a\nb\nc\nmine\n")
    assert project.status("f.txt") == "~"
    outputs.apply_output(project.store, project.chat_id, "f.txt")
    assert project.read("f.txt") == "a\nb\nc\nmine\n"
