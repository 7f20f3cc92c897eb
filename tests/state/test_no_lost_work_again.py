"""No lost work, round two (issue 22), through the `bb7` command line a user types.

Links into `.git`, one write path for both applies, owners and hard links, edits made after a
crash, writes that race, reused process ids, one size limit, lost leases, streams that carry
garbage, and damaged state that must be one line, never a traceback. Crashes and second
writers are real processes; everything else runs `bb7.cli.main` in-process.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec
import pytest
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


# -- 1: a symlink into .git or .bb7 is never written (or read) through -------------------------


def test_a_symlink_into_git_state_is_refused_by_apply_add_and_chat_outputs(bb7: Bb7) -> None:
    (bb7.root / ".git" / "hooks").mkdir(parents=True)
    bb7.write(".git/config", "[core]\n")
    os.symlink(".git", bb7.root / "gl")
    (bb7.root / "docs").mkdir()
    os.symlink("../.git", bb7.root / "docs" / "g")
    os.symlink(".bb7", bb7.root / "state")
    hostile = {"path": "gl/config", "content": "[core]\n\tfsmonitor = touch /tmp/pwned\n"}
    response = bb7.root.parent / "response.json"
    response.write_text(json.dumps({"tool_calls": [{"name": "write_file", "arguments": hostile}]}))
    err = bb7("apply", "--root", str(bb7.root), str(response), ok=None)[1]
    assert "not applied, nothing was written" in err and "never edits" in err
    for path in ("docs/g/hooks/pre-commit", "gl/hooks/new", "state/bb7.db"):
        err = bb7("add", path, ok=False)[1]
        assert "never edits" in err, err
    bb7.write("f.txt", BASE)
    bb7("add", "f.txt")
    with pytest.raises(AssertionError, match="not a normalised path in the project"):
        bb7.model_writes({"docs/g/hooks/post-checkout": "#!/bin/sh\ntouch /tmp/pwned\n"})
    # A pending output whose directory becomes a link into .git before it is applied.
    bb7.model_writes({"tools/post-checkout": "#!/bin/sh\ntouch /tmp/pwned\n"})
    os.symlink(".git/hooks", bb7.root / "tools")
    out = bb7("output", "apply", "--all", ok=None)[0]
    assert "never edits" in out and "applied" not in out.replace("not applied", "")
    assert bb7.read(".git/config") == "[core]\n"
    assert sorted(p.name for p in (bb7.root / ".git" / "hooks").iterdir()) == []
