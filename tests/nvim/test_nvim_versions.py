"""The version matrix is what it says: each binary reports the version it is run as."""

from __future__ import annotations

import subprocess
from pathlib import Path

from editor import NVIMS


def test_each_binary_of_the_matrix_is_its_version(nvim_binary: Path) -> None:
    (label,) = [name for name, path in NVIMS.items() if path == nvim_binary]
    first = subprocess.run(
        [str(nvim_binary), "--version"], capture_output=True, text=True, check=True
    ).stdout.splitlines()[0]
    assert first.startswith(f"NVIM v{label}"), first
