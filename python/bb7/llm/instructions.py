"""Loading the user's and the project's standing instructions for the model.

User instructions live in `$XDG_CONFIG_HOME/bb7/instructions.md` (else
`~/.config/bb7/instructions.md`), project instructions in `<root>/.bb7/instructions`. Both are
optional plain text; a missing file is normal, an unreadable one is reported so the user can
fix it instead of wondering why the model ignores it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import msgspec

from bb7.fsio import FileProblem, load_text

PROJECT_INSTRUCTIONS = ".bb7/instructions"
_MAX_BYTES = 256 * 1024


class Instructions(msgspec.Struct, frozen=True):
    """Instruction texts (None when absent) and the paths they came from, for display."""

    user: str | None = None
    project: str | None = None
    user_source: str = "~/.config/bb7/instructions.md"
    project_source: str = PROJECT_INSTRUCTIONS
    problems: tuple[str, ...] = ()


def user_instructions_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "bb7" / "instructions.md"


def load_instructions(
    project_root: Path | None, environ: Mapping[str, str] | None = None
) -> Instructions:
    """Both instruction files; `project_root` None (a global chat) skips the project's."""
    user_path = user_instructions_path(environ)
    problems: list[str] = []
    user = _read(user_path, problems)
    project = None
    if project_root is not None:
        project = _read(project_root / PROJECT_INSTRUCTIONS, problems)
    return Instructions(
        user=user,
        project=project,
        user_source=_display(user_path),
        problems=tuple(problems),
    )


def _read(path: Path, problems: list[str]) -> str | None:
    loaded = load_text(path, max_bytes=_MAX_BYTES)
    if isinstance(loaded, FileProblem):
        if loaded.kind != "missing":
            problems.append(f"Instructions not used: {loaded.message}.")
        return None
    return loaded if loaded.strip() else None


def _display(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if text.startswith(home + os.sep) else text
