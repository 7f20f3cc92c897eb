"""Puts tests/ on sys.path, so tests in sub-folders (tests/nvim/) can use the shared helpers
here, such as the local OpenAI-compatible server (`llm_server`)."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = str(Path(__file__).resolve().parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)
