"""Nothing sent that the user did not choose, round three (issue 38), through the `bb7`
command line a user types: links out of the project (instruction files, context files swapped
for a link, directory and glob adds), `.bb7/ignore` through links and for the model's asks, a
key the model echoes, the usage log, escape sequences on the terminal, a line written while an
apply renames, and adds started at once. The scripted server records every request, so a test
reads what was sent. Real processes where a race or a hang is the point; else in-process.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bb7_cli import BASE, Bb7
from state_helpers import Project

from bb7.files.fsio import STOP_ENV
from bb7.provider.client import OpenAICompatClient, ProviderConfig
from bb7.provider.failures import HttpProblem
from bb7.refusal import Problem
from bb7.state import context, history
from bb7.state.context import parse_target
from bb7.usage.log import usage_log_path
from llm_server import (
    LLMServer,
    chunk,
    error_response,
    finish,
    reasoning_chunk,
    stream,
    text_chunk,
    tool_call_chunk,
    usage_chunk,
)
from messages_api import messages, text_block, thinking_block

# Text of files outside the project: no byte of it may reach a request.
OUTSIDE = "OUTSIDE-THE-PROJECT-7f3a"
KEY = "sk-or-v1-" + "0a1b2c3d4e5f" * 5


def _outside(tmp_path: Path, name: str, text: str = f"secret = '{OUTSIDE}'\n") -> Path:
    path = tmp_path / "elsewhere" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def _chat(bb7: Bb7, server: LLMServer, *args: str, ok: bool | None = True) -> tuple[str, str]:
    return bb7("chat", "--base-url", server.base_url, "--model", "m", *args, ok=ok)


def _sent(server: LLMServer) -> str:
    return "\n".join(r["body"] for r in server.requests)


def _ok() -> dict[str, object]:
    return stream(text_chunk("ok"), finish())


# -- 1: instruction files go through the context files' path rule and the secret guard ----------


def test_instruction_files_that_lead_out_or_hold_a_secret_are_not_used(
    bb7: Bb7, tmp_path: Path
) -> None:
    (bb7.root / "AGENTS.md").symlink_to(_outside(tmp_path, "credentials"))
    (bb7.root / ".bb7" / "instructions").symlink_to(_outside(tmp_path, "notes.md"))
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    with LLMServer([_ok(), _ok()]) as server:
        err = _chat(bb7, server, "Hi")[1]
        assert OUTSIDE not in _sent(server)
        assert "AGENTS.md not used: it leads out of the project (AGENTS.md resolves " in err
        assert ".bb7/instructions not used: it is a symlink (it leads to " in err
        (bb7.root / "AGENTS.md").unlink()
        bb7.write("AGENTS.md", "Use tabs.\naws = AKIAIOSFODNN7EXAMPLE\n")
        err = _chat(bb7, server, "Again")[1]
        assert "AKIAIOSFODNN7EXAMPLE" not in _sent(server) and OUTSIDE not in _sent(server)
    assert "AGENTS.md not used: it looks like a secret (it holds an AWS access key)" in err


# -- 2: a context file swapped for a link is not read again; its snapshot is kept ---------------


def test_a_context_file_swapped_for_a_link_is_reported_and_not_read(
    bb7: Bb7, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(bb7.root)], check=True)
    with (bb7.root / ".git" / "config").open("a") as config:
        config.write("# GIT-CONFIG-7f3a\n")
    for name in ("notes.py", "conf.py", "keys.py"):
        bb7.write(name, f"{name} as the user added it\n")
    bb7("add", "notes.py", "conf.py", "keys.py")
    # A pull or a checkout replaces them with links.
    for name, target in (
        ("notes.py", _outside(tmp_path, "id_rsa")),
        ("conf.py", bb7.root / ".git" / "config"),
        ("keys.py", bb7.root / "aws.txt"),
    ):
        (bb7.root / name).unlink()
        (bb7.root / name).symlink_to(target)
    bb7.write("aws.txt", "key = 'AKIAIOSFODNN7EXAMPLE'\n")
    with LLMServer([_ok()]) as server:
        err = _chat(bb7, server, "Hi")[1]
        sent = _sent(server)
    assert OUTSIDE not in sent and "GIT-CONFIG-7f3a" not in sent
    assert "AKIAIOSFODNN7EXAMPLE" not in sent
    assert "notes.py as the user added it" in sent  # the snapshot the user chose is kept
    assert "notes.py leads out of the project now: not sent (the model keeps" in err
    assert "conf.py leads into git's or bb7's own state now: not sent" in err
    assert "keys.py looks like a secret now (it holds an AWS access key): not sent" in err
    out, err = bb7("update", "--all", ok=None)
    assert "not updated notes.py: notes.py leads out of the project now" in out
    assert err == "bb7: 3 files could not be updated\n"


def test_a_new_chat_with_the_same_context_keeps_the_snapshot_of_a_file_swapped_for_a_link(
    project: Project, tmp_path: Path
) -> None:
    """`:BB7New!` snapshots each file afresh: never through a link out of the project, nor
    a file that now holds a secret; the snapshots the user chose are kept instead."""
    project.write("notes.py", "notes as the user added them\n")
    project.write("keys.py", "keys = None\n")
    for name in ("notes.py", "keys.py"):
        context.add(project.store, project.chat_id, parse_target(name))
    (project.root / "notes.py").unlink()
    (project.root / "notes.py").symlink_to(_outside(tmp_path, "id_rsa"))
    project.write("keys.py", "key = 'AKIAIOSFODNN7EXAMPLE'\n")
    chat = history.reuse_context(project.store, project.chat_id)
    assert not isinstance(chat, Problem)
    texts = {e.path: project.store.blob(e.blob) for e in project.store.entries(chat.id)}
    assert texts == {"notes.py": "notes as the user added them\n", "keys.py": "keys = None\n"}


# -- 3: directory and glob adds leave out links that lead out of the project --------------------


def test_directory_and_glob_adds_leave_out_links_out_of_the_project_and_say_so(
    bb7: Bb7, tmp_path: Path
) -> None:
    bb7.write("docs/a.md", "a\n")
    bb7.write("src/x.py", "x = 1\n")
    (bb7.root / "docs" / "cred.md").symlink_to(_outside(tmp_path, "credentials"))
    (bb7.root / "src" / "leak.py").symlink_to(_outside(tmp_path, "leak.py"))
    err = bb7("add", "docs", "src/**/*")[1]
    assert err == ("bb7: left out 2 files linked out of the project: docs/cred.md, src/leak.py\n")
    assert bb7.statuses() == {"docs/a.md": "", "src/x.py": ""}
    assert bb7("add", "src/l*", ok=False)[1] == (
        "bb7: src/l* names no text file to add (left out 1 file linked out of the project)\n"
    )
    out = bb7("add", "docs/cred.md")[0]  # named exactly: the user's choice, read-only
    assert out.startswith(f"added {tmp_path / 'elsewhere' / 'credentials'} (external)")


# -- 4: .bb7/ignore holds where a link leads, and for files the model asks for -------------------


def test_bb7_ignore_holds_through_links_and_for_the_files_the_model_asks_for(bb7: Bb7) -> None:
    bb7.write(".bb7/ignore", "private/\n")
    bb7.write("private/p.md", "PRIVATE-7f3a\n")
    bb7.write("ok.py", "ok = 1\n")
    (bb7.root / "pub").symlink_to("private")
    (bb7.root / "p.md").symlink_to("private/p.md")
    assert bb7("add", "pub", ok=False)[1] == "bb7: pub names no text file to add\n"
    err = bb7("add", "p.md", ok=False)[1]
    assert "p.md resolves through a symlink to private/p.md, which .bb7/ignore leaves out" in err
    asks = "\u00ab\u00ab\u00ab FILES\nwhy: to see them\nprivate/p.md\npub/p.md\nok.py\n"
    asks += "\u00bb\u00bb\u00bb FILES END\n"
    with LLMServer([stream(text_chunk(asks), finish())]) as server:
        out = _chat(bb7, server, "Hi")[0]
    assert "    private/p.md  not available: in .bb7/ignore" in out
    assert "    pub/p.md  not available: in .bb7/ignore" in out
    assert "    ok.py  [" in out
    assert bb7.statuses() == {}


# -- 5: a key echoed back is stored nowhere; a key typed as a spec is never shown ---------------


def test_a_key_the_model_echoes_is_redacted_from_the_database_and_the_usage_log(
    bb7: Bb7, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_KEY", KEY)
    monkeypatch.delenv("BB7_DATA_DIR", raising=False)
    echo = stream(
        chunk({"reasoning": f"The key is {KEY}."}, model=KEY),  # the first model names it
        chunk({"content": f"Your key: {KEY}"}),
        # A call the model names, numbers and fills with the key: an unknown tool, whose
        # failure note the chat keeps.
        tool_call_chunk(0, id=KEY, name=KEY, arguments=json.dumps({"path": KEY})),
        usage_chunk(100, 10, cost=0.001),
        finish("tool_calls"),
    )
    with LLMServer([echo]) as server:
        out = _chat(bb7, server, "--api-key", "TEST_KEY", "Hi", ok=None)[0]
        assert server.requests[-1]["headers"]["authorization"] == f"Bearer {KEY}"
        said = [
            _chat(bb7, server, "--api-key", spec, "Hi", ok=None)[1]
            for spec in (f"cmd:{KEY}", f"cmd:'{KEY}'", f'file:"{KEY}"')
        ]
    assert "Your key: " in out
    for err in said:
        assert "looks like a key itself after `" in err and "(not shown here)" in err
        assert KEY not in err
    with sqlite3.connect(bb7.root / ".bb7" / "bb7.db") as db:
        stored = "\n".join(db.iterdump())
    log = usage_log_path().read_text()
    assert KEY not in stored and KEY not in log
    assert "Your key: [redacted]" in stored and "The key is [redacted]." in stored
    assert ",[redacted]," in log


def test_a_key_in_anthropic_thinking_is_stored_redacted(
    bb7: Bb7, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anthropic's signed thinking blocks go back only to Anthropic (a repair's tool turn);
    what the chat keeps of them is the reasoning, redacted."""
    key = "sk-ant-api03-" + "0a1b2c3d4e5f" * 5
    monkeypatch.setenv("TEST_KEY", key)
    answer = messages(thinking_block(f"The key is {key}.", "sig"), text_block("Hello."))
    with LLMServer([answer]) as server:
        bb7("chat", "--provider", "anthropic", "--base-url", server.base_url, "--model", "m",
            "--api-key", "TEST_KEY", "Hi")  # fmt: skip
    with sqlite3.connect(bb7.root / ".bb7" / "bb7.db") as db:
        stored = "\n".join(db.iterdump())
    assert key not in stored and "The key is [redacted]." in stored


# -- 7: the usage log trusts nothing it is given ------------------------------------------------


def test_the_usage_log_neutralises_and_caps_cells_and_refuses_what_is_not_a_file(
    bb7: Bb7, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BB7_DATA_DIR", raising=False)
    answers = [
        stream(chunk({"content": "a"}, model=model), usage_chunk(10, 1, cost=0.5), finish())
        for model in ('=HYPERLINK("http://x")', "m" * 200_000)
    ]
    with LLMServer(answers) as server:
        _chat(bb7, server, "one")
        _chat(bb7, server, "two")
    log = usage_log_path()
    lines = log.read_text().splitlines()
    assert ',"\'=HYPERLINK(""http://x"")",' in lines[1]  # a string to a spreadsheet
    assert len(lines[2]) < 400
    with log.open("a") as damaged:
        damaged.write("x" * 131_073 + "\n")
    out, err = bb7("usage", "--no-credit")
    assert out.startswith("today: $1.00 in 2 requests") and err == (
        "bb7: usage log: 1 damaged line skipped\n"
    )
    log.unlink()
    for make, said in (
        (os.mkfifo, "a FIFO (named pipe)"),
        (lambda p: os.symlink("/dev/zero", p), "a character device"),
        (os.mkdir, "a directory"),
    ):
        make(log)
        # A FIFO could hang the command: in a process of its own, with a time limit.
        fifo = said.startswith("a FIFO")
        err = bb7.run("usage", "--no-credit").stderr if fifo else bb7("usage", "--no-credit")[1]
        assert f"usage log not read: {log} is {said}, not a regular file" in err
        if fifo:  # and a send, which appends to the log, neither hangs nor fails
            with LLMServer([stream(text_chunk("a"), usage_chunk(1, 1, cost=0.1), finish())]) as s:
                bb7.run("chat", "--base-url", s.base_url, "--model", "m", "three")
        (os.rmdir if said == "a directory" else os.unlink)(log)


# -- 8: escape sequences reach no terminal ------------------------------------------------------

ESC = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b]0;title\x07\x9b"


def test_control_characters_from_a_model_or_a_provider_are_shown_never_sent(
    bb7: Bb7, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "ev\x1b[8mil.txt"
    write = json.dumps({"path": name, "content": "new\n"})
    answer = stream(
        reasoning_chunk(f"think {ESC}"),
        text_chunk(f"Hello {ESC}world"),
        tool_call_chunk(0, id="c1", name="write_file", arguments=write),
        finish("tool_calls"),
    )
    key = {"limit": 2, "limit_remaining": 1, "limit_reset": f"monthly{ESC}"}
    monkeypatch.setenv("TEST_KEY", KEY)
    with LLMServer(
        [answer, error_response(400, f"bad {ESC}request")], native={"GET /v1/key": {"data": key}}
    ) as server:
        said = [
            *bb7("chat", "--base-url", server.base_url, "--model", "test/tools-model",
                 "--show-reasoning", "Hi"),
            *bb7("status"),
            *_chat(bb7, server, "again", ok=None),
            *bb7("usage", "--provider", "openrouter", "--base-url", server.base_url,
                 "--api-key", "TEST_KEY"),
            *bb7("output", "apply", "--all"),
        ]  # fmt: skip
    for text in said:
        assert not any(c in text for c in "\x1b\x07\x9b"), text
    joined = "".join(said)
    assert "Hello \\033]52;c;ZXZpbA==\\007\\033[2J" in joined
    assert "ev\\033[8mil.txt" in joined and "monthly\\033]52" in joined
    raw = bb7("status", "--json")[0]
    assert "\\u001b" in raw and "\x1b" not in raw
    assert json.loads(raw)["files"][0]["path"] == name


# -- 9: a line another process writes while an apply renames is kept ------------------------------


def _apply_raced(
    bb7: Bb7, *theirs: str, step: str = "before_rename"
) -> subprocess.CompletedProcess[str]:
    """`bb7 output apply f.txt`, stopped at `step` of its write (each time it gets there) while
    another program, which opened f.txt at the first stop and keeps it open, appends the next
    of `theirs` there."""
    args = ("output", "apply", "f.txt")
    child = subprocess.Popen(
        [sys.executable, "-m", "bb7.cli", *args],
        cwd=bb7.root,
        env=dict(os.environ, **{STOP_ENV: step}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, status = os.waitpid(child.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    with (bb7.root / "f.txt").open("a") as late:
        for line in theirs:
            assert os.WIFSTOPPED(status), f"{line!r} not written: the apply did not stop again"
            late.write(line)
            late.flush()
            os.kill(child.pid, signal.SIGCONT)
            _, status = os.waitpid(child.pid, os.WUNTRACED)
    while os.WIFSTOPPED(status):  # the writes that keep the late lines stop there too
        os.kill(child.pid, signal.SIGCONT)
        _, status = os.waitpid(child.pid, os.WUNTRACED)
    assert child.stdout is not None and child.stderr is not None
    code = os.waitstatus_to_exitcode(status)
    return subprocess.CompletedProcess(args, code, child.stdout.read(), child.stderr.read())


def test_a_line_appended_while_an_apply_renames_is_merged_or_kept_never_lost(bb7: Bb7) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": BASE.replace("line 1", "LINE 1")})
    done = _apply_raced(bb7, "a line appended meanwhile\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "applied f.txt; kept what another program wrote to it meanwhile (a local change now)\n"
    )
    assert bb7.read("f.txt") == "LINE 1\nline 2\nline 3\na line appended meanwhile\n"
    assert bb7.statuses() == {"f.txt": "~"}
    bb7("update", "f.txt")
    bb7.model_writes({"f.txt": bb7.read("f.txt") + "the model's line\n"})
    done = _apply_raced(bb7, "the other program's line\n")
    assert done.returncode == 1 and "nothing was written" in done.stderr
    assert bb7.read("f.txt").endswith("meanwhile\nthe other program's line\n")
    assert bb7.temp_files() == []


def test_a_program_that_keeps_writing_into_the_replaced_file_loses_no_line(bb7: Bb7) -> None:
    """Its second line goes into the old file after the apply read it once more (while the
    merge of the first is written): read again after that write, it is merged too."""
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": BASE.replace("line 1", "LINE 1")})
    done = _apply_raced(bb7, "first late line\n", "second late line\n")
    assert done.returncode == 0, done.stderr
    assert bb7.read("f.txt") == "LINE 1\nline 2\nline 3\nfirst late line\nsecond late line\n"


def test_a_line_appended_while_a_hard_linked_file_is_written_in_place_is_kept(
    bb7: Bb7,
) -> None:
    """No rename for a file with several links: the line another program appends halfway
    through bb7's write lands past it and stays, after the new text."""
    bb7.write("f.txt", BASE)
    os.link(bb7.root / "f.txt", bb7.root / "g.txt")
    bb7("add", "f.txt")
    bb7.model_writes({"f.txt": "the model's first line\n" + BASE})
    done = _apply_raced(bb7, "a line appended meanwhile\n", step="in_place_halfway")
    assert done.returncode == 0, done.stderr
    assert "kept what another program wrote to it meanwhile" in done.stdout
    both = "the model's first line\n" + BASE + "a line appended meanwhile\n"
    assert bb7.read("f.txt") == both and bb7.read("g.txt") == both
    assert bb7.statuses() == {"f.txt": "~"}


# -- 10: adds started at once all land in one chat ----------------------------------------------


def test_adds_started_at_once_all_land_in_one_chat(bb7: Bb7) -> None:
    names = [f"f{i}.txt" for i in range(6)]
    for name in names:
        bb7.write(name, f"{name}\n")
    adds = [
        subprocess.Popen(
            [sys.executable, "-m", "bb7.cli", "add", name],
            cwd=bb7.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]
    said = [add.communicate(timeout=60) for add in adds]
    assert all(add.returncode == 0 for add in adds), said
    assert all(out.startswith("added f") for out, _ in said), said
    assert bb7.statuses() == dict.fromkeys(names, "")
    assert len(bb7("chats", "list")[0].splitlines()) == 1


# -- 6: a request that is not the chat stream has one deadline and one size cap ------------------


def test_side_requests_stop_at_their_deadline_and_their_size_cap(
    bb7: Bb7, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_KEY", KEY)
    native = {
        "GET /v1/key": {"endless": True},  # an answer without end: 16 MiB read, then no more
        "GET /v1/models": {"trickle": 1.0, "body": {"data": []}},  # a byte a second
    }
    with LLMServer(native=native) as server:
        out = bb7(
            "usage", "--provider", "openrouter", "--base-url", server.base_url,
            "--api-key", "TEST_KEY",
        )[0]  # fmt: skip
        client = OpenAICompatClient(ProviderConfig(base_url=server.base_url))
        started = time.monotonic()
        got = client.get_json("models", timeout=0.5)
        took = time.monotonic() - started
        client.close()
    assert "OpenRouter credit: unknown (" in out and "answered over 16 MiB" in out
    assert isinstance(got, HttpProblem) and got.kind == "timeout"
    assert took < 10  # the 0.5 s deadline, with room for a busy machine; not 15 s
