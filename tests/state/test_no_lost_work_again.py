"""No lost work, round two (issue 22), through the `bb7` command line a user types.

Links into `.git`, one write path for both applies, owners and hard links, edits made after a
crash, writes that race, reused process ids, one size limit, lost leases, streams that carry
garbage, and damaged state that must be one line, never a traceback. Crashes and second
writers are real processes; everything else runs `bb7.cli.main` in-process.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from bb7_cli import BASE, LOCAL, MODEL, Bb7, local_edits_over_a_pending_output

from bb7.cli import main
from bb7.files.fsio import CRASH_ENV, MAX_BYTES, STOP_ENV
from bb7.process import identity
from bb7.refusal import Problem
from bb7.state.workspace import open_workspace
from llm_server import LLMServer, finish, stream, text_chunk, tool_call_chunk
from waits import until

NEWER = "line 1\nline 2\nline 3\nthe newer line\n"


# -- 9: a stream that carries garbage: skipped with a warning, the answer stored ----------------


def test_garbage_in_a_stream_is_skipped_with_a_warning_and_the_answer_is_stored(
    bb7: Bb7,
) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    nested = "[" * 5000 + "]" * 5000
    deep_args = '{"path": "f.txt", "content": ' + nested + "}"
    steps = [
        text_chunk("Before "),
        {"raw": b'data: {"choices":[{"index":0,"delta":{"content":"bad \xff\xfe bytes "}}]}\n\n'},
        {"raw": b"data: " + nested.encode() + b"\n\n"},
        text_chunk("after."),
        tool_call_chunk(0, id="call_1", name="write_file", arguments=deep_args),
        finish("tool_calls"),
    ]
    with LLMServer([stream(*steps)]) as server:
        out, err = bb7(
            "chat", "--base-url", server.base_url, "--model", "test/tools-model", "Hi", ok=None
        )
    assert "Traceback" not in err and "Internal error" not in err, err
    assert "Before bad \ufffd\ufffd bytes after." in out
    assert "not UTF-8" in err and "nested too deeply" in err
    assert bb7.read("f.txt") == BASE
    assert "Before bad \ufffd\ufffd bytes after." in _history(bb7.root)


def _history(root: Path) -> str:
    """The active chat's messages, as stored, in one JSON text."""
    ws = open_workspace(root)
    assert not isinstance(ws, Problem)
    try:
        found = ws.active()
        assert found is not None
        store, chat = found
        parts = [m.parts for m in store.messages(chat.id)]
        return msgspec.json.encode(parts).decode("utf-8")
    finally:
        ws.close()


# -- 1: a symlink into .git or .bb7 is never written (or read) through -------------------------


def test_a_symlink_into_git_state_is_refused_by_apply_add_and_chat_outputs(bb7: Bb7) -> None:
    (bb7.root / ".git" / "hooks").mkdir(parents=True)
    bb7.write(".git/config", "[core]\n")
    os.symlink(".git", bb7.root / "gl")
    (bb7.root / "docs").mkdir()
    os.symlink("../.git", bb7.root / "docs" / "g")
    os.symlink(".bb7", bb7.root / "state")
    hostile = {"path": "gl/config", "content": "[core]\n\tfsmonitor = touch /tmp/pwned\n"}
    response = bb7.root.parent / "response.json"
    response.write_text(json.dumps({"tool_calls": [{"name": "write_file", "arguments": hostile}]}))
    err = bb7("apply", "--root", str(bb7.root), str(response), ok=None)[1]
    assert "not applied, nothing was written" in err and "never edits" in err
    for path in ("docs/g/hooks/pre-commit", "gl/hooks/new", "state/bb7.db"):
        err = bb7("add", path, ok=False)[1]
        assert "never edits" in err, err
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    with pytest.raises(AssertionError, match="not a normalised path in the project"):
        bb7.model_writes({"docs/g/hooks/post-checkout": "#!/bin/sh\ntouch /tmp/pwned\n"})
    # A pending output whose directory becomes a link into .git before it is applied.
    bb7.model_writes({"tools/post-checkout": "#!/bin/sh\ntouch /tmp/pwned\n"})
    os.symlink(".git/hooks", bb7.root / "tools")
    out = bb7("output", "apply", "--all", ok=None)[0]
    assert "never edits" in out and "applied" not in out.replace("not applied", "")
    assert bb7.read(".git/config") == "[core]\n"
    assert sorted(p.name for p in (bb7.root / ".git" / "hooks").iterdir()) == []


# -- 2: `bb7 apply` writes like `bb7 output apply`: read-only refused, no temp left ------------

SEARCH_LINE_2 = "f.txt\n<<<<<<< SEARCH\nline 2\n=======\nline two\n>>>>>>> REPLACE\n"


def _response(bb7: Bb7, text: str) -> str:
    response = bb7.root.parent / "response.md"
    response.write_text(text)
    return str(response)


def test_bb7_apply_refuses_a_read_only_file_and_keeps_it(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    os.chmod(bb7.root / "f.txt", 0o444)
    err = bb7("apply", "--root", str(bb7.root), _response(bb7, SEARCH_LINE_2), ok=None)[1]
    assert "f.txt is read-only on disk; nothing was written" in err
    assert bb7.read("f.txt") == BASE
    assert stat.S_IMODE(os.stat(bb7.root / "f.txt").st_mode) == 0o444


def test_a_killed_bb7_apply_leaves_no_temp_file_behind(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    args = ("apply", "--root", str(bb7.root), _response(bb7, SEARCH_LINE_2))
    killed = bb7.run(*args, ok=None, env={CRASH_ENV: "after_temp_write"})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert len(bb7.temp_files()) == 1 and bb7.read("f.txt") == BASE
    bb7.run(*args)  # the next apply of the file removes what the killed one left
    assert bb7.temp_files() == []
    assert bb7.read("f.txt") == BASE.replace("line 2", "line two")


# -- 3: owner, group and hard links are kept ---------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file to another user")
def test_an_apply_as_root_keeps_the_owner_group_and_mode(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    os.chown(bb7.root / "f.txt", 1234, 1234)
    os.chmod(bb7.root / "f.txt", 0o640)
    bb7("apply", "--root", str(bb7.root), _response(bb7, SEARCH_LINE_2))
    info = os.stat(bb7.root / "f.txt")
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (1234, 1234, 0o640)
    assert bb7.read("f.txt") == BASE.replace("line 2", "line two")


def test_a_hard_linked_file_is_written_in_place_and_undone_in_place(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    os.link(bb7.root / "f.txt", bb7.root / "g.txt")
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": MODEL})
    bb7("output", "apply", "f.txt")
    assert bb7.read("g.txt") == MODEL and os.stat(bb7.root / "f.txt").st_nlink == 2
    bb7("output", "undo", "f.txt")
    assert bb7.read("g.txt") == BASE and os.stat(bb7.root / "f.txt").st_nlink == 2
    bb7("apply", "--root", str(bb7.root), _response(bb7, SEARCH_LINE_2))
    assert bb7.read("g.txt") == BASE.replace("line 2", "line two")
    assert bb7.temp_files() == []


def test_a_write_in_place_killed_halfway_leaves_the_old_text_in_a_backup(bb7: Bb7) -> None:
    # No rename makes a write in place atomic: the old bytes are kept beside the file first.
    bb7.write("f.txt", BASE)
    os.link(bb7.root / "f.txt", bb7.root / "g.txt")
    response = _response(bb7, SEARCH_LINE_2)
    args = ("apply", "--root", str(bb7.root), response)
    killed = bb7.run(*args, ok=None, env={CRASH_ENV: "in_place_halfway"})
    assert killed.returncode == -signal.SIGKILL
    (backup,) = bb7.root.glob(".f.txt.*.bb7-backup")
    assert backup.read_text() == BASE
    refused = bb7.run(*args, ok=None)
    assert refused.returncode == 1 and f"left its earlier text in {backup.name}" in refused.stderr
    backup.unlink()  # the user compared and chose
    bb7(*args, ok=None)
    # Through `output apply`, the apply's intent holds both texts: recovery keeps the old one.
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": "the model's first line\n" + BASE})  # half of it is not BASE
    killed = bb7.run("output", "apply", "f.txt", ok=None, env={CRASH_ENV: "in_place_halfway"})
    assert killed.returncode == -signal.SIGKILL
    assert "the text it replaced is kept" in bb7("status")[1]
    assert list(bb7.root.glob(".f.txt.*.bb7-backup")) == []
    bb7("output", "undo", "--force", "f.txt")
    assert bb7.read("g.txt") == BASE


# -- 5: another program that writes the file while bb7 writes it wins, nothing is lost ---------


def _race(bb7: Bb7, args: tuple[str, ...], theirs: str) -> subprocess.CompletedProcess[str]:
    """Run `bb7 ARGS`, stopped right before its rename while another program writes f.txt."""
    child = subprocess.Popen(
        [sys.executable, "-m", "bb7.cli", *args],
        cwd=bb7.root,
        env=dict(os.environ, **{STOP_ENV: "after_temp_write"}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, status = os.waitpid(child.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    bb7.write("f.txt", theirs)
    os.kill(child.pid, signal.SIGCONT)
    out, err = child.communicate(timeout=30)
    return subprocess.CompletedProcess(args, child.returncode, out, err)


def test_a_write_that_races_an_apply_is_kept_and_the_apply_refused(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": MODEL})
    done = _race(bb7, ("output", "apply", "f.txt"), LOCAL)
    assert done.returncode == 1 and "while bb7 was writing it; nothing was written" in done.stderr
    assert bb7.read("f.txt") == LOCAL and bb7.temp_files() == []
    assert bb7.statuses() == {"f.txt": "~M"}  # the output is still pending
    done = _race(bb7, ("apply", "--root", str(bb7.root), _response(bb7, SEARCH_LINE_2)), BASE)
    assert done.returncode == 1 and "while bb7 was writing it" in done.stderr
    assert bb7.read("f.txt") == BASE and bb7.temp_files() == []


def test_a_write_that_races_a_merge_is_kept_and_the_merge_refused(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": MODEL})
    bb7.write("f.txt", BASE.replace("line 1", "line one"))  # the user's edit, away from it
    theirs = BASE.replace("line 1", "line I")
    done = _race(bb7, ("output", "apply", "--merge", "f.txt"), theirs)
    assert done.returncode == 1 and "written by another program meanwhile" in done.stderr
    assert bb7.read("f.txt") == theirs and bb7.temp_files() == []
    assert bb7.statuses() == {"f.txt": "M"}  # still pending, rebased over the newest text


# -- 6: a reused pid is another process --------------------------------------------------------


def _set_intent_writer(root: Path, pid: int, started: str) -> None:
    conn = sqlite3.connect(root / ".bb7" / "bb7.db")
    with conn:
        assert conn.execute("UPDATE intents SET pid = ?, started = ?", (pid, started)).rowcount
    conn.close()


def test_an_intent_whose_pid_was_reused_is_settled_and_spares_a_newer_output(bb7: Bb7) -> None:
    local_edits_over_a_pending_output(bb7)
    killed = bb7.run(
        "output", "apply", "--force", "f.txt", ok=None, env={CRASH_ENV: "after_rename"}
    )
    assert killed.returncode == -signal.SIGKILL
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        # The writer's pid runs again, as the same process: the apply may still be going on.
        _set_intent_writer(bb7.root, sleeper.pid, identity(sleeper.pid))
        assert bb7("status")[1] == ""
        bb7.model_writes({"f.txt": NEWER})  # a newer answer meanwhile
        # The same pid, but another process (a reboot, a container): settled now.
        _set_intent_writer(bb7.root, sleeper.pid, "another-boot:1")
        said = bb7("status")[1]
    finally:
        sleeper.kill()
        sleeper.wait()
    assert said == "bb7: finished an interrupted apply of f.txt (`bb7 output undo` reverts it)\n"
    assert bb7.read("f.txt") == MODEL
    assert bb7("output", "diff", "f.txt")[0].count("+the newer line") == 1  # still pending


# -- 7: one size limit for what bb7 writes and reads -------------------------------------------


def test_a_write_over_the_size_limit_is_refused_in_one_line(bb7: Bb7) -> None:
    big = "x" * 80 + "\n"
    big *= MAX_BYTES // len(big) + 1
    call = {"name": "write_file", "arguments": {"path": "big.txt", "content": big}}
    response = bb7.root.parent / "big.json"
    response.write_text(json.dumps({"tool_calls": [call]}))
    err = bb7("apply", "--root", str(bb7.root), str(response), ok=None)[1]
    assert f"over bb7's limit of {MAX_BYTES} bytes" in err and "nothing was written" in err
    assert not (bb7.root / "big.txt").exists()
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": big})
    err = bb7("output", "apply", "f.txt", ok=False)[1]
    assert f"over bb7's limit of {MAX_BYTES} bytes" in err and bb7.read("f.txt") == BASE
    bb7("output", "discard", "f.txt")
    bb7.model_writes({"f.txt": "x" * (MAX_BYTES - 1) + "\n"})  # just fits: read back and undone
    bb7("output", "apply", "f.txt")
    assert bb7.statuses() == {"f.txt": ""}
    bb7("output", "undo", "f.txt")
    assert bb7.read("f.txt") == BASE


# -- 10: damaged state and odd inputs are one line, never a traceback --------------------------


def _damage_pages(db: Path, tables: tuple[str, ...]) -> None:
    """Overwrite the b-tree pages of `tables` (found with SQLite's dbstat) with garbage."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    marks = ",".join("?" * len(tables))
    found = conn.execute(f"SELECT pageno FROM dbstat WHERE name IN ({marks})", tables)
    pages = [row[0] for row in found.fetchall()]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(db, "r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * size)
            handle.write(b"\x0d\xff\xff\xff" * 8)


def test_a_damaged_page_is_one_line_in_every_command_and_init_does_not_claim_success(
    bb7: Bb7,
) -> None:
    local_edits_over_a_pending_output(bb7)
    _damage_pages(bb7.root / ".bb7" / "bb7.db", ("context", "chats", "outputs"))
    for args in (("status",), ("add", "f.txt"), ("output", "apply", "--all"), ("chats", "list")):
        assert "is damaged" in bb7(*args, ok=False)[1], args
    assert "is damaged" in bb7("init", ok=False)[1]


def test_a_missing_table_and_a_state_file_are_one_line(bb7: Bb7, tmp_path: Path) -> None:
    conn = sqlite3.connect(bb7.root / ".bb7" / "bb7.db")
    conn.execute("DROP TABLE outputs")
    conn.close()
    for args in (("status",), ("init",)):
        assert "its outputs table is missing" in bb7(*args, ok=False)[1]
    other = tmp_path / "other"
    other.mkdir()
    (other / ".bb7").write_text("not a directory\n")
    for args in (("init", "--root", str(other)), ("status", "--root", str(other))):
        assert "is a file, not bb7's state directory" in bb7(*args, ok=False)[1]


def test_odd_inputs_are_refused_in_one_line(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    name = os.fsdecode(b"bad\xffname.txt")
    (bb7.root / name).write_text(BASE)
    assert "not valid UTF-8" in bb7("add", name, ok=False)[1]
    no_op = "f.txt\n<<<<<<< SEARCH\nline 2\n=======\nline 2\n>>>>>>> REPLACE\n"
    for response, said in ((no_op, "changes no file"), ("[" * 100_000, "nested too deeply")):
        code = main(["apply", "--root", str(bb7.root), _response(bb7, response)])
        err = bb7.capsys.readouterr().err
        assert code == 1 and said in err and "Traceback" not in err
    assert bb7.read("f.txt") == BASE


# -- 4: an edit made after a crash: the text the apply replaced is kept ------------------------


def test_a_file_edited_after_a_killed_apply_keeps_the_replaced_text_for_undo(bb7: Bb7) -> None:
    local_edits_over_a_pending_output(bb7)
    killed = bb7.run(
        "output", "apply", "--force", "f.txt", ok=None, env={CRASH_ENV: "after_rename"}
    )
    assert killed.returncode == -signal.SIGKILL
    bb7.write("f.txt", MODEL + "typed after the crash\n")  # before the next bb7 command
    said = bb7("status")[1]
    assert "finished an interrupted apply of f.txt, which was edited since" in said
    assert "`bb7 output undo --force f.txt`" in said and said.count("\n") == 1
    assert "changed since the apply" in bb7("output", "undo", "f.txt", ok=False)[1]
    bb7("output", "undo", "--force", "f.txt")
    assert bb7.read("f.txt") == LOCAL  # the user's text the forced apply overwrote
    assert bb7.statuses() == {"f.txt": "~M"}  # and the model's output is pending again


# -- 8: a deleted write-ahead log and a lost lease lose nothing --------------------------------


@contextlib.contextmanager
def _chat_waiting_for_its_answer(bb7: Bb7) -> Iterator[subprocess.Popen[str]]:
    """`bb7 chat Hi` as a child process (f.txt in its context), its answer held back by the
    server until the block ends; the child is waited for when the block ends."""
    bb7.write("f.txt", BASE)
    bb7.write("g.txt", BASE)
    bb7("add", "f.txt")
    answer = stream(text_chunk("Part one, "), {"gate": "go"}, text_chunk("part two."), finish())
    with LLMServer([answer]) as server:
        command = ["chat", "--base-url", server.base_url, "--model", "m", "Hi"]
        chat = subprocess.Popen(
            [sys.executable, "-m", "bb7.cli", *command],
            cwd=bb7.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            until(server.chat_requests, "a request to reach the server")
            yield chat
        finally:
            server.open_gate("go")
            with contextlib.suppress(ProcessLookupError):
                os.kill(chat.pid, signal.SIGCONT)
            chat.wait(30)


def test_a_wal_deleted_while_a_chat_runs_loses_neither_the_chat_nor_a_concurrent_add(
    bb7: Bb7,
) -> None:
    with _chat_waiting_for_its_answer(bb7) as chat:
        first = _active_chat(bb7.root)
        # The chat's log fully copied into the database (as SQLite does from time to time),
        # then deleted by another program; a `bb7 add` in another chat meanwhile.
        checkpoint = sqlite3.connect(bb7.root / ".bb7" / "bb7.db")
        checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        checkpoint.close()
        (bb7.root / ".bb7" / "bb7.db-wal").unlink()
        bb7("chats", "new")
        assert "added g.txt" in bb7("add", "g.txt")[0]
    out, err = chat.communicate()
    assert chat.returncode == 0, err
    assert "Part one, part two." in out
    assert bb7.statuses() == {"g.txt": ""}  # the add in the new chat is kept
    bb7("chats", "switch", first)
    assert "part two." in _history(bb7.root)  # and so is the chat's answer


def test_an_add_while_the_log_is_deleted_under_another_process_says_why_and_changes_nothing(
    bb7: Bb7,
) -> None:
    bb7.write("f.txt", BASE)
    bb7.write("g.txt", BASE)
    bb7("add", "f.txt")
    ws = open_workspace(bb7.root)  # another bb7 process, which has just written
    assert not isinstance(ws, Problem)
    with ws.home().transaction():
        ws.home().set_setting("written", "by the other process")
    (bb7.root / ".bb7" / "bb7.db-wal").unlink()
    err = bb7("add", "g.txt", ok=False)[1]
    if sys.version_info >= (3, 11):  # where SQLite's error code comes with the error
        assert err.startswith("bb7: cannot use ") and "its write-ahead log was deleted" in err
    ws.close()  # its next action copies the log it still has open back
    assert bb7("add", "g.txt")[0].startswith("added g.txt")
    assert bb7.statuses() == {"f.txt": "", "g.txt": ""}


def _active_chat(root: Path) -> str:
    ws = open_workspace(root)
    assert not isinstance(ws, Problem)
    try:
        found = ws.active()
        assert found is not None
        return found[1].id
    finally:
        ws.close()


def test_a_chat_stopped_past_its_lease_ends_with_a_message_and_stores_nothing_more(
    bb7: Bb7,
) -> None:
    with _chat_waiting_for_its_answer(bb7) as chat:
        os.kill(chat.pid, signal.SIGSTOP)  # Ctrl-Z
        # Over a minute later (its heartbeat that old), another process takes the chat.
        db = sqlite3.connect(bb7.root / ".bb7" / "bb7.db")
        with db:
            db.execute("UPDATE leases SET heartbeat = heartbeat - 120")
        db.close()
        bb7("add", "g.txt")
    err = chat.communicate()[1]  # resumed (fg) when the block ended
    assert chat.returncode == 1
    assert "no longer holds chat" in err and "nothing more was stored" in err
    assert "Traceback" not in err
    stored = _history(bb7.root)
    assert "Hi" in stored and "part two." not in stored
    assert bb7.statuses() == {"f.txt": "", "g.txt": ""}
