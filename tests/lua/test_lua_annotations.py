"""Every public Lua function carries its LuaCATS annotations: a `---@param` per parameter and a
`---@return` when it returns a value (a language server and the next reader rely on them)."""

from __future__ import annotations

import re
from pathlib import Path

LUA = Path(__file__).resolve().parents[2] / "lua" / "bb7"
PUBLIC = re.compile(r"^function (M[.:][\w.]+)\((.*?)\)(.*)")


def public_functions() -> list[tuple[str, str, list[str], str, list[str]]]:
    """(file, name, parameters, annotation block, top-level body lines) of each `function M.x`."""
    found = []
    for path in sorted(LUA.rglob("*.lua")):
        lines = path.read_text(encoding="utf-8").split("\n")
        for at, line in enumerate(lines):
            match = PUBLIC.match(line)
            if match is None:
                continue
            above = at - 1
            while above >= 0 and lines[above].startswith("--"):
                above -= 1
            block = "\n".join(lines[above + 1 : at])
            params = [p.strip() for p in match.group(2).split(",") if p.strip() not in ("", "...")]
            rest = match.group(3)
            if rest.strip().endswith("end"):  # a one-line function
                body = [rest]
            else:
                body = []
                for inner in lines[at + 1 :]:
                    if inner == "end":
                        break
                    body.append(inner)
            found.append((path.relative_to(LUA).as_posix(), match.group(1), params, block, body))
    return found


def test_there_are_public_functions_to_check() -> None:
    assert len(public_functions()) > 100


def test_every_parameter_of_a_public_function_is_annotated() -> None:
    missing = [
        f"{file}: {name}({param})"
        for file, name, params, block, _ in public_functions()
        for param in params
        if not re.search(rf"---@param {re.escape(param)}\??\b", block)
    ]
    assert missing == []


def test_a_public_function_that_returns_a_value_says_what() -> None:
    missing = [
        f"{file}: {name}"
        for file, name, _, block, body in public_functions()
        if any(re.match(r"^ {1,2}return \S", b) for b in body)  # top level (or one line)
        and "---@return" not in block
    ]
    assert missing == []
