"""`scripts/demo.lua` (what `make demo` opens): the example project in Neovim with bb7, a guide
that says how to set a key, and :BB7Paste working without one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pynvim
import pytest
from editor import NVIM, ROOT, isolate, messages, wait_for


def test_the_demo_opens_the_example_and_without_a_key_offers_paste(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate(monkeypatch, tmp_path / "home")
    copy = tmp_path / "demo"
    shutil.copytree(ROOT / "python" / "bb7" / "examples" / "apply-demo" / "project", copy)
    argv = [str(NVIM), "--embed", "--headless", "-n", "-i", "NONE"]
    argv += ["-u", str(ROOT / "scripts" / "demo.lua"), "--cmd", f"cd {copy}"]
    nvim = pynvim.attach("child", argv=argv)
    try:
        assert nvim.current.buffer.name == str(copy / "greet.py")
        guide = "\n".join(nvim.buffers[nvim.funcs.bufnr("bb7-demo")][:])
        assert "No API key: quit, `export OPENROUTER_API_KEY=...`" in guide
        assert ":BB7Paste r applies an example answer" in guide
        wait_for(nvim, "vim.tbl_count(require('bb7.status').files()) == 2")
        nvim.command("BB7Paste r")
        wait_for(nvim, "require('bb7').status() == 'M'")
        assert "bb7: pasted, to review: greet.py, README.md" in messages(nvim)
    finally:
        nvim.close()
