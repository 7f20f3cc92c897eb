"""The file picker's list: git-tracked files first, then untracked unignored ones; a plain
directory is walked without its hidden and build directories."""

from __future__ import annotations

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
