"""Agent tests get a git project with an agent chat (`agent_helpers.Sitting`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_helpers import Sitting


@pytest.fixture
def sitting(tmp_path: Path) -> Iterator[Sitting]:
    made = Sitting(tmp_path)
    yield made
    for session in made.sessions:
        session.close()
    made.store.close()
