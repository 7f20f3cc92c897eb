"""The diff part: `git diff` of the project (unstaged; `--staged`; or against a ref), as the
model reads it. A file that looks like a secret is left out and named; the part is bounded by
whole files."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bb7.files.secrets import secret_reason
from bb7.live.bound import bounded
from bb7.refusal import Problem

# git may wait on a lock or a huge repository; a send does not wait longer than this.
GIT_TIMEOUT = 10.0


def git_diff_args(arg: str) -> list[str]:
    """The git command line for the part's argument ('', `--staged`, a ref)."""
    base = ["git", "-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff"]
    if arg == "--staged":
        return [*base, "--staged"]
    if arg:
        return [*base, arg, "--"]
    return base


def what(arg: str) -> str:
    if arg == "--staged":
        return "The staged changes (git diff --staged)"
    if arg:
        return f"The changes since {arg} (git diff {arg})"
    return "The unstaged changes (git diff)"


def diff_text(root: Path, arg: str, max_bytes: int) -> str | Problem:
    """The part's text, or why git could not give it."""
    try:
        done = subprocess.run(
            git_diff_args(arg),
            cwd=root,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        return Problem("git", "git is not installed: a diff part needs it")
    except subprocess.TimeoutExpired:
        return Problem("git", f"git diff took over {GIT_TIMEOUT:.0f} s; nothing was read")
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return Problem("git", f"git diff {arg}: {said[0] if said else 'failed'}".replace("  ", " "))
    files, secrets = _files(done.stdout.decode("utf-8", "replace"))
    head = f"{what(arg)}:\n"
    if secrets:
        head += f"[left out, as they look like secrets: {', '.join(secrets)}]\n"
    if not files:
        return head + "none.\n"
    return bounded(head, files, max_bytes, "changed file", skip=True)


def _files(diff: str) -> tuple[list[str], list[str]]:
    """The diff cut at each file's `diff --git` line, and the paths left out as secrets."""
    files: list[str] = []
    secrets: list[str] = []
    for chunk in diff.split("\ndiff --git "):
        if not chunk.strip():
            continue
        text = chunk if chunk.startswith("diff --git ") else "diff --git " + chunk
        if not text.endswith("\n"):
            text += "\n"
        path = _path(text)
        if secret_reason(path, text) is not None:
            secrets.append(path)
            continue
        files.append(text)
    return files, secrets


def _path(section: str) -> str:
    """The file a section is about: its `+++ b/` path, else the `a/` one of its first line."""
    for line in section.splitlines():
        if line.startswith("+++ b/"):
            return line[len("+++ b/") :]
    first = section.splitlines()[0]
    return first.removeprefix("diff --git a/").split(" b/", 1)[0]
