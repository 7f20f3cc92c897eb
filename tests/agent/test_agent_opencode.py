"""A real agent through bb7's sandbox: OpenCode (npm `opencode-ai`, `opencode acp`) against
the suite's scripted OpenAI-compatible server on 127.0.0.1, one turn of `bb7 agent` that edits
a file. An extra: it runs where OpenCode is installed (`opencode` on $PATH, or its binary in
`$BB7_OPENCODE`) and skips, saying so, where it is not; a turn takes OpenCode 15 s and more,
past the suite's time budget, so CI (without it) does not pay for it.

OpenCode asks before an edit here, is allowed once (`--yes`), sends bb7 the new text
(`fs/write_text_file`, a pending output) and then writes the file itself: the turn ends with
the file as the agent's apply, reviewable and undoable, and nothing else of the project
changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bb7.agent.agents import DEFAULT_AGENTS

HERE = Path(__file__).resolve().parent


def _opencode() -> str | None:
    return os.environ.get("BB7_OPENCODE") or shutil.which(DEFAULT_AGENTS["opencode"][0])


def _netns() -> list[str]:
    """`unshare -n` when it works here (root, or user namespaces), else nothing."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return []
    probe = ["unshare", "-n", "true"] if os.geteuid() == 0 else ["unshare", "-rn", "true"]
    if subprocess.run(probe, capture_output=True, check=False).returncode != 0:
        return []
    return probe[:-1]


@pytest.mark.long
@pytest.mark.skipif(
    _opencode() is None,
    reason="OpenCode is not installed (npm install opencode-ai, or set $BB7_OPENCODE): this "
    "extra runs only where it is",
)
def test_opencode_edits_a_file_through_bb7(tmp_path: Path) -> None:
    opencode = _opencode()
    assert opencode is not None
    project, work = tmp_path / "project", tmp_path / "work"
    project.mkdir()
    work.mkdir()
    (project / "hello.py").write_text('print("hello")\n')
    git = ["git", "-C", str(project), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "hello.py"], check=True)
    subprocess.run([*git, "commit", "-qm", "hello"], check=True)
    subprocess.run([sys.executable, "-m", "bb7.cli", "init", "--root", str(project)], check=True)
    bin_dir = work / "bin"
    bin_dir.mkdir()
    (bin_dir / "opencode").symlink_to(opencode)
    netns = _netns()
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    if netns:
        env["BB7_NETNS"] = "1"
    driver = [sys.executable, str(HERE / "opencode_turn.py"), str(project), str(work)]
    done = subprocess.run(
        [*netns, *driver], env=env, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["code"] == 0, result["stderr"]
    assert result["stdout"].startswith("hello.py greets the world.")
    assert "bb7: opencode asks: " in result["stderr"] and "allowed once (--yes)" in result["stderr"]
    assert "opencode changed hello.py on disk: bb7 output diff hello.py" in result["stdout"]
    # The edit is the agent's apply: reviewable (its diff) and undoable; nothing else changed.
    status = subprocess.run(
        ["git", "-C", str(project), "status", "--short"], capture_output=True, text=True
    )
    assert status.stdout == " M hello.py\n"
    bb7 = [sys.executable, "-m", "bb7.cli"]
    diff = subprocess.run(
        [*bb7, "output", "diff", "hello.py"], cwd=project, capture_output=True, text=True
    )
    assert '-print("hello")\n+print("hello, world")\n' in diff.stdout
    undo = subprocess.run(
        [*bb7, "output", "undo", "hello.py"], cwd=project, capture_output=True, text=True
    )
    assert undo.returncode == 0, undo.stderr
    assert (project / "hello.py").read_text() == 'print("hello")\n'
