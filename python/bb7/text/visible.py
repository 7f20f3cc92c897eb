"""Text bb7 did not write (a model's answer, a file name, a provider's error) made safe to
print: control characters are shown as git shows them in a quoted path (`\\033`, octal), so
an answer cannot clear the screen, retitle the window or write the clipboard (OSC 52). Line
feeds, tabs and a carriage return that ends a line stay as they are. Pure, no I/O."""

from __future__ import annotations

import re

# C0 but tab and line feed, DEL and C1 (a terminal may take U+009B for CSI); a CR is harmless
# only where a line feed follows it.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")
# What JSON leaves as it is but a terminal may act on (JSON escapes the rest of C0 itself).
_JSON_CONTROL = re.compile("[\x7f-\x9f]")


def _octal(found: re.Match[str]) -> str:
    return f"\\{ord(found.group()):03o}"


def visible(text: str) -> str:
    """`text` with every control character but `\\n`, `\\t` and CR LF shown as `\\ooo`."""
    return _CONTROL.sub(_octal, text)


def json_safe(encoded: str) -> str:
    """Encoded JSON with DEL and C1 escaped too (`\\u009b`): the same value, printable."""
    return _JSON_CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", encoded)
