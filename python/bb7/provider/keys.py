"""Where the API key comes from, and keeping it out of every message, log and record.

A key spec is one of: an environment variable name (`OPENROUTER_API_KEY`, or `env:NAME`),
`cmd:<shell command>` whose first output line is the key (`cmd:pass show openrouter`), or
`file:<path>` whose first line is the key. No spec means the provider preset's variable
(`OPENROUTER_API_KEY` for OpenRouter, see `bb7.provider.presets`); local servers need no key.
Raw keys are deliberately not accepted as a spec: a config value gets copied into logs and bug
reports, a variable name does not. For the same reason nothing a key command prints is ever
shown, logged or stored, not even when it fails (its error output may well hold the key), and
only the command's program is named: its arguments may hold the key too (`cmd:echo sk-...`).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import msgspec

from bb7.provider.presets import preset_for

DEFAULT_KEY_ENV = "OPENROUTER_API_KEY"
REDACTED = "[redacted]"

KeySource = Literal["default", "env", "cmd", "file"]

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A bare spec is taken as a variable name only in the conventional upper-case form, so a raw
# key pasted by mistake is refused without being echoed back.
_BARE_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
_COMMAND_TIMEOUT = 15.0
# What a key looks like, to refuse one typed where a name, command or path belongs: a known
# prefix, or one long random-looking word. Lua's setup() holds the same rule (`looks_like_key`
# in lua/bb7/config.lua).
_KEY_PREFIX = re.compile(r"(sk[-_]|AKIA|ASIA|AIza|glpat-|gh[pousr]_|xox[abprs]-)\S{12,}")
_KEY_WORD = re.compile(r"[A-Za-z0-9_-]{32,}")


def looks_like_key(value: str) -> bool:
    """Whether `value` (one word, quotes around it ignored) looks like an API key rather than
    a name, command or path."""
    value = value.strip().strip("'\"`").strip()
    if _KEY_PREFIX.fullmatch(value):
        return True
    if not _KEY_WORD.fullmatch(value):
        return False
    return sum(c.isdigit() for c in value) >= 4 and sum(c.isalpha() for c in value) >= 4


class ApiKey:
    """An API key; `str`/`repr` show only where it came from, `reveal()` gives the value."""

    __slots__ = ("_value", "source")

    def __init__(self, value: str, source: str) -> None:
        self._value = value
        self.source = source  # e.g. "environment variable OPENROUTER_API_KEY": safe to show

    def reveal(self) -> str:
        return self._value

    def redact(self, text: str) -> str:
        """`text` with every occurrence of the key replaced."""
        return text.replace(self._value, REDACTED) if self._value in text else text

    def redact_answer(self, text: str) -> str:
        """`redact`, for a model's answer: a key under 16 characters is a placeholder that a
        local server takes (`ollama`), not a secret, and would cut words out of the text."""
        return self.redact(text) if len(self._value) >= 16 else text

    def __repr__(self) -> str:
        return f"ApiKey(source={self.source!r})"

    __str__ = __repr__


class KeyProblem(msgspec.Struct, frozen=True):
    """Why no key could be found; the message says what to set. Never contains a key."""

    kind: Literal["missing", "empty", "command_failed", "unreadable", "invalid_spec"]
    message: str


def redact(text: str, key: ApiKey | None) -> str:
    return key.redact(text) if key is not None else text


def resolve_api_key(
    spec: str | None,
    base_url: str,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    preset: str | None = None,
) -> ApiKey | KeyProblem | None:
    """The key for `base_url` according to `spec`; None when the server needs none.

    Without a spec, the preset (`preset`, else the one `base_url` is on) says which variable
    holds the key, or that none is needed. Runs `cmd:` specs (up to 15 s) and reads `file:`
    specs, so call it off the UI thread.
    """
    env = os.environ if environ is None else environ
    parsed = parse_key_spec(spec)
    if isinstance(parsed, KeyProblem):
        return parsed
    source, value = parsed
    if source == "cmd":
        return _from_command(value, env, cwd)
    if source == "file":
        return _from_file(value, cwd)
    if source == "env":
        return _from_env(value, env, base_url)
    found = preset_for(preset, base_url)
    name = found.key_env
    if name is None or (not found.key_required and not env.get(name)):
        return None  # a local or unknown server: send no Authorization header
    return _from_env(name, env, base_url)


def parse_key_spec(spec: str | None) -> tuple[KeySource, str] | KeyProblem:
    """Where `spec` says the key is (the command, path or variable name), without looking.

    The one grammar of a key spec: Lua's `setup()` checks the same one (`key_source` in
    `lua/bb7/config.lua`), and a test runs one list of specs through both.
    """
    spec = spec.strip() if spec else ""
    if not spec:
        return "default", ""
    prefix, colon, rest = spec.partition(":")
    prefixed = bool(colon) and prefix in ("cmd", "file", "env")
    if looks_like_key(rest if prefixed else spec):
        where = f" after `{prefix}:`" if prefixed else ""
        return KeyProblem(
            "invalid_spec",
            f"The api_key setting holds what looks like a key itself{where} (not shown here): "
            f"export it as {DEFAULT_KEY_ENV} and name that variable instead.",
        )
    if spec.startswith("cmd:"):
        command = spec[4:].strip()
        if not command:
            return KeyProblem("invalid_spec", "api_key `cmd:` needs a command after the colon.")
        return "cmd", command
    if spec.startswith("file:"):
        path = spec[5:].strip()
        if not path:
            return KeyProblem("invalid_spec", "api_key `file:` needs a path after the colon.")
        return "file", path
    name = spec[4:].strip() if spec.startswith("env:") else spec
    pattern = _ENV_NAME if spec.startswith("env:") else _BARE_ENV_NAME
    if not pattern.fullmatch(name):
        return KeyProblem(
            "invalid_spec",
            "The api_key setting is not an environment variable name, `cmd:<command>` or "
            "`file:<path>` (a raw key is not accepted there: export it as "
            f"{DEFAULT_KEY_ENV} and name that variable instead).",
        )
    return "env", name


def _from_env(name: str, env: Mapping[str, str], base_url: str) -> ApiKey | KeyProblem:
    value = env.get(name)
    if value is None:
        return KeyProblem(
            "missing",
            f"No API key: the environment variable {name} is not set (needed for {base_url}). "
            f"Export it (export {name}=...) or set api_key to `cmd:<command>` or `file:<path>`.",
        )
    return _checked(value, f"environment variable {name}")


def _from_command(command: str, env: Mapping[str, str], cwd: Path | None) -> ApiKey | KeyProblem:
    source = f"command `{command.split()[0]} ...`" if " " in command else f"command `{command}`"
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            capture_output=True,
            text=True,
            timeout=_COMMAND_TIMEOUT,
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return KeyProblem(
            "command_failed", f"The API key {source} did not finish within {_COMMAND_TIMEOUT:g} s."
        )
    except OSError as exc:
        return KeyProblem("command_failed", f"The API key {source} could not run: {exc.strerror}")
    if done.returncode != 0:
        return KeyProblem(
            "command_failed",
            f"The API key {source} failed with exit code {done.returncode} (its output is not "
            "shown: it may hold the key). Run it in a terminal to see why.",
        )
    return _checked(_first_line(done.stdout), source)


def _from_file(path_text: str, cwd: Path | None) -> ApiKey | KeyProblem:
    path = Path(path_text).expanduser()
    if not path.is_absolute() and cwd is not None:
        path = cwd / path
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        return KeyProblem("unreadable", f"The API key file {path} cannot be read: {reason}")
    return _checked(_first_line(text), f"file {path}")


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _checked(value: str, source: str) -> ApiKey | KeyProblem:
    value = value.strip()
    if not value:
        return KeyProblem("empty", f"The API key from {source} is empty.")
    if any(ch.isspace() or ord(ch) < 32 for ch in value):
        # Would corrupt the Authorization header; the value itself is not shown.
        return KeyProblem("invalid_spec", f"The API key from {source} contains whitespace.")
    return ApiKey(value, source)
