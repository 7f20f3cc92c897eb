"""What the `bb7` command line prints goes through `Shown`: control characters in text bb7
did not write are made visible (`bb7.text.visible`) on a terminal and in a pipe alike, at the
one place every line passes, so no command can forget it. bb7's own colours (a diff on a
terminal) are written past it with `write_raw`, after their text went through `visible`."""

from __future__ import annotations

import sys
from typing import Any, TextIO

import msgspec

from bb7.text.visible import json_safe, visible


class Shown:
    """A text stream that shows control characters instead of sending them. A CR at the end
    of one write waits for the next: a CR LF split between two chunks stays a line end."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._cr = False

    def write(self, text: str) -> int:
        if self._cr:
            text = "\r" + text
            self._cr = False
        if text.endswith("\r"):
            self._cr = True
            text = text[:-1]
        self.stream.write(visible(text))
        return len(text)

    def flush(self) -> None:
        if self._cr:
            self._cr = False
            self.stream.write(visible("\r"))
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def write_raw(stream: TextIO | Shown, text: str) -> None:
    """Write `text` (bb7's own escape sequences around visible text) as it is."""
    target = stream.stream if isinstance(stream, Shown) else stream
    target.write(text)


def print_json(value: object) -> None:
    """`value` as one line of JSON on stdout, every control character escaped (`\\u001b`)."""
    sys.stdout.write(json_safe(msgspec.json.encode(value).decode("utf-8")) + "\n")
