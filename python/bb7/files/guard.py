"""The one rule for what bb7 may read to show a model, whichever way a file comes in: a file
the user adds, a context file re-read at a send (follow-edits, `bb7 update`), a file found by a
directory or glob add, a file the model asks for, an instruction file.

A project file may be read when its path, as given and as resolved through symlinks, stays
inside the project root and out of `.git`/`.bb7` (`bb7.files.paths.project_path`), and out of
`.bb7/ignore`. A path the user names exactly is their choice, so the ignore rules are not held
against the name they typed; but where a symlink leads is not a choice they made (a checkout
can swap a file for a link), so the resolved path is checked for every path, named or not.
What bb7 finds by itself (a walk, a glob, the model's request, an instruction file) is checked
as named and as resolved. A file outside the project gets in only when the user names it;
once in, it must keep resolving to itself. Special files are refused by the reading itself
(`bb7.files.fsio.load_text`); the secret guard (`bb7.files.secrets`) judges the text.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from bb7.files.ignore import IGNORE_FILE, IgnoreRules
from bb7.files.paths import PathProblem, project_path
from bb7.files.secrets import secret_reason


def real_relative(root: Path, path: str) -> str | None:
    """Where the root-relative `path` leads through symlinks, relative to the root (None when
    that is outside it)."""
    root_real = os.path.realpath(root)
    real = os.path.realpath(os.path.join(root_real, path))
    if real == root_real or not real.startswith(root_real + os.sep):
        return None
    return PurePosixPath(Path(os.path.relpath(real, root_real)).as_posix()).as_posix()


def readable(
    root: Path, path: str, ignore: IgnoreRules | None = None, *, named: bool = False
) -> str | PathProblem:
    """The root-relative path of `path` when bb7 may read it to show a model, else why not.
    `named`: the user typed this path (its own name is not held against `.bb7/ignore`)."""
    found = project_path(root, path)
    if isinstance(found, PathProblem) or ignore is None or not ignore.rules:
        return found
    if not named and ignore.ignores(found):
        return PathProblem("ignored", f"{found} is left out by {IGNORE_FILE}")
    real = real_relative(root, found)
    if real is not None and real != found and ignore.ignores(real):
        why = f"{path} resolves through a symlink to {real}, which {IGNORE_FILE} leaves out"
        return PathProblem("ignored", why)
    return found


def in_short(problem: PathProblem) -> str:
    """A refusal of `readable` in a few words (`leads out of the project`), for a line an
    editor's message area shows whole; the full message, with where a link leads, goes on a
    line of its own."""
    if problem.kind == "outside_root":
        return "leads out of the project"
    if problem.kind == "protected":
        return "leads into git's or bb7's own state"
    if problem.kind == "ignored":
        return f"is left out by {IGNORE_FILE}"
    return problem.message


def still_itself(path: str) -> str | None:
    """Why the external file stored at the real path `path` may no longer be read: a symlink
    now stands there (None: it is still itself)."""
    real = os.path.realpath(path)
    if real != path:
        return f"{path} leads elsewhere now ({real})"
    return None


def new_secret(name: str, text: str, chosen: str, before: str | None) -> str | None:
    """Why `text`, read from `name` (where the path leads now), looks like a secret when the
    file the user chose (`chosen`, with text `before`) did not: re-reading a file must not
    send a secret nobody confirmed."""
    reason = secret_reason(name, text)
    if reason is None or secret_reason(chosen, before) is not None:
        return None
    return reason
