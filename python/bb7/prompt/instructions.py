"""Loading the user's and the project's standing instructions for the model.

User instructions live in `$XDG_CONFIG_HOME/bb7/instructions.md` (else
`~/.config/bb7/instructions.md`), project instructions in `<root>/.bb7/instructions` and in the
files a project already keeps for models (`AGENTS.md`, the `context.instruction_files` option),
read in that order. All are optional plain text; a missing file is normal, an unreadable one is
reported so the user can fix it instead of wondering why the model ignores it. A project's
instruction files come with the project, from whoever wrote it: they are read as a context file
is (`bb7.files.guard`: inside the project as named and through any symlink, not in `.git`, not
left out by `.bb7/ignore`), `.bb7/instructions` only where it is (no symlink), and one that
looks like a secret is not sent; each one refused is reported as not used, with why. A line
`@include PATH` of `.bb7/instructions` brings in the text of another project file (PATH from
the root), read by the same rule.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import msgspec

from bb7.files.fsio import FileProblem, load_text
from bb7.files.guard import in_short, readable
from bb7.files.ignore import IgnoreRules, load_ignore
from bb7.files.paths import PathProblem, tilde
from bb7.files.secrets import secret_reason

PROJECT_INSTRUCTIONS = ".bb7/instructions"
# Files projects keep for models, read as project instructions too (the option's default).
MODEL_FILES: tuple[str, ...] = ("AGENTS.md",)
_MAX_BYTES = 256 * 1024


class Instructions(msgspec.Struct, frozen=True):
    """Instruction texts (None when absent) and the paths they came from, for display."""

    user: str | None = None
    project: str | None = None
    user_source: str = "~/.config/bb7/instructions.md"
    project_source: str = PROJECT_INSTRUCTIONS
    problems: tuple[str, ...] = ()
    # Every file that applies (has text), in the order the model reads them.
    applied: tuple[str, ...] = ()


def user_instructions_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "bb7" / "instructions.md"


def load_instructions(
    project_root: Path | None,
    environ: Mapping[str, str] | None = None,
    model_files: Sequence[str] = MODEL_FILES,
) -> Instructions:
    """Every instruction file; `project_root` None (a global chat) skips the project's.
    `model_files` are read after `.bb7/instructions`, relative to the root."""
    user_path = user_instructions_path(environ)
    problems: list[str] = []
    user = _read(user_path, problems)
    applied = [_display(user_path)] if user is not None else []
    parts: list[tuple[str, str]] = []
    if project_root is not None:
        ignore = load_ignore(project_root)
        for name in (PROJECT_INSTRUCTIONS, *model_files):
            refused = _refused(project_root, name, ignore)
            if refused is not None:
                problems.append(f"{name} not used: it {refused}")
                continue
            text = _read(project_root / name, problems)
            if text is not None and name == PROJECT_INSTRUCTIONS:
                text = _included(project_root, text, ignore, problems, (name,))
            secret = None if text is None else secret_reason(_real(project_root, name), text)
            if secret is not None:
                problems.append(f"{name} not used: it looks like a secret\n{secret}")
            elif text is not None and name not in (n for n, _ in parts):
                parts.append((name, text))
    applied.extend(name for name, _ in parts)
    project = None
    if len(parts) == 1:
        project = parts[0][1]
    elif parts:  # each file under its name, so the model can tell them apart
        project = "\n".join(f"# {name}\n\n{text}" for name, text in parts)
    return Instructions(
        user=user,
        project=project,
        user_source=_display(user_path),
        project_source=", ".join(name for name, _ in parts) or PROJECT_INSTRUCTIONS,
        problems=tuple(problems),
        applied=tuple(applied),
    )


def _included(
    root: Path, text: str, ignore: IgnoreRules, problems: list[str], within: tuple[str, ...]
) -> str:
    """`text` with each `@include PATH` line (PATH relative to the project root) replaced by
    that file's text, its own includes too; a file that may not be read (as a context file
    may not: `bb7.files.guard`), is missing, looks like a secret or includes itself is left out
    and reported."""
    out: list[str] = []
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        words = line.split(maxsplit=1)
        if len(words) != 2 or words[0] != "@include":
            out.append(line)
            continue
        where = f"{within[-1]} line {number}: @include {words[1].strip()}"
        found = readable(root, words[1].strip(), ignore)
        if isinstance(found, PathProblem):
            problems.append(f"{where} not used: it {in_short(found)}\n{found.message}")
            continue
        if found in within:
            problems.append(f"{where} not used: it includes itself")
            continue
        loaded = load_text(root / found, max_bytes=_MAX_BYTES)
        if isinstance(loaded, FileProblem):
            problems.append(f"{where} not used: {loaded.message}")
            continue
        secret = secret_reason(_real(root, found), loaded)
        if secret is not None:
            problems.append(f"{where} not used: it looks like a secret\n{secret}")
            continue
        inner = _included(root, loaded, ignore, problems, (*within, found))
        out.append(inner if not inner or inner.endswith("\n") else inner + "\n")
    return "".join(out)


def _refused(root: Path, name: str, ignore: IgnoreRules) -> str | None:
    """Why the project's instruction file `name` may not be read, in a few words, then on a
    line of its own in full (None: it may, or there is none to read)."""
    if not os.path.lexists(root / name):
        return None
    if name == PROJECT_INSTRUCTIONS:  # bb7's own file, inside .bb7/: only where it is
        real = _real(root, name)
        if real != os.path.join(os.path.realpath(root), name):
            return f"is a symlink\nit leads to {real}"
        return None
    checked = readable(root, name, ignore)
    if not isinstance(checked, PathProblem):
        return None
    return f"{in_short(checked)}\n{checked.message}"


def _real(root: Path, name: str) -> str:
    return os.path.realpath(root / name)


def _read(path: Path, problems: list[str]) -> str | None:
    loaded = load_text(path, max_bytes=_MAX_BYTES)
    if isinstance(loaded, FileProblem):
        if loaded.kind != "missing":
            problems.append(f"Instructions not used: {loaded.message}.")
        return None
    return loaded if loaded.strip() else None


def _display(path: Path) -> str:
    return tilde(str(path))
