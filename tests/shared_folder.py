"""The shared folder beside the repository, `../shared`: recorded provider streams (wire/) and
the edit generator (tools/gen_edits.py), which some tests read as an extra, never copying them
in. CI lays it beside its clone of the repository; a git worktree finds it beside a folder
above it (/work/shared for /work/wt/NAME). Where it is missing, a test that needs it skips,
except under CI (`CI` set), which always has it: there the test fails, so that no test can
skip in every run unseen."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = next(
    (base.parent / "shared" for base in (ROOT, *ROOT.parents) if (base.parent / "shared").is_dir()),
    None,
)


def shared_path(*parts: str) -> Path | None:
    """`../shared/<parts>` when it is there (for a test's parameters, read at collection)."""
    path = SHARED.joinpath(*parts) if SHARED is not None else None
    return path if path is not None and path.exists() else None


def need_shared(*parts: str) -> Path:
    """`../shared/<parts>`; without it the test skips, or fails under CI."""
    path = shared_path(*parts)
    if path is None:
        missing = "/".join(("../shared", *parts))
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"{missing} is not beside the repository, where CI lays it", False)
        pytest.skip(f"{missing} is not beside the repository (an extra of the shared folder)")
    return path
