"""Python and Lua agree where both decide the same thing: the API-key specs `setup()` and
`bb7.provider.keys` accept are exactly the same ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from nvim_l import lua

from bb7.provider.keys import KeyProblem, parse_key_spec
from neovims import VERSIONS

# Every form of the grammar, and the near misses on each side of it.
KEY_SPECS = [
    "",
    "   ",
    "MY_KEY",
    " MY_KEY ",
    "_KEY2",
    "env:MY_KEY",
    "env:my_key",
    "env:  mixed_Case1 ",
    "cmd:pass show openrouter",
    " cmd: pass ",
    "file:~/.config/key",
    "my_key",
    "2KEY",
    "MY-KEY",
    "env:",
    "env:1abc",
    "env:a b",
    "cmd:",
    "cmd:   ",
    "file:",
    "CMD:pass",
    "key:value",
    "sk-or-v1-0123456789abcdef",
    # A key typed where a command, path or name belongs (issue 38): refused, never echoed.
    "cmd:sk-or-v1-0123456789abcdef",
    " file: sk-proj-abcdefghijkl0123 ",
    "env:AKIAIOSFODNN7EXAMPLE",
    "AKIAIOSFODNN7EXAMPLE",
    "env:a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6",
    "cmd:my-key-helper-script2",
    # Quoted, as a shell command or path may be: still a key (the quotes are no part of it).
    "cmd:'sk-or-v1-0123456789abcdef'",
    'file:"sk-proj-abcdefghijkl0123"',
    "cmd:`AKIAIOSFODNN7EXAMPLE`",
    "cmd:'pass show openrouter'",
]


@pytest.mark.parametrize("version", VERSIONS)
def test_lua_setup_and_python_accept_the_same_key_specs(version: str, tmp_path: Path) -> None:
    in_lua = lua(
        version,
        tmp_path,
        """
        local out = {}
        for _, spec in ipairs(...) do
          out[#out + 1] = pcall(require('bb7').setup, { provider = { api_key = spec } })
        end
        return out
        """,
        KEY_SPECS,
    )
    in_python = [not isinstance(parse_key_spec(spec), KeyProblem) for spec in KEY_SPECS]
    assert dict(zip(KEY_SPECS, in_lua, strict=True)) == dict(zip(KEY_SPECS, in_python, strict=True))
    assert in_python[KEY_SPECS.index("env:my_key")] and not in_python[KEY_SPECS.index("my_key")]
