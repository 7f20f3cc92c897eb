"""The README's pictures are fresh: the chat view's is drawn again from a scripted chat in a
real Neovim's terminal UI (scripts/screenshots.py: a pseudo-terminal read by a terminal
emulator, every time and size fixed) and must equal screenshots/chat.svg, so a change to
what the view draws fails here until `make screenshots` draws the pictures again."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from editor import ROOT


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "screenshots", ROOT / "scripts" / "screenshots.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_chat_view_picture_is_what_the_view_draws_now() -> None:
    drawn = script().render("chat")
    committed = (ROOT / "screenshots" / "chat.svg").read_text()
    assert drawn == committed, "screenshots/chat.svg is stale: `make screenshots` draws it"
    # It is a picture of the chat view: the chat, its files, the input's draft.
    for shown in ("Punctuation", "README.md", "greet.py", "And farewell too?"):
        assert shown in drawn
