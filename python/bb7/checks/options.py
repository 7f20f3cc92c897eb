"""What `setup()` says of the checks (`checks` in lua/bb7/config.lua): this machine's checks and
when they run by themselves. Shapes only, cheap to import (the host's settings hold them);
reading `.bb7/checks.toml` and merging is `bb7.checks.config`'s job.
"""

from __future__ import annotations

import msgspec


class CheckSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One check as declared. From `setup()`, every field but `name` may be left out: it then
    changes only those fields of the project's check of that name (`enabled = false` drops
    it); a new name needs `run`."""

    name: str
    run: list[str] | str | None = None
    files: list[str] | None = None
    timeout: float | None = None
    enabled: bool | None = None


class ChecksOptions(msgspec.Struct, frozen=True, kw_only=True):
    """`setup()`'s `checks`: this machine's checks, and when they run by themselves.
    `on_answer` None: after each answer that leaves pending outputs, when checks are declared;
    `auto_fix`: how many "make the checks pass" rounds bb7 sends by itself."""

    on_answer: bool | None = None
    auto_fix: int = 0
    checks: list[CheckSpec] = []
