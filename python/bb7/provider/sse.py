"""Incremental Server-Sent Events decoding: bytes in any pieces the network gives, payloads out.

Only `data:` fields matter to Chat Completions streams; comments (`: OPENROUTER PROCESSING`
keep-alives), `event:`, `id:` and `retry:` lines are skipped. Lines end with LF or CRLF (a lone
CR as line end is not supported: no OpenAI-compatible server sends it). Payloads stay bytes so
the JSON decoder reads them without an extra str copy. This module knows nothing about JSON.
"""

from __future__ import annotations

# A single event larger than this is a broken or hostile server, not a model answer
# (providers stream tool arguments in small pieces); refusing keeps memory bounded.
MAX_EVENT_BYTES = 32 * 1024 * 1024


class SSEOverflow(Exception):
    """An event grew past MAX_EVENT_BYTES without ending."""


class SSEDecoder:
    """Feed raw bytes, get the `data` payload of every event completed so far."""

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._max = max_event_bytes
        # Pieces of the current unterminated line; joined only when its newline arrives, so a
        # long line delivered one byte at a time costs linear, not quadratic, time.
        self._partial: list[bytes] = []
        self._partial_size = 0
        self._data: list[bytes] = []
        self._data_size = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        """Payloads of the events that `chunk` completed (often none, sometimes several)."""
        if b"\n" not in chunk:
            if chunk:
                self._partial.append(chunk)
                self._partial_size += len(chunk)
                self._check_size()
            return []
        if self._partial:
            self._partial.append(chunk)
            chunk = b"".join(self._partial)
            self._partial = []
            self._partial_size = 0
        lines = chunk.split(b"\n")
        rest = lines.pop()
        if rest:
            self._partial.append(rest)
            self._partial_size = len(rest)
        out: list[bytes] = []
        for line in lines:
            self._line(line[:-1] if line.endswith(b"\r") else line, out)
        self._check_size()
        return out

    def close(self) -> list[bytes]:
        """End of stream: an event not closed by a blank line still counts."""
        out: list[bytes] = []
        if self._partial:
            line = b"".join(self._partial)
            self._partial = []
            self._partial_size = 0
            self._line(line[:-1] if line.endswith(b"\r") else line, out)
        self._line(b"", out)
        return out

    def _line(self, line: bytes, out: list[bytes]) -> None:
        if not line:
            if self._data:
                out.append(self._data[0] if len(self._data) == 1 else b"\n".join(self._data))
                self._data = []
                self._data_size = 0
            return
        if line.startswith(b"data:"):
            value = line[6:] if line.startswith(b"data: ") else line[5:]
            self._data.append(value)
            self._data_size += len(value)

    def _check_size(self) -> None:
        if self._partial_size + self._data_size > self._max:
            raise SSEOverflow(f"a server-sent event exceeded {self._max} bytes")
