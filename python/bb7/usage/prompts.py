"""The prompt log (the `log_prompts` option, off by default): every request bb7 sends a model,
its body as it goes over the wire, and the answer that came back, appended to one file that
`:BB7Log prompts` opens. For seeing exactly what the model was told and said.

Keys never go in: the body holds none (the key travels in a header, which is not logged), and
any text that holds the key is redacted all the same. The file is the user's alone (mode 0600:
prompts hold their code); past `MAX_BYTES` it starts over, keeping one old copy. A log that
cannot be written costs only its record (logged). Not for costs (`bb7.usage.log`).
"""

from __future__ import annotations

import logging
import os
from datetime import datetime
from pathlib import Path

import msgspec

from bb7.provider import events as llm
from bb7.provider.keys import ApiKey, redact

log = logging.getLogger(__name__)

MAX_BYTES = 20 * 1024 * 1024


def record(*, chat_id: str, model: str, body: bytes, end: llm.Terminal, key: ApiKey | None) -> str:
    """One exchange as the log keeps it: a header, the request's JSON body (indented), the
    answer's reasoning, text and tool calls, and how it ended; the key redacted."""
    when = datetime.now().astimezone().isoformat(timespec="seconds")
    lines = [f"=== {when} · chat {chat_id} · {model}", "--- request"]
    lines.append(msgspec.json.format(body, indent=2).decode("utf-8", errors="replace"))
    lines.append("--- answer")
    if end.reasoning:
        lines += ["(reasoning)", end.reasoning, "(text)"]
    lines.append(end.text)
    for call in end.tool_calls:
        lines.append(f"(tool call {call.name}) {call.arguments}")
    if isinstance(end, llm.StreamError):
        lines.append(f"--- ended: {end.kind}: {end.message}")
    else:
        lines.append(f"--- ended: {end.finish_reason or 'done'}")
    return redact("\n".join(lines) + "\n\n", key)


def append(path: Path, text: str) -> None:
    """Add one record (`record`) to the log at `path`, in one write."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > MAX_BYTES:
            os.replace(path, path.with_name(path.name + ".old"))
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("prompt log %s not written: %s", path, exc.strerror or exc)
