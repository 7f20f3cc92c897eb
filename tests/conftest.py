"""Puts tests/ on sys.path, so tests in sub-folders (tests/nvim/) can use the shared helpers
here, such as the local OpenAI-compatible server (`llm_server`); and has the run write bytecode
for the checkout's Python even under PYTHONDONTWRITEBYTECODE (see `pytest_configure`)."""

from __future__ import annotations

import compileall
import re
import sys
from pathlib import Path

import pytest

TESTS = str(Path(__file__).resolve().parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

# Every worker imports every test module, with pytest rewriting its asserts: without a cache
# of the rewritten bytecode (tests/**/__pycache__, git-ignored) that is ~3 s of CPU per worker.
sys.dont_write_bytecode = False


def pytest_configure(config: pytest.Config) -> None:
    """Brings the bytecode of bb7's own modules up to date once, before the workers start: the
    suite starts hundreds of hosts and CLI processes, and under PYTHONDONTWRITEBYTECODE (which
    they inherit) each would compile bb7 again (~50 ms of CPU per start). The dependencies'
    bytecode is written by `make install`."""
    if not hasattr(config, "workerinput"):  # the xdist controller, or a run without xdist
        # Not the example project the demo copies for the user.
        examples = re.compile(r"/examples/")
        compileall.compile_dir(Path(TESTS).parent / "python", quiet=1, rx=examples)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked `long` (seconds of real installs) go first. `--dist worksteal` hands each
    worker a slice of the list in order and lets idle workers take from the ends of the
    others' slices: a long test late in a slice would start last and run alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
