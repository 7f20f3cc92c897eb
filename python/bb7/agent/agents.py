"""The agents bb7 knows by name, and how a name or a command becomes the argv to start.

The defaults are the documented ones (`:help bb7-agents`): each agent's ACP command as its
project ships it; an agent is offered only where its command is found. `setup({ agents = ...
})` adds or replaces agents by name (Lua validates the table); `bb7 agent` takes a name of
these or `--cmd`. `permissions` is what bb7 answers an agent that asks before a tool call:
`ask` the user (default), `allow` once each time, `reject` each time.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from bb7.refusal import Problem

DEFAULT_AGENTS: dict[str, tuple[str, ...]] = {
    "claude": ("claude-code-acp",),
    "codex": ("codex-acp",),
    "gemini": ("gemini", "--experimental-acp"),
    "opencode": ("opencode", "acp"),
}

Permissions = Literal["ask", "allow", "reject"]
PERMISSIONS: tuple[Permissions, ...] = ("ask", "allow", "reject")


class AgentSpec(msgspec.Struct, frozen=True):
    """An agent to start: its name (the chat keeps it) and its command."""

    name: str
    cmd: tuple[str, ...]


def table(configured: Mapping[str, Sequence[str]] | None = None) -> dict[str, tuple[str, ...]]:
    """The defaults with the configured agents over them."""
    agents = dict(DEFAULT_AGENTS)
    for name, cmd in (configured or {}).items():
        agents[name] = tuple(cmd)
    return agents


def found(cmd: Sequence[str]) -> str | None:
    """Where the command's program is (on $PATH, or the path given), None when nowhere."""
    if not cmd:
        return None
    program = cmd[0]
    if os.sep in program:
        return program if os.access(program, os.X_OK) else None
    return shutil.which(program)


def available(configured: Mapping[str, Sequence[str]] | None = None) -> list[AgentSpec]:
    """The agents whose command is found here, by name."""
    return [AgentSpec(n, c) for n, c in sorted(table(configured).items()) if found(c)]


def resolve(
    name: str | None, configured: Mapping[str, Sequence[str]] | None = None
) -> AgentSpec | Problem:
    """The agent `name` names (None: the first found); refused with what there is when it
    is unknown or its command is not found."""
    agents = table(configured)
    if name is None or name == "":
        here = available(configured)
        if not here:
            commands = ", ".join(c[0] for c in DEFAULT_AGENTS.values())
            return Problem(
                "no_agent",
                f"no agent found: install one ({commands}) or name one in setup({{ agents }})",
            )
        return here[0]
    cmd = agents.get(name)
    if cmd is None:
        return Problem("no_agent", f"no agent named {name}: one of {', '.join(sorted(agents))}")
    return AgentSpec(name, cmd)


def from_command(line: str) -> AgentSpec | Problem:
    """`bb7 agent --cmd 'ARGV...'`: the command split as a shell would (no shell runs it);
    the agent is named after its program."""
    try:
        argv = tuple(shlex.split(line))
    except ValueError as exc:
        return Problem("invalid_args", f"--cmd {line!r}: {exc}")
    if not argv:
        return Problem("invalid_args", "--cmd is empty: give the agent's command")
    return AgentSpec(os.path.basename(argv[0]), argv)
