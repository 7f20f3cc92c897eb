"""The file picker's list: git-tracked files first, then untracked unignored ones; a plain
directory is walked without its hidden and build directories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from bb7.adding.project_files import project_files


def write(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_tracked_files_come_first_then_untracked_ones_git_does_not_ignore(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    write(tmp_path, "src/z.py", "a.py", ".gitignore", "gone.py")
    (tmp_path / ".gitignore").write_text("*.log\n")
    git(tmp_path, "add", "src/z.py", "a.py", ".gitignore", "gone.py")
    (tmp_path / "gone.py").unlink()  # tracked, deleted: nothing to add
    write(tmp_path, "new.py", "debug.log", ".bb7/state.db")
    assert project_files(tmp_path) == [".gitignore", "a.py", "src/z.py", "new.py"]
    assert project_files(tmp_path, limit=2) == [".gitignore", "a.py"]


def test_outside_git_the_tree_is_walked_without_hidden_or_build_directories(
    tmp_path: Path,
) -> None:
    write(tmp_path, "b.py", "pkg/a.py", ".git2/x", "node_modules/m.js", ".bb7/state.db")
    assert project_files(tmp_path) == ["b.py", "pkg/a.py"]


def test_a_walk_again_sees_files_added_removed_and_renamed_since(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "pkg/b.py", "pkg/deep/c.py")
    (tmp_path / "pkg" / "link").symlink_to(tmp_path / "pkg" / "deep")  # not followed
    assert project_files(tmp_path) == ["a.py", "pkg/b.py", "pkg/deep/c.py"]
    write(tmp_path, "pkg/deep/new.py")
    (tmp_path / "a.py").rename(tmp_path / "z.py")
    (tmp_path / "pkg" / "b.py").unlink()
    assert project_files(tmp_path) == ["z.py", "pkg/deep/c.py", "pkg/deep/new.py"]


def test_only_links_the_path_rule_lets_bb7_read_are_listed(tmp_path: Path) -> None:
    """A hostile clone's links are no project files to pick: one leading out of the project
    (through a chain of relative links too), into `.git`, or onto what `.bb7/ignore` leaves
    out; nor is a FIFO. A link to a project file is."""
    root = tmp_path / "proj"
    write(tmp_path, "elsewhere/credentials", "proj/src/a.py", "proj/private/p.md")
    write(root, ".bb7/ignore")
    (root / ".bb7" / "ignore").write_text("private/\n")
    (root / "src" / "cred.md").symlink_to(tmp_path / "elsewhere" / "credentials")
    (root / "src" / "hop.md").symlink_to("hop2")
    (root / "src" / "hop2").symlink_to("../../elsewhere/credentials")
    (root / "p.md").symlink_to("private/p.md")
    (root / "same.py").symlink_to("src/a.py")
    os.mkfifo(root / "src" / "pipe.py")
    assert project_files(root) == ["same.py", "src/a.py"]
    git(root, "init", "-q")
    (root / "g.md").symlink_to(".git/config")
    git(root, "add", "-A")
    assert project_files(root) == ["same.py", "src/a.py"]
