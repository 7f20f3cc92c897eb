"""Helpers for the checks tests: small real projects, the checks file, every byte of a tree,
and the processes a check left running (found by the name bb7 puts in a check's environment)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

PROJECT = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
    ".gitignore": "build/\n",
    "build/out.txt": "built\n",
}
# pytest as this suite's venv has it, started without the suite's plugins (seconds saved).
PYTEST = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 pytest -q -p no:cacheprovider"


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
    return root


def write_checks(root: Path, toml: str) -> None:
    (root / ".bb7").mkdir(exist_ok=True)
    (root / ".bb7" / "checks.toml").write_text(toml)


def link_venv(root: Path) -> None:
    """The project's `.venv`: this suite's own (pytest and ruff are in it), as a symlink, so
    its tools are found where a project's are."""
    (root / ".venv").symlink_to(Path(sys.prefix))


def git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def every_byte(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and link under `root` (links not followed): its bytes (a link: its target)
    and mode."""
    found: dict[str, tuple[bytes, int]] = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(directory) / name
            info = path.lstat()
            key = str(path.relative_to(root))
            if stat.S_ISLNK(info.st_mode):
                found[key] = (os.readlink(path).encode(), info.st_mode)
            elif stat.S_ISREG(info.st_mode):
                found[key] = (path.read_bytes(), info.st_mode)
            else:
                found[key] = (b"", info.st_mode)
    return found


def processes_named(check: str) -> list[int]:
    """Processes still running with `BB7_CHECK=check` in their environment."""
    needle = f"BB7_CHECK={check}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    pids.append(int(entry))
        except OSError:
            continue
    return pids
