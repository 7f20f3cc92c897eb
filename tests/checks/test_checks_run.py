"""Checks run for real on small projects, in both copies (the namespace view where this kernel
allows it, the copy in the cache directory always): what a check sees, what it cannot touch,
and checks that misbehave (past their timeout, leaving daemons, printing without end, not
found) costing one line and never a hang."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bb7.checks import run as checks_run
from bb7.checks.config import Check
from bb7.checks.process import OUTPUT_LIMIT, Cancel
from bb7.checks.run import ISOLATION_ENV, LANDLOCK_ENV, probe, run_checks
from bb7.checks.throwaway import Pending, copied, sync_copy
from checks_helpers import every_byte, git_init, make_tree, processes_named

NAMESPACE = probe().isolation == "namespace"
ONLY_COPY = "this kernel refuses user namespaces: the copy is what checks get here"
IN_NAMESPACE = pytest.param("namespace", marks=pytest.mark.skipif(not NAMESPACE, reason=ONLY_COPY))
MODES = ["copy", IN_NAMESPACE]


@pytest.fixture
def isolation(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv(ISOLATION_ENV, request.param)
    monkeypatch.setattr(checks_run._Isolation, "allowed", None)
    yield request.param


def check(name: str, script: str, timeout: float = 20.0) -> Check:
    return Check(name=name, run=script, timeout=timeout)


@pytest.mark.parametrize("isolation", MODES, indirect=True)
def test_a_check_sees_the_pending_change_and_cannot_change_the_project(
    isolation: str, tmp_path: Path
) -> None:
    files = {"src/a.py": "old\n", ".gitignore": "build/\n", "build/out.txt": "built\n"}
    tools = {".venv/lib/site.py": "tool\n", "node_modules/m/index.js": "js\n"}
    root = make_tree(tmp_path / "proj", {**files, **tools, "tool.sh": "#!/bin/sh\n"})
    os.chmod(root / "tool.sh", 0o755)
    git_init(root)
    before = every_byte(root)
    pending = [Pending("src/a.py", b"new\r\n", 0o644), Pending("src/added.py", b"added\n")]
    # Into the copy, into an ignored directory and tool directories (reached through links
    # in the copy, in the namespace the project's own path), by the project's absolute path,
    # and outside; then into its own TMPDIR.
    writes = (
        "cat src/a.py src/added.py build/out.txt; "
        "echo mine > src/a.py; echo junk > src/junk.txt; rm tool.sh; chmod 600 .gitignore; "
        "echo outside > ../outside.txt; echo over > build/out.txt; rm build/out.txt; "
        "echo pip > .venv/lib/site.py; mkdir .venv/new; touch node_modules/m/new.js; "
        f"echo abs > {root}/abs.txt; mv {root}/src/a.py {root}/moved.py; "
        'echo tmp > "${TMPDIR:-/tmp}/bb7-check-tmp" && echo tmp written'
    )
    done = run_checks(root, [check("writes", writes)], pending, Cancel())
    assert done is not None
    (outcome,), used = done
    assert used == isolation
    assert outcome.state == "passed", outcome
    assert outcome.output.startswith("new\r\nadded\nbuilt\n")
    assert outcome.output.endswith("tmp written\n")
    if isolation == "copy":
        # Landlock: every write into the project fails in the check, and says so.
        refused = [line for line in outcome.output.splitlines() if "ermission denied" in line]
        assert len(refused) == 7, outcome.output
    assert outcome.files == ["src/a.py", "src/added.py"]
    assert every_byte(root) == before


@pytest.mark.parametrize("isolation", ["copy"], indirect=True)
def test_without_namespace_or_landlock_checks_are_not_run_unless_asked_unconfined(
    isolation: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LANDLOCK_ENV, "off")
    root = make_tree(tmp_path / "proj", {"a.py": "a\n", ".gitignore": "build/\n", "build/o": ""})
    git_init(root)
    writes = check("writes", "echo over > build/o")
    assert probe().isolation == "none"
    done = run_checks(root, [writes], [], Cancel())
    assert done is not None
    (outcome,), used = done
    assert (outcome.state, outcome.message, used) == ("error", checks_run.UNCONFINED, "copy")
    assert (root / "build/o").read_text() == ""
    # The user's choice: the copy as it is, whose links a check writes through.
    monkeypatch.setenv(ISOLATION_ENV, "unconfined")
    assert probe().isolation == "unconfined"
    done = run_checks(root, [writes], [], Cancel())
    assert done is not None
    assert (done[0][0].state, done[1]) == ("passed", "unconfined")
    assert (root / "build/o").read_text() == "over\n"


@pytest.mark.parametrize("isolation", MODES, indirect=True)
def test_the_projects_own_tools_are_found_as_its_shell_finds_them(
    isolation: str, tmp_path: Path
) -> None:
    tools = {
        ".venv/bin/pytool": "#!/bin/sh\necho py $VIRTUAL_ENV\n",
        "node_modules/.bin/jstool": "#!/bin/sh\necho js\n",
    }
    root = make_tree(tmp_path / "proj", tools)
    for tool in (".venv/bin/pytool", "node_modules/.bin/jstool"):
        os.chmod(root / tool, 0o755)
    checks = [
        Check(name="py", run=["pytool"]),
        Check(name="js", run="jstool"),
        Check(name="gone", run=["no-such-tool-here"]),
        Check(name="gone-sh", run="no-such-tool-here --x"),
        Check(name="plain", run=["./plain.sh"]),
    ]
    (root / "plain.sh").write_text("#!/bin/sh\n")
    done = run_checks(root, checks, [], Cancel())
    assert done is not None
    py, js, gone, gone_sh, plain = done[0]
    cwd = root if isolation == "namespace" else tmp_path / "cache"
    assert (
        py.state == "passed"
        and py.output.startswith("py ")
        and py.output.endswith("/.venv\n")
        and str(cwd) in py.output
    )
    assert js.state == "passed" and js.output == "js\n"
    assert (gone.state, gone.message) == (
        "error",
        "`no-such-tool-here` not found (looked in .venv/bin, node_modules/.bin and PATH)",
    )
    assert gone_sh.state == "error" and "no-such-tool-here" in gone_sh.message
    assert (plain.state, plain.message) == (
        "error",
        "`./plain.sh` is not executable (chmod +x ./plain.sh)",
    )


@pytest.mark.parametrize("isolation", MODES, indirect=True)
def test_a_check_past_its_timeout_ends_with_every_process_it_started(
    isolation: str, tmp_path: Path
) -> None:
    root = make_tree(tmp_path / "proj", {"a.txt": "a\n"})
    name = f"sleeper-{isolation}"
    # A daemon that leaves the process group, and a sleep that outlives the timeout.
    script = "(setsid sleep 60 &); echo started; sleep 60"
    started = time.monotonic()
    done = run_checks(root, [check(name, script, timeout=0.3)], [], Cancel())
    took = time.monotonic() - started
    assert done is not None
    (outcome,) = done[0]
    assert outcome.state == "timed_out"
    assert outcome.message == "timed out after 0.3 s (its processes were ended)"
    assert outcome.output == "started\n"
    assert took < 0.3 + 2
    assert processes_named(name) == []


@pytest.mark.parametrize("isolation", MODES, indirect=True)
def test_a_daemon_left_by_a_passing_check_is_ended_with_it(isolation: str, tmp_path: Path) -> None:
    root = make_tree(tmp_path / "proj", {"a.txt": "a\n"})
    name = f"daemon-{isolation}"
    done = run_checks(root, [check(name, "(setsid sleep 60 >/dev/null &); echo ok")], [], Cancel())
    assert done is not None and done[0][0].state == "passed"
    assert processes_named(name) == []


@pytest.mark.parametrize("isolation", ["copy"], indirect=True)
def test_a_check_printing_100_mb_is_kept_to_its_end(isolation: str, tmp_path: Path) -> None:
    root = make_tree(tmp_path / "proj", {"a.txt": "a\n"})
    script = "yes 0123456789abcdef | head -c 100000000; echo; echo the end"
    done = run_checks(root, [check("loud", script)], [], Cancel())
    assert done is not None
    (outcome,) = done[0]
    assert outcome.state == "passed"
    assert outcome.output.endswith("\nthe end\n")
    assert len(outcome.output) <= OUTPUT_LIMIT
    assert outcome.dropped + len(outcome.output) == 100_000_000 + len("\nthe end\n")


@pytest.mark.parametrize("isolation", MODES, indirect=True)
def test_a_cancelled_check_ends_at_once_and_leaves_nothing(isolation: str, tmp_path: Path) -> None:
    root = make_tree(tmp_path / "proj", {"a.txt": "a\n"})
    name = f"cancelled-{isolation}"
    cancel = Cancel()
    result: list[object] = []
    runner = threading.Thread(
        target=lambda: result.append(run_checks(root, [check(name, "sleep 60")], [], cancel))
    )
    runner.start()
    deadline = time.monotonic() + 10
    while not processes_named(name) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert processes_named(name), "the check never started"
    cancel.cancel()
    runner.join(timeout=5)
    assert not runner.is_alive()
    assert result == [None]
    assert processes_named(name) == []


def test_the_copy_is_brought_up_to_date_copying_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    files = {f"pkg/m{i}.py": f"x = {i}\n" for i in range(20)}
    root = make_tree(tmp_path / "proj", {**files, ".gitignore": "build/\n", "build/b": "b\n"})
    git_init(root)
    first = sync_copy(root, [])
    assert (first.copied, first.kept) == (21, 0)  # the 20 files and .gitignore
    again = sync_copy(root, [Pending("pkg/m3.py", b"pending\n")])
    assert (again.copied, again.removed) == (1, 0)
    copy = next((tmp_path / "cache" / "bb7" / "checks").glob("proj-*")) / "copy"
    assert (copy / "pkg/m3.py").read_bytes() == b"pending\n"
    assert os.readlink(copy / "build") == str(root / "build")  # ignored: reached, not copied
    # What a check did to the copy, and the user's edits, are undone or taken at the next one.
    (copy / "pkg/m5.py").write_text("a check's rewrite\n")
    (copy / "pkg/fixture.txt").write_text("a check's file\n")
    (root / "pkg/m7.py").write_text("the user's edit\n")
    (root / "pkg/m8.py").unlink()
    third = sync_copy(root, [])
    assert (third.copied, third.removed) == (3, 2)  # m3 back, m5 back, m7; fixture and m8 gone
    project = {
        k: v for k, v in every_byte(root).items() if k.split("/")[0] not in (".git", "build")
    }
    copied = every_byte(copy)
    assert {k: v for k, v in copied.items() if k not in (".git", "build")} == project


def test_what_a_check_touched_in_the_copy_is_all_the_next_preparation_looks_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = make_tree(tmp_path / "proj", {f"pkg/sub/m{i}.py": f"x = {i}\n" for i in range(30)})
    assert sync_copy(root, []).walked
    with copied(root, [Pending("pkg/sub/m1.py", b"pending\n")]) as view:
        # What a check does: rewrites a file, adds one and a cache, removes another.
        (view.cwd / "pkg/sub/m2.py").write_text("rewritten by a check\n")
        (view.cwd / "pkg/sub/fixture.txt").write_text("written by a check\n")
        (view.cwd / "pkg/__pycache__").mkdir()
        (view.cwd / "pkg/sub/m3.py").unlink()
    report = sync_copy(root, [])
    if sys.platform.startswith("linux"):
        assert not report.walked  # the watch said what the check touched
    assert (report.copied, report.removed) == (3, 1)  # m1 (no longer pending), m2, m3; fixture
    files = {k: v for k, v in every_byte(view.cwd).items() if "__pycache__" not in k}
    assert files == every_byte(root)
    assert (view.cwd / "pkg/__pycache__").is_dir()  # a check's cache stays for the next one


def test_the_project_is_listed_again_only_when_its_directories_or_ignore_rules_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = make_tree(tmp_path / "proj", {"pkg/a.py": "a\n", ".gitignore": "out/\n"})
    git_init(root)
    (root / "out").mkdir()
    long_ago = time.time() - 60  # past git's racy window: the listing can be trusted
    for path in [root, *root.rglob("*")]:
        os.utime(path, (long_ago, long_ago), follow_symlinks=False)
    assert sync_copy(root, []).listed
    assert not sync_copy(root, []).listed  # nothing changed: no git process
    (root / "pkg/b.py").write_text("b\n")  # a new file: its directory's time moves
    again = sync_copy(root, [])
    assert again.listed and again.copied == 1
    copy = next((tmp_path / "cache" / "bb7" / "checks").glob("proj-*")) / "copy"
    assert (copy / "pkg/b.py").read_text() == "b\n"
    (root / ".gitignore").write_text("out/\npkg/b.py\n")  # the rules change, not a directory
    ignored = sync_copy(root, [])
    assert ignored.listed
    assert os.readlink(copy / "pkg/b.py") == str(root / "pkg/b.py")  # ignored: reached now
