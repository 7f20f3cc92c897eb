"""Live context parts (`bb7.live`): what each reader makes of the editor's state or of git, the
bound it keeps, and how the chat stores them (read again at each send, as the model saw them
kept in each message's snapshot)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bb7 import live
from bb7.live.diagnostics import Diagnostic, diagnostics_text
from bb7.live.diff import diff_text
from bb7.live.terminal import Terminal, terminal_text
from bb7.refusal import Problem
from bb7.state import context
from bb7.state.chats import append_user_message, new_chat
from bb7.state.context import Target
from bb7.state.status import file_statuses
from bb7.state.store import init_project

ROOT = "/p"


def diag(path: str, line: int, message: str, severity: int = 1, text: str = "") -> Diagnostic:
    return Diagnostic(
        path=f"{ROOT}/{path}", line=line, col=5, severity=severity, source="pyright",
        message=message, text=text,
    )  # fmt: skip


def test_diagnostics_name_path_line_column_severity_source_message_and_the_line() -> None:
    found = [
        diag("b.py", 3, "unused import", severity=2, text="import os"),
        diag("a.py", 12, '"parse" is not\ndefined', text="    result = parse(text)"),
        diag("other.py", 1, "not in the chat"),
    ]
    shown = {f"{ROOT}/a.py": "a.py", f"{ROOT}/b.py": "b.py", f"{ROOT}/other.py": "other.py"}
    text = diagnostics_text(found, {f"{ROOT}/a.py", f"{ROOT}/b.py"}, shown, 10_000)
    assert text.splitlines() == [
        "Diagnostics of the chat's files (2 in 2 files):",
        'a.py:12:5: error [pyright] "parse" is not defined',
        "    12 |     result = parse(text)",
        "b.py:3:5: warning [pyright] unused import",
        "    3 | import os",
    ]
    every = diagnostics_text(found, None, shown, 10_000)
    assert every.startswith("Diagnostics of every loaded buffer (3 in 3 files):")
    assert (
        diagnostics_text([], None, shown, 10_000) == "Diagnostics of every loaded buffer: none.\n"
    )


def test_a_part_over_its_bound_says_how_much_was_left_out_and_the_bound() -> None:
    many = [diag("a.py", n, f"problem {n}") for n in range(1, 400)]
    text = diagnostics_text(many, None, {}, 2000)
    assert len(text.encode()) <= 2000 + 100
    assert text.splitlines()[-1].endswith(
        "more diagnostics left out: a live part is at most 2000 bytes]"
    )
    assert "problem 1\n" in text and "problem 399" not in text


def test_a_terminal_part_keeps_its_last_lines_and_names_the_earlier_ones_left_out() -> None:
    lines = [f"line {n}" for n in range(1, 301)] + ["", ""]
    term = Terminal(name="term://~//42:/bin/bash", buf=7, lines=lines, total=1302)
    other = Terminal(name="term://~//43:make", buf=9, lines=["ok"], total=1, title="make")
    text = terminal_text([term, other], "", 600)
    rows = text.splitlines()
    assert rows[0] == "The last lines of terminal term://~//42:/bin/bash:"
    assert rows[-2] == "line 300"  # blank lines at the end are dropped
    assert rows[-1].startswith("[") and "earlier lines left out" in rows[-1]
    assert "line 1\n" not in text
    assert terminal_text([term, other], "make", 600).splitlines()[1:] == ["ok"]
    assert terminal_text([term, other], "9", 600).splitlines()[1:] == ["ok"]
    assert terminal_text([term, other], "vim", 600) == "No terminal 'vim' is open.\n"
    assert terminal_text([], "", 600) == "No terminal is open.\n"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "lib.py").write_text("def f():\n    return 1\n")
    (root / ".env").write_text("TOKEN=old\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "one")
    return root


def test_a_diff_part_carries_the_unstaged_hunks_and_leaves_secrets_out(repo: Path) -> None:
    (repo / "lib.py").write_text("def f():\n    return 2\n")
    (repo / ".env").write_text("TOKEN=new\n")
    text = diff_text(repo, "", 10_000)
    assert isinstance(text, str)
    assert text.startswith("The unstaged changes (git diff):\n")
    assert "[left out, as they look like secrets: .env]" in text
    assert "-    return 1\n+    return 2\n" in text and "TOKEN" not in text
    assert diff_text(repo, "--staged", 10_000) == "The staged changes (git diff --staged):\nnone.\n"
    git(repo, "add", "lib.py")
    assert "+    return 2" in str(diff_text(repo, "--staged", 10_000))
    assert "+    return 2" in str(diff_text(repo, "HEAD", 10_000))
    bad = diff_text(repo, "no-such-ref", 10_000)
    assert isinstance(bad, Problem) and bad.kind == "git" and "no-such-ref" in bad.message
    assert "\n" not in bad.message


def test_parsing_the_words_of_a_part() -> None:
    assert live.parse(["diff", "--staged"]) == live.Named("diff", "--staged", "@diff --staged")
    assert live.parse(["@diagnostics"]) == live.Named("diagnostics", "", "@diagnostics")
    assert live.parse(["terminal", "make"]).name == "@terminal make"  # type: ignore[union-attr]
    assert isinstance(live.parse(["diagnostics", "some"]), Problem)
    assert isinstance(live.parse(["diff", "--cached"]), Problem)
    assert live.is_live("@diff main") and live.is_live("terminal") and not live.is_live("src/x")


def test_a_part_is_read_again_at_each_send_and_each_message_keeps_what_was_sent(
    repo: Path,
) -> None:
    store = init_project(repo)
    chat_id = new_chat(store).id
    part = live.parse(["diff"])
    assert isinstance(part, live.Named)
    (repo / "lib.py").write_text("def f():\n    return 2\n")
    first = diff_text(repo, "", 10_000)
    assert isinstance(first, str)
    entry = context.add_part(store, chat_id, part.kind, part.name, first)
    assert not isinstance(entry, Problem)
    (row,) = file_statuses(store, chat_id)
    assert (row.path, row.kind, row.status, row.readonly) == ("@diff", "diff", "R", True)
    assert row.tokens > 0
    sent = append_user_message(store, chat_id, "one")
    (repo / "lib.py").write_text("def f():\n    return 3\n")
    texts, problems = live.read_all(store.entries(chat_id), None, repo)
    assert problems == [] and "+    return 3" in texts["@diff"]
    assert context.follow_edits(store, chat_id) == []  # a part is not a file to follow
    assert context.follow_parts(store, chat_id, texts) == ["@diff"]
    assert context.follow_parts(store, chat_id, texts) == []  # unchanged: nothing to do
    second = append_user_message(store, chat_id, "two")
    assert [store.blob(r.blob) for r in sent.context_snapshot] == [first]
    assert "+    return 3" in store.blob(second.context_snapshot[0].blob)
    # Without an editor, a terminal part keeps what it had; a part cannot be updated by hand.
    assert live.read(live.Named("terminal", "", "@terminal"), None, repo, []) is None
    refused = context.update(store, chat_id, Target("@diff"))
    assert isinstance(refused, Problem) and refused.kind == "live"
    removed = context.remove(store, chat_id, Target("@diff"))
    assert not isinstance(removed, Problem) and store.entries(chat_id) == []
