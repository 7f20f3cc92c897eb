"""Atomic writes keep mode, bytes and line endings; project paths stay inside the root."""

from __future__ import annotations

import os
from pathlib import Path

from bb7.files.fsio import FileProblem, atomic_write, load_text
from bb7.files.paths import PathProblem, project_path


def test_atomic_write_keeps_mode_and_exact_text(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_bytes(b"#!/bin/sh\r\necho hi\r\n")
    target.chmod(0o755)
    atomic_write(target, "\ufeff#!/bin/sh\r\necho bye\r\n")
    assert target.read_bytes() == "\ufeff#!/bin/sh\r\necho bye\r\n".encode()
    assert target.stat().st_mode & 0o777 == 0o755
    assert [p.name for p in tmp_path.iterdir()] == ["run.sh"]


def test_load_text_refuses_binary_oversized_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "bin").write_bytes(b"abc\0def")
    (tmp_path / "big").write_text("x" * 100)
    assert isinstance(problem := load_text(tmp_path / "bin"), FileProblem)
    assert problem.kind == "binary"
    assert isinstance(problem := load_text(tmp_path / "big", max_bytes=10), FileProblem)
    assert problem.kind == "too_large"
    assert isinstance(problem := load_text(tmp_path / "nope"), FileProblem)
    assert problem.kind == "missing"
    (tmp_path / "crlf").write_bytes(b"a\r\nb\r\n")
    assert load_text(tmp_path / "crlf") == "a\r\nb\r\n"


def test_project_paths_are_relative_and_inside_the_root(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert project_path(tmp_path, "src/../src/a.py") == "src/a.py"
    assert project_path(tmp_path, str(tmp_path / "src" / "a.py")) == "src/a.py"
    for bad, kind in [
        ("../x", "outside_root"),
        ("/etc/passwd", "outside_root"),
        (".git/config", "protected"),
        (".bb7/bb7.db", "protected"),
        ("", "empty"),
    ]:
        result = project_path(tmp_path, bad)
        assert isinstance(result, PathProblem) and result.kind == kind, bad


def test_a_symlinked_directory_pointing_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(outside, root / "link")
    result = project_path(root, "link/file.txt")
    assert isinstance(result, PathProblem) and result.kind == "outside_root"


def test_file_id_covers_path_and_exact_bytes() -> None:
    from bb7.files.fileid import file_id

    assert file_id("a.py", "x\n") == file_id("a.py", "x\n")
    assert len(file_id("a.py", "x\n")) == 8
    assert file_id("a.py", "x\n") != file_id("b.py", "x\n")
    assert file_id("a.py", "x\n") != file_id("a.py", "x\r\n")
