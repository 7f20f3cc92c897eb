"""No lost work, round two (issue 22), through the `bb7` command line a user types.

Links into `.git`, one write path for both applies, owners and hard links, edits made after a
crash, writes that race, reused process ids, one size limit, lost leases, streams that carry
garbage, and damaged state that must be one line, never a traceback. Crashes and second
writers are real processes; everything else runs `bb7.cli.main` in-process.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
from bb7_cli import Bb7

from bb7.state.records import Problem
from bb7.state.workspace import open_workspace
from llm_server import LLMServer, finish, stream, text_chunk, tool_call_chunk

BASE = "line 1\nline 2\nline 3\n"


# -- 9: a stream that carries garbage: skipped with a warning, the answer stored ----------------


def test_garbage_in_a_stream_is_skipped_with_a_warning_and_the_answer_is_stored(
    bb7: Bb7,
) -> None:
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    nested = "[" * 5000 + "]" * 5000
    deep_args = '{"path": "f.txt", "content": ' + nested + "}"
    steps = [
        text_chunk("Before "),
        {"raw": b'data: {"choices":[{"index":0,"delta":{"content":"bad \xff\xfe bytes "}}]}\n\n'},
        {"raw": b"data: " + nested.encode() + b"\n\n"},
        text_chunk("after."),
        tool_call_chunk(0, id="call_1", name="write_file", arguments=deep_args),
        finish("tool_calls"),
    ]
    with LLMServer([stream(*steps)]) as server:
        out, err = bb7(
            "chat", "--base-url", server.base_url, "--model", "test/tools-model", "Hi", ok=None
        )
    assert "Traceback" not in err and "Internal error" not in err, err
    assert "Before bad \ufffd\ufffd bytes after." in out
    assert "not UTF-8" in err and "nested too deeply" in err
    assert bb7.read("f.txt") == BASE
    assert "Before bad \ufffd\ufffd bytes after." in _history(bb7.root)


def _history(root: Path) -> str:
    """The active chat's messages, as stored, in one JSON text."""
    ws = open_workspace(root)
    assert not isinstance(ws, Problem)
    try:
        found = ws.active()
        assert found is not None
        store, chat = found
        parts = [m.parts for m in store.messages(chat.id)]
        return msgspec.json.encode(parts).decode("utf-8")
    finally:
        ws.close()
