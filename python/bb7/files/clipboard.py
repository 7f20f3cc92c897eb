"""An image from the system clipboard, through the clipboard tool the system has.

Wayland's `wl-paste` (wl-clipboard) when `WAYLAND_DISPLAY` is set, X11's `xclip` when `DISPLAY`
is, macOS's `pngpaste` anywhere it is installed; the first that exists is asked which image types
the clipboard holds (PNG first) and then for the image's bytes. What the tool prints is never
shown (it is the user's clipboard); a tool that fails is named with its exit status. Where no tool
exists, the one-line refusal says which to install. Not for: text (Neovim's registers have it)
or checking the bytes are an image (`bb7.files.images`).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping

import msgspec

from bb7.refusal import ClipboardProblemKind

# Image types a tool may offer, best first: PNG keeps a screenshot's pixels exactly.
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
_TIMEOUT = 10.0
_INSTALL = "install wl-clipboard (Wayland), xclip (X11) or pngpaste (macOS)"


class ClipboardProblem(msgspec.Struct, frozen=True):
    kind: ClipboardProblemKind
    message: str


class _Tool(msgspec.Struct, frozen=True):
    name: str
    # The command listing the clipboard's types (None: the tool gives PNG or nothing), and the
    # command giving one type's bytes ({type} is replaced).
    types: tuple[str, ...] | None
    read: tuple[str, ...]
    # The environment variable that says the tool's display server runs ("" for none).
    needs: str


_TOOLS = (
    _Tool(
        "wl-paste",
        ("wl-paste", "--list-types"),
        ("wl-paste", "--no-newline", "--type", "{type}"),
        "WAYLAND_DISPLAY",
    ),
    _Tool(
        "xclip",
        ("xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"),
        ("xclip", "-selection", "clipboard", "-t", "{type}", "-o"),
        "DISPLAY",
    ),
    _Tool("pngpaste", None, ("pngpaste", "-"), ""),
)


def clipboard_image(environ: Mapping[str, str]) -> bytes | ClipboardProblem:
    """The clipboard's image bytes, or why there are none (tools are looked for on the PATH
    of `environ`). Blocking: at most twice the tool's time limit."""
    found = [
        (tool, program)
        for tool in _TOOLS
        if not tool.needs or environ.get(tool.needs)
        if (program := shutil.which(tool.name, path=environ.get("PATH"))) is not None
    ]
    if not found:
        return ClipboardProblem(
            "no_clipboard_tool", f"no clipboard tool for images found: {_INSTALL}"
        )
    tool, program = found[0]
    tool = msgspec.structs.replace(
        tool,
        types=None if tool.types is None else (program, *tool.types[1:]),
        read=(program, *tool.read[1:]),
    )
    wanted = "image/png"
    if tool.types is not None:
        listed = _run(tool, tool.types, environ)
        if isinstance(listed, ClipboardProblem):
            return listed
        offered = {line.strip() for line in listed.decode("utf-8", "replace").splitlines()}
        best = next((t for t in IMAGE_TYPES if t in offered), None)
        if best is None:
            return _NO_IMAGE
        wanted = best
    data = _run(tool, tuple(arg.replace("{type}", wanted) for arg in tool.read), environ)
    return _NO_IMAGE if data == b"" else data


_NO_IMAGE = ClipboardProblem("no_image", "the clipboard holds no image")


def _run(
    tool: _Tool, argv: tuple[str, ...], environ: Mapping[str, str]
) -> bytes | ClipboardProblem:
    """The tool's output; a tool that fails says so by its status alone (an empty clipboard,
    to wl-paste and pngpaste), so that is taken as no image, with the status."""
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_TIMEOUT,
            env=dict(environ),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return ClipboardProblem(
            "clipboard_failed", f"{tool.name} did not answer within {_TIMEOUT:g} s"
        )
    except OSError as exc:
        return ClipboardProblem("clipboard_failed", f"{tool.name} could not start: {exc.strerror}")
    if done.returncode != 0:
        return ClipboardProblem(
            "no_image",
            f"the clipboard holds no image ({tool.name} exit status {done.returncode})",
        )
    return done.stdout
