"""Puts tests/ on sys.path, so tests in sub-folders (tests/nvim/) can use the shared helpers
here, such as the scripted model server (`llm_server`, and the `server` fixture below); has the
run write bytecode for the checkout's Python even under PYTHONDONTWRITEBYTECODE and keep its
temporary files in memory where there is room (see `pytest_configure`); and starts the long
tests first."""

from __future__ import annotations

import compileall
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = str(Path(__file__).resolve().parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

# Every worker imports every test module, with pytest rewriting its asserts: without a cache
# of the rewritten bytecode (tests/**/__pycache__, git-ignored) that is ~3 s of CPU per worker.
sys.dont_write_bytecode = False

from llm_server import LLMServer  # noqa: E402  (found through the path set above)


@pytest.fixture
def server_models() -> list[dict[str, Any]] | None:
    """The models list the `server` fixture serves: None for llm_server's DEFAULT_MODELS. A
    module whose tests need others (Anthropic's, in messages_api's shape) overrides this."""
    return None


@pytest.fixture
def server(server_models: list[dict[str, Any]] | None) -> Iterator[LLMServer]:
    """The scripted model server (tests/llm_server.py) on 127.0.0.1 for one test: tests push
    its responses and read the requests it got."""
    with LLMServer(models=server_models) as running:
        yield running


# Where the run's temporary files go when the user has not set TMPDIR: a RAM filesystem with
# room for them (a whole run writes ~300 MB, a failed test's files are kept). bb7 fsyncs every
# store commit and atomic write; on a disk other work shares each fsync waits milliseconds,
# which made a third of the suite's time under load. The same calls run, and what the tests
# check (contents, modes, atomicity against a killed process) is the same on tmpfs; surviving a
# power cut is beyond any test.
RAM_DIR = Path("/dev/shm")
RAM_NEEDED = 2 << 30


def temporary_files_in_ram() -> None:
    """Points TMPDIR (this run's, and every process it starts) at `RAM_DIR` if it is usable."""
    if os.environ.get("TMPDIR") or not os.access(RAM_DIR, os.W_OK | os.X_OK):
        return
    room = os.statvfs(RAM_DIR)
    if room.f_bavail * room.f_frsize >= RAM_NEEDED:
        os.environ["TMPDIR"] = str(RAM_DIR)
        tempfile.tempdir = None  # gettempdir() asks again


def pytest_configure(config: pytest.Config) -> None:
    """Brings the bytecode of bb7's own modules up to date once, before the workers start: the
    suite starts hundreds of hosts and CLI processes, and under PYTHONDONTWRITEBYTECODE (which
    they inherit) each would compile bb7 again (~50 ms of CPU per start). The dependencies'
    bytecode is written by `make install`. Then the run's temporary files go to RAM (before
    the xdist workers, which inherit TMPDIR and get their directories under the controller's)."""
    if not hasattr(config, "workerinput"):  # the xdist controller, or a run without xdist
        # Not the example project the demo copies for the user.
        examples = re.compile(r"/examples/")
        compileall.compile_dir(Path(TESTS).parent / "python", quiet=1, rx=examples)
        temporary_files_in_ram()


# What a `long` test may take (a real install, minutes under load) where others have the
# 120 s of pyproject.toml's `timeout`.
LONG_TIMEOUT_S = 600


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked `long` (seconds of real installs) go first. `--dist worksteal` hands each
    worker a slice of the list in order and lets idle workers take from the ends of the
    others' slices: a long test late in a slice would start last and run alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
    for item in items:
        if item.get_closest_marker("long") is not None:
            item.add_marker(pytest.mark.timeout(LONG_TIMEOUT_S))
