"""`scripts/demo.lua` (what `make demo` opens): the example project in Neovim with bb7, a guide
that says how to set a key, :BB7Paste working without one, and `:help bb7` (the demo writes the
help tags a plugin manager would)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pynvim
import pytest
from editor import ROOT, isolate, messages, wait_for

EXAMPLE = ROOT / "python" / "bb7" / "examples" / "apply-demo" / "project"


def fresh_checkout(target: Path) -> Path:
    """The plugin as cloned (no doc/tags yet), using this checkout's .venv for the host."""
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "tags", ".tags-*")
    for name in ("lua", "plugin", "python", "scripts", "doc"):
        shutil.copytree(ROOT / name, target / name, ignore=skip)
    os.symlink(ROOT / ".venv", target / ".venv")
    return target


def test_the_demo_opens_the_example_and_without_a_key_offers_paste_and_help(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nvim_binary: Path
) -> None:
    isolate(monkeypatch, tmp_path / "home")
    plugin = fresh_checkout(tmp_path / "plugin")
    copy = tmp_path / "demo"
    shutil.copytree(EXAMPLE, copy)
    argv = [str(nvim_binary), "--embed", "--headless", "-n", "-i", "NONE"]
    argv += ["-u", str(plugin / "scripts" / "demo.lua"), "--cmd", f"cd {copy}"]
    nvim = pynvim.attach("child", argv=argv)
    try:
        assert nvim.current.buffer.name == str(copy / "greet.py")
        guide = "\n".join(nvim.buffers[nvim.funcs.bufnr("bb7-demo")][:])
        assert "No API key: quit, `export OPENROUTER_API_KEY=...`" in guide
        assert ":BB7Paste r pastes an example answer" in guide
        assert "Then :BB7Review shows them: ]h/[h move" in guide and "BB7Diff" not in guide
        wait_for(nvim, "vim.tbl_count(require('bb7.status').files()) == 2")
        nvim.command("BB7Paste r")
        wait_for(nvim, "require('bb7').status() == 'M'")
        assert "bb7: pasted, to review: greet.py, README.md" in messages(nvim)

        nvim.command("help bb7")
        assert nvim.current.buffer.name == str(plugin / "doc" / "bb7.txt")
        assert nvim.current.buffer.options["buftype"] == "help"
        assert "*bb7.txt*" in nvim.current.line
        nvim.command("help bb7-config")
        assert "*bb7-config*" in nvim.current.line
        assert sorted(p.name for p in (plugin / "doc").iterdir()) == ["bb7.txt", "tags"]
    finally:
        nvim.close()
