"""No lost work (issue 11), through the `bb7` command line a user types.

Crashes are real: a child `bb7` process kills itself with SIGKILL at a named step of an apply
(`BB7_CRASH_AT`, read by the write layer). FIFOs, symlinks, read-only files and damaged or
locked databases are real files. Most commands run in-process through `bb7.cli.main`; the ones
that could hang or die run as child processes with a timeout.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from bb7_cli import BASE, LOCAL, MODEL, Bb7, local_edits_over_a_pending_output

from bb7.files.fsio import CRASH_ENV
from bb7.state.store import LOCK_TIMEOUT_ENV

# -- 1 and 5: a crash at any step of an apply loses nothing and leaves no temp file ----------


@pytest.mark.parametrize(
    ("step", "replaced"),
    [("after_temp_write", False), ("after_rename", True), ("before_commit", True)],
)
def test_an_apply_killed_at_any_step_keeps_the_users_text(
    bb7: Bb7, step: str, replaced: bool
) -> None:
    local_edits_over_a_pending_output(bb7)
    killed = bb7.run("output", "apply", "--force", "f.txt", ok=None, env={CRASH_ENV: step})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    if step == "after_temp_write":
        assert len(bb7.temp_files()) == 1  # what the crash left behind
    # The next open settles the interrupted apply, says so, and removes bb7's own leftovers.
    out, said = bb7("status", "--json")
    statuses = {r["path"]: r["status"] for r in json.loads(out)["files"]}
    assert said == (
        "bb7: finished an interrupted apply of f.txt (`bb7 output undo` reverts it)\n"
        if replaced
        else "bb7: rolled back an interrupted apply of f.txt; its output is still pending\n"
    )
    assert bb7.temp_files() == []
    if replaced:
        # The file was replaced: the apply is finished, and undo brings the user's text back.
        assert bb7.read("f.txt") == MODEL
        assert statuses == {"f.txt": ""}
        bb7("output", "undo", "f.txt")
    else:
        # Nothing was replaced: the apply is rolled back and the output is still pending.
        assert statuses == {"f.txt": "~M"}
    assert bb7.read("f.txt") == LOCAL
    assert bb7.statuses() == {"f.txt": "~M"}
    bb7("output", "apply", "--force", "f.txt")  # and the user can still apply it
    assert bb7.read("f.txt") == MODEL


@pytest.mark.parametrize(
    ("step", "restored"),
    [("after_temp_write", False), ("after_rename", True), ("before_commit", True)],
)
def test_an_undo_killed_at_any_step_loses_nothing(bb7: Bb7, step: str, restored: bool) -> None:
    local_edits_over_a_pending_output(bb7)
    bb7("output", "apply", "--force", "f.txt")
    killed = bb7.run("output", "undo", "f.txt", ok=None, env={CRASH_ENV: step})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    if step == "after_temp_write":
        assert len(bb7.temp_files()) == 1  # removed at the next open
    out, said = bb7("status", "--json")
    statuses = {r["path"]: r["status"] for r in json.loads(out)["files"]}
    assert bb7.temp_files() == []
    if restored:
        # The user's text is back on disk: the undo is finished, the output pending again.
        assert said == "bb7: finished an interrupted undo of f.txt; its output is pending again\n"
        assert bb7.read("f.txt") == LOCAL
        assert statuses == {"f.txt": "~M"}
        assert "no apply of f.txt to undo" in bb7("output", "undo", "f.txt", ok=False)[1]
    else:
        # Nothing was put back: the apply stands and the undo can be run again.
        assert (
            said
            == "bb7: rolled back an interrupted undo of f.txt; the apply stands, undo it again\n"
        )
        assert bb7.read("f.txt") == MODEL
        assert statuses == {"f.txt": ""}
        bb7("output", "undo", "f.txt")
        assert bb7.read("f.txt") == LOCAL
    bb7("output", "apply", "--force", "f.txt")  # and the output can still be applied
    assert bb7.read("f.txt") == MODEL


def test_an_undo_of_a_created_file_killed_before_its_commit_is_finished(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")  # a chat to write in
    bb7.model_writes({"new.txt": MODEL})
    bb7("output", "apply", "new.txt")
    killed = bb7.run("output", "undo", "new.txt", ok=None, env={CRASH_ENV: "before_commit"})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not (bb7.root / "new.txt").exists()
    said = bb7("status", "--json")[1]
    assert said == "bb7: finished an interrupted undo of new.txt; its output is pending again\n"
    assert bb7.statuses() == {"f.txt": "", "new.txt": "A"}


# -- 2: .git and .bb7 at any depth and in any case --------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "nested/.git/config",
        "nested/.git/hooks/pre-commit",
        ".GIT/config",
        ".Git/hooks/pre-commit",
        ".BB7/bb7.db",
        "vendor/lib/.Bb7/x",
        "sub/.git",  # a submodule's or worktree's `.git` file
    ],
)
def test_git_and_bb7_state_is_refused_at_any_depth_and_case(bb7: Bb7, path: str) -> None:
    bb7.write(path, "[core]\n")
    err = bb7("add", path, ok=False)[1]
    assert "never edits" in err
    response = bb7.root.parent / "response.md"
    response.write_text(f"{path}\n<<<<<<< SEARCH\n[core]\n=======\n[hacked]\n>>>>>>> REPLACE\n")
    err = bb7("apply", "--root", str(bb7.root), str(response), ok=None)[1]
    assert "not applied, nothing was written" in err and "never edits" in err
    assert bb7.read(path) == "[core]\n"


# -- 3: FIFOs and devices are refused, never read ---------------------------------------------


def test_a_fifo_is_refused_by_status_add_and_both_applies(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": MODEL})
    (bb7.root / "f.txt").unlink()
    os.mkfifo(bb7.root / "f.txt")
    os.mkfifo(bb7.root / "pipe")
    # Child processes with a timeout: before the fix each of these waited for a writer forever.
    rows = json.loads(bb7.run("status", "--json").stdout)["files"]
    assert [(r["path"], r["status"]) for r in rows] == [("f.txt", "~M")]
    assert "FIFO" in bb7.run("add", "pipe", ok=False).stderr
    refused = bb7.run("output", "apply", "--force", "f.txt", ok=False).stderr
    assert "FIFO" in refused and "nothing was written" in refused
    response = bb7.root.parent / "response.md"
    response.write_text("pipe\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n")
    applied = bb7.run("apply", "--root", str(bb7.root), str(response), ok=None)
    assert applied.returncode == 1 and "FIFO" in applied.stderr
    assert stat.S_ISFIFO(os.lstat(bb7.root / "f.txt").st_mode)
    assert stat.S_ISFIFO(os.lstat(bb7.root / "pipe").st_mode)


def _one_gigabyte_of_memory() -> None:
    # Before the fix a device was read until MemoryError; keep that from taking the machine.
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_a_character_device_is_refused_not_read(bb7: Bb7) -> None:
    os.symlink("/dev/zero", bb7.root / "zero")
    err = bb7.run("add", "zero", ok=False, preexec=_one_gigabyte_of_memory).stderr
    assert "character device" in err


# -- 4: symlinks are written through when their target is inside the project ------------------


def test_an_apply_to_a_symlink_writes_its_target_and_keeps_the_link(bb7: Bb7) -> None:
    bb7.write("real/f.txt", BASE)
    os.symlink("real/f.txt", bb7.root / "link.txt")
    bb7("add", "link.txt")
    bb7.model_writes({"link.txt": MODEL})
    bb7("output", "apply", "link.txt")
    assert os.readlink(bb7.root / "link.txt") == "real/f.txt"
    assert bb7.read("real/f.txt") == MODEL
    assert bb7.temp_files() == []
    assert bb7.statuses() == {"link.txt": ""}


def test_an_apply_through_a_symlink_leading_out_is_refused(bb7: Bb7, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text(BASE)
    bb7.write("real.txt", BASE)
    os.symlink("real.txt", bb7.root / "link.txt")
    bb7("add", "link.txt")
    bb7.model_writes({"link.txt": MODEL})
    (bb7.root / "link.txt").unlink()
    os.symlink(outside, bb7.root / "link.txt")
    assert "outside the project" in bb7("output", "apply", "--force", "link.txt", ok=False)[1]
    assert outside.read_text() == BASE
    assert os.readlink(bb7.root / "link.txt") == str(outside)


# -- 6: database trouble is one line, nothing claimed -----------------------------------------

_HOLD_THE_WRITE_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.read()
"""


def test_a_held_write_lock_stops_writers_with_one_line_but_not_readers(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_THE_WRITE_LOCK, str(bb7.root / ".bb7" / "bb7.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        timeout = {LOCK_TIMEOUT_ENV: "0.3"}
        # Reading commands take no write lock: they answer while another process writes.
        shown = bb7.run("status", "--json", env=timeout)
        assert [r["path"] for r in json.loads(shown.stdout)["files"]] == ["f.txt"]
        bb7.write("g.txt", BASE)
        err = bb7.run("add", "g.txt", ok=False, env=timeout).stderr
        assert "is locked" in err and "try again" in err and "0.3 s" in err
    finally:
        holder.communicate("")
    assert bb7.statuses() == {"f.txt": ""}


def test_a_damaged_database_is_one_line_with_a_copy_kept(bb7: Bb7) -> None:
    db = bb7.root / ".bb7" / "bb7.db"
    for side in ("-wal", "-shm"):
        db.with_name(db.name + side).unlink(missing_ok=True)
    garbage = b"this is not a database, it was overwritten by accident\n" * 200
    db.write_bytes(garbage)
    err = bb7("status", ok=False)[1]
    copy = db.with_name("bb7.db.damaged")
    assert "is damaged" in err and str(copy) in err and "bb7 init" in err
    assert copy.read_bytes() == garbage
    # `bb7 init` does not claim success over it, and keeps one copy per damaged content.
    assert "is damaged" in bb7("init", ok=False)[1]
    assert db.read_bytes() == garbage
    assert sorted(p.name for p in db.parent.glob("bb7.db.damaged*")) == ["bb7.db.damaged"]


def test_an_empty_database_is_not_taken_for_a_new_one(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    db = bb7.root / ".bb7" / "bb7.db"
    for side in ("-wal", "-shm"):
        db.with_name(db.name + side).unlink(missing_ok=True)
    db.write_bytes(b"")
    err = bb7("status", ok=False)[1]
    assert "is empty" in err and "chats it held are gone" in err
    assert "is empty" in bb7("init", ok=False)[1]
    assert db.stat().st_size == 0


def _small_file_size_limit() -> None:
    # Writes past 256 KiB fail (EFBIG), a real I/O error like a full disk.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))


def test_a_full_disk_is_one_line_and_nothing_is_claimed(bb7: Bb7) -> None:
    bb7.write("big.txt", "a line of a big file\n" * 40_000)
    err = bb7.run("add", "big.txt", ok=False, preexec=_small_file_size_limit).stderr
    assert "disk" in err and "nothing was changed" in err
    assert bb7.statuses() == {}


# -- 7: messages that say what happened ---------------------------------------------------------


def test_a_deleted_target_is_reported_as_gone_not_as_a_conflict(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": MODEL})
    (bb7.root / "f.txt").rename(bb7.root / "renamed.txt")
    err = bb7("output", "apply", "f.txt", ok=False)[1]
    assert "f.txt is gone" in err and "--merge" not in err
    out = bb7("output", "apply", "--all", ok=False)[0]
    assert "the file is gone" in out
    assert not (bb7.root / "f.txt").exists()
    bb7("output", "apply", "--force", "f.txt")
    assert bb7.read("f.txt") == MODEL


def test_a_read_only_file_is_refused_unless_forced_and_keeps_its_mode(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": MODEL})
    os.chmod(bb7.root / "f.txt", 0o444)
    err = bb7("output", "apply", "f.txt", ok=False)[1]
    assert "read-only on disk" in err and "--force" in err
    assert bb7.read("f.txt") == BASE
    bb7("output", "apply", "--force", "f.txt")
    assert bb7.read("f.txt") == MODEL
    assert stat.S_IMODE(os.stat(bb7.root / "f.txt").st_mode) == 0o444
