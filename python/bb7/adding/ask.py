"""When adding asks first, and what: many files at once (their count and tokens) or a file that
looks like a secret. The front ends ask (the editor through `vim.ui.select`) or refuse (the
command line, without its flag); this module only words the question.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import msgspec

from bb7.adding.expand import Expansion
from bb7.refusal import Problem
from bb7.text.tokens import format_tokens
from bb7.text.words import plural

# A directory or glob over either asks before adding.
CONFIRM_FILES = 20
CONFIRM_TOKENS = 30_000

Action = Literal["all", "no_secrets", "cancel"]


class Question(msgspec.Struct, frozen=True):
    text: str
    choices: list[tuple[Action, str]]


def _size(exp: Expansion) -> str:
    return f"{plural(len(exp.found), 'file')}, {format_tokens(exp.tokens)} tokens"


def is_large(exp: Expansion) -> bool:
    return exp.wide and (len(exp.found) > CONFIRM_FILES or exp.tokens > CONFIRM_TOKENS)


def _secrets_line(exp: Expansion, shown: Callable[[str], str]) -> str:
    secrets = exp.secrets()
    first = secrets[0]
    name = f"{shown(first.target.path)} looks like a secret ({first.secret})"
    return name if len(secrets) == 1 else f"{name}, and {plural(len(secrets) - 1, 'other')}"


def question(exp: Expansion, shown: Callable[[str], str]) -> Question | None:
    """What to ask before adding `exp` (None: add it at once); `shown` names a path."""
    secrets = exp.secrets()
    if secrets:
        text = f"{_secrets_line(exp, shown)}: add anyway?"
        rest = len(exp.found) - len(secrets)
        choices: list[tuple[Action, str]] = [("all", f"Add all ({_size(exp)})")]
        if rest:
            choices.append(("no_secrets", f"Add the {plural(rest, 'other')}, not the secrets"))
        return Question(text, [*choices, ("cancel", "Cancel")])
    if is_large(exp):
        return Question(f"Add {_size(exp)}?", [("all", f"Add {_size(exp)}"), ("cancel", "Cancel")])
    return None


def without_secrets(exp: Expansion) -> Expansion:
    return msgspec.structs.replace(exp, found=[f for f in exp.found if f.secret is None])


def secret_problem(exp: Expansion, shown: Callable[[str], str]) -> Problem | None:
    """The refusal of a front end that cannot ask (the command line): nothing is added."""
    if not exp.secrets():
        return None
    return Problem("secret", f"{_secrets_line(exp, shown)}; nothing added")
