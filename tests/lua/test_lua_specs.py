"""The pure Lua rules (option validation, key tables, status presentation, message wording),
specified in tests/lua/*_spec.lua and run by tests/lua/run.lua in `nvim --clean -l`: no host
and no screen, so a file's cases take one Neovim start (tens of milliseconds) where each would
take an editor and a host (about a second). One run per spec file and Neovim version."""

from __future__ import annotations

from pathlib import Path

import pytest
from nvim_l import nvim_l

from neovims import VERSIONS

HERE = Path(__file__).resolve().parent
SPECS = sorted(HERE.glob("*_spec.lua"))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("spec", SPECS, ids=lambda path: path.stem)
def test_the_lua_spec_passes(spec: Path, version: str, tmp_path: Path) -> None:
    result = nvim_l(version, tmp_path, str(HERE / "run.lua"), str(spec))
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert result.stdout.splitlines()[-1].endswith(" passed, 0 failed"), report


def test_a_failing_case_fails_the_run_and_says_where(tmp_path: Path) -> None:
    spec = tmp_path / "wrong_spec.lua"
    spec.write_text(
        "local spec = require('spec')\n"
        "spec.test('one right', function() spec.eq(2, 1 + 1) end)\n"
        "spec.test('one wrong', function() spec.eq({ a = 1 }, { a = 2 }, 'the table') end)\n"
    )
    result = nvim_l(VERSIONS[-1], tmp_path, str(HERE / "run.lua"), str(spec))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "ok one right"
    assert lines[1] == "FAILED one wrong"
    assert "wrong_spec.lua:3: the table: expected { a = 1 }, got { a = 2 }" in result.stdout
    assert lines[-1] == "1 passed, 1 failed"
