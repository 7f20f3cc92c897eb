"""The state commands end to end: `bb7` (in-process, see tests/cli_runner.py) on a real project
directory, its global store in the test's temp dir."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import run_cli
from model_answer import model_writes


class Cli:
    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.capsys = capsys

    def __call__(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = run_cli(self.capsys, *args)
        if ok:
            assert done.returncode == 0, done.stderr
        else:
            assert done.returncode != 0, done.stdout
            assert done.stderr.startswith("bb7: ") and done.stderr.count("\n") == 1, done.stderr
        return done

    def model_writes(self, files: dict[str, str]) -> None:
        model_writes(self.root, files)

    def statuses(self) -> dict[str, str]:
        rows = json.loads(self("status", "--json").stdout)["files"]
        return {
            r["path"] + (f":{r['start_line']}" if r["start_line"] else ""): r["status"]
            for r in rows
        }


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    (root / "README.md").write_text("# app\n\nusage\n")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(root)  # commands without --root act on the current directory
    return Cli(root, capsys)


def test_commands_before_init_say_to_run_init(cli: Cli) -> None:
    assert "bb7 init" in cli("add", "src/app.py", ok=False).stderr


def test_add_status_json_and_remove(cli: Cli) -> None:
    cli("init")
    cli("add", "src/app.py", "README.md:1-2")
    cli("add", "--readonly", "README.md")
    report = json.loads(cli("status", "--json").stdout)
    assert list(report) == ["files", "check"] and report["check"] is None  # no checks declared
    rows = report["files"]
    assert [(r["path"], r["status"], r["readonly"]) for r in rows] == [
        ("README.md", "R", True),
        ("README.md", "S", True),
        ("src/app.py", "", False),
    ]
    assert all(isinstance(r["tokens"], int) and r["tokens"] > 0 for r in rows)
    cli("remove", "README.md:1-2")
    assert cli.statuses() == {"README.md": "R", "src/app.py": ""}
    human = cli("status").stdout
    assert "src/app.py" in human and " R  README.md" in human


def test_refusals_are_one_line_on_stderr(cli: Cli) -> None:
    cli("init")
    (cli.root / "blob.bin").write_bytes(b"\0\1\2")
    assert "binary" in cli("add", "blob.bin", ok=False).stderr
    assert ".git/" in cli("add", ".git/config", ok=False).stderr
    assert "no pending output" in cli("output", "apply", "src/app.py", ok=False).stderr
    assert "does not exist" in cli("add", "src/app.py", "nope.py", ok=False).stderr
    assert cli.statuses() == {}  # the failed multi-add added nothing


def test_output_apply_diff_discard_and_undo(cli: Cli) -> None:
    cli("init")
    cli("add", "src/app.py")
    cli.model_writes({"src/app.py": "def main():\n    return 2\n", "src/new.py": "x = 1\n"})
    assert cli.statuses() == {"src/app.py": "M", "src/new.py": "A"}
    diff = cli("output", "diff", "src/app.py").stdout
    assert "-    return 1\n+    return 2\n" in diff
    cli("output", "apply", "src/app.py")
    assert (cli.root / "src" / "app.py").read_text() == "def main():\n    return 2\n"
    cli("output", "discard", "src/new.py")
    assert cli.statuses() == {"src/app.py": ""}
    cli("output", "undo", "src/app.py")
    assert (cli.root / "src" / "app.py").read_text() == "def main():\n    return 1\n"
    assert cli.statuses() == {"src/app.py": "M"}


def test_output_reject_drops_the_change_and_keeps_the_reason_for_the_model(cli: Cli) -> None:
    cli("init")
    cli("add", "src/app.py")
    cli.model_writes({"src/app.py": "def main():\n    return 2\n"})
    said = cli("output", "reject", "src/app.py", "--reason", "1 is right").stdout
    assert said == "rejected the pending change of src/app.py (1 is right)\n"
    assert cli.statuses() == {"src/app.py": ""}
    assert "one line" in cli("output", "reject", "src/app.py", "--reason", "a\nb", ok=False).stderr
    assert "no pending" in cli("output", "reject", "src/app.py", ok=False).stderr


def test_output_diff_keeps_a_form_feed_inside_its_line_and_shows_it(cli: Cli) -> None:
    (cli.root / "src" / "app.py").write_text("a\x0cb\nc\n")
    cli("init")
    cli("add", "src/app.py")
    cli.model_writes({"src/app.py": "a\x0cb\nd\n"})
    diff = cli("output", "diff", "src/app.py").stdout
    # A control character is shown, never sent to the terminal (issue 38, item 8).
    assert diff == "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n a\\014b\n-c\n+d\n"


def test_apply_all_skips_conflicts_and_force_applies_one(cli: Cli) -> None:
    cli("init")
    cli("add", "src/app.py", "README.md")
    cli.model_writes({"src/app.py": "changed\n", "README.md": "# app\n\nnew usage\n"})
    (cli.root / "src" / "app.py").write_text("my local edit\n")
    done = cli("output", "apply", "--all", ok=False)
    assert "README.md: applied" in done.stdout
    skipped = (
        "~M  src/app.py: skipped: local changes conflict; merge or apply it alone with --force"
    )
    assert skipped in done.stdout
    refused = cli("output", "apply", "src/app.py", ok=False).stderr
    # The command line's own way out, never the editor's commands.
    assert "conflict" in refused and "--merge" in refused and "--force" in refused
    assert ":BB7" not in refused
    cli("output", "apply", "--force", "src/app.py")
    assert (cli.root / "src" / "app.py").read_text() == "changed\n"


def test_apply_merge_keeps_both_sides_and_leaves_overlaps_pending(cli: Cli) -> None:
    base = [f"line {i}" for i in range(1, 7)]
    app = cli.root / "src" / "app.py"
    app.write_text("\n".join(base) + "\n")
    cli("init")
    cli("add", "src/app.py")
    model = ["model 1", *base[1:4], "model 5", base[5]]
    cli.model_writes({"src/app.py": "\n".join(model) + "\n"})
    mine = [*base[:2], "mine 3", base[3], "mine 5", base[5]]
    app.write_text("\n".join(mine) + "\n")
    done = cli("output", "apply", "--merge", "src/app.py", ok=False)
    assert "merged src/app.py except line 5: they overlap your local edits" in done.stderr
    assert app.read_text() == "\n".join(["model 1", *mine[1:]]) + "\n"
    assert cli.statuses() == {"src/app.py": "~M"}
    assert "-mine 5\n+model 5\n" in cli("output", "diff", "src/app.py").stdout


def test_chats_list_new_switch_rename_delete(cli: Cli) -> None:
    cli("init")
    cli("chats", "new", "first")
    first = json.loads(cli("chats", "list", "--json").stdout)["active"]
    cli("add", "src/app.py")
    cli("chats", "new", "second")
    listing = json.loads(cli("chats", "--root", str(cli.root), "list", "--json").stdout)
    assert [c["name"] for c in listing["chats"]] == ["second", "first"]
    assert cli.statuses() == {}
    cli("chats", "switch", first[:6])
    assert cli.statuses() == {"src/app.py": ""}
    cli("chats", "rename", first, "renamed")
    assert "renamed" in cli("chats").stdout
    cli("chats", "pin", first)
    assert json.loads(cli("chats", "list", "--json").stdout)["chats"][0]["pinned"]
    cli("chats", "delete", first)
    assert "no active chat" in cli("status").stdout
    assert "no chat" in cli("chats", "switch", first, ok=False).stderr


# Takes the chat's lease in its own process, like a Neovim, and keeps it until stdin closes.
HOLD_LEASE = """
import sys
from bb7.state import lock
from pathlib import Path
from bb7.state.store import open_project
store = open_project(Path(sys.argv[1]))
print(type(lock.acquire(store, sys.argv[2])).__name__, flush=True)
sys.stdin.read()
"""


def test_a_chat_open_in_another_process_is_refused_until_unlocked(cli: Cli) -> None:
    cli("init")
    cli("add", "src/app.py")
    chat_id = json.loads(cli("chats", "list", "--json").stdout)["active"]
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LEASE, str(cli.root), chat_id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "Lease\n"
        assert "open in another bb7 process" in cli("add", "README.md", ok=False).stderr
        cli("chats", "unlock", chat_id)
        cli("add", "README.md")
    finally:
        holder.communicate(timeout=10)


def test_global_chats_take_files_as_read_only_externals(cli: Cli) -> None:
    cli("init")
    cli("chats", "new", "--global", "notes")
    cli("add", "README.md")
    rows = json.loads(cli("status", "--json").stdout)["files"]
    assert [(Path(r["path"]).name, r["status"], r["kind"]) for r in rows] == [
        ("README.md", "R", "external")
    ]
