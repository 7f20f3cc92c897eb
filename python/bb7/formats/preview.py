"""The new text an edit's tool call writes, decoded while its arguments still stream: what an
in-place edit (`:BB7Edit`) shows under the selection before the answer is complete.

The arguments are a JSON object that arrives in pieces; the values of `new_string` and
`content` (a string, or a list of lines in the anchored mode) are the text the edit puts in the
file, whatever tool and mode carry them. `NewText` scans the pieces once, as they come, and
gives back what those values add. Not for reading the edits (`bb7.formats.calls` decodes the
whole arguments once they are complete).
"""

from __future__ import annotations

# The keys whose values are text an edit writes (`edit_file`, `write_file`, anchored changes).
TEXT_KEYS = frozenset({"new_string", "content"})
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
# The longest key worth keeping while it is read: a longer string is never one of TEXT_KEYS.
_KEY_MAX = max(len(k) for k in TEXT_KEYS)


class NewText:
    """Feeds on one tool call's argument text, piece by piece; `feed` gives the text the new
    pieces add to the values of `TEXT_KEYS`, each value after the first on a line of its own
    (so do the lines of a list)."""

    def __init__(self) -> None:
        self._stack: list[str] = []  # the open containers: '{' or '['
        self._in_string = False
        self._escape: str | None = None  # an escape read so far ('\\', '\\u00')
        self._high: int | None = None  # a UTF-16 high surrogate waiting for its low half
        self._string = ""  # the string being read, when it may be a key
        self._keep = False  # the string being read is text an edit writes
        self._may_be_key = False
        self._last: str | None = None  # the last string that ended (a key if ':' follows)
        self._key: str | None = None  # the key whose value comes next
        self._list_depth = 0  # the depth of a list of lines being written (0: none)
        self._values = 0  # values written so far

    def feed(self, piece: str) -> str:
        out: list[str] = []
        for char in piece:
            if self._in_string:
                self._string_char(char, out)
            else:
                self._structure(char, out)
        return "".join(out)

    def _structure(self, char: str, out: list[str]) -> None:
        if char == '"':
            self._start_string(out)
        elif char == ":":
            self._key, self._last = self._last, None
        elif char in "{[":
            if char == "[" and self._key in TEXT_KEYS:
                self._list_depth = len(self._stack) + 1
            self._stack.append(char)
            self._key = self._last = None
        elif char in "}]":
            if self._stack:
                self._stack.pop()
            if len(self._stack) < self._list_depth:
                self._list_depth = 0
            self._key = self._last = None
        elif char == ",":
            self._key = self._last = None

    def _start_string(self, out: list[str]) -> None:
        self._in_string = True
        self._string = ""
        in_object = bool(self._stack) and self._stack[-1] == "{"
        in_list = self._list_depth > 0 and len(self._stack) == self._list_depth
        self._keep = (in_object and self._key in TEXT_KEYS) or in_list
        self._may_be_key = in_object and self._key is None
        if self._keep:
            if self._values:
                out.append("\n")
            self._values += 1

    def _string_char(self, char: str, out: list[str]) -> None:
        if self._escape is not None:
            self._escape += char
            decoded = self._unescape(self._escape)
            if decoded is not None:
                self._escape = None
                self._add(decoded, out)
            return
        if char == "\\":
            self._escape = ""
        elif char == '"':
            self._in_string = False
            self._last = self._string if self._may_be_key else None
            self._key = None
        else:
            self._add(char, out)

    def _unescape(self, escape: str) -> str | None:
        """The text of a complete escape (after its backslash), '' for half a surrogate pair;
        None while it is incomplete."""
        if escape[0] != "u":
            return _ESCAPES.get(escape[0], escape[0])
        if len(escape) < 5:
            return None
        try:
            code = int(escape[1:5], 16)
        except ValueError:
            return escape
        if 0xD800 <= code < 0xDC00:
            self._high = code
            return ""
        if 0xDC00 <= code < 0xE000 and self._high is not None:
            code = 0x10000 + ((self._high - 0xD800) << 10) + (code - 0xDC00)
        self._high = None
        return chr(code) if not 0xD800 <= code < 0xE000 else "\ufffd"

    def _add(self, text: str, out: list[str]) -> None:
        if self._keep:
            out.append(text)
        elif self._may_be_key:
            # A string longer than every key of TEXT_KEYS is none of them (nor kept whole).
            self._may_be_key = len(self._string) < _KEY_MAX
            self._string += text


class NewTexts:
    """`NewText` for each tool call of an answer, by its index: the text of a call after the
    first starts on a line of its own."""

    def __init__(self) -> None:
        self._calls: dict[int, NewText] = {}
        self._written = False
        self._last: int | None = None

    def feed(self, index: int, piece: str) -> str:
        text = self._calls.setdefault(index, NewText()).feed(piece)
        if not text:
            return ""
        if self._written and index != self._last:
            text = "\n" + text
        self._written, self._last = True, index
        return text
