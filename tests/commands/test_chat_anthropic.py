"""`bb7 chat` (in-process) speaking Anthropic's Messages API to the scripted server on 127.0.0.1:
an edit by tool_use lands as a pending change, ten turns send the same cached prefix with the
native breakpoints and show the cache reads the server reported, thinking goes back in the tool
turn, 529 then success is one retry, an error event mid-stream keeps what arrived."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bb7.files.fileid import file_id
from bb7.text.tokens import format_tokens
from cli_runner import run_cli
from llm_server import LLMServer
from messages_api import (
    error_body,
    error_event,
    message_start,
    messages,
    model,
    text_block,
    thinking_block,
    tool_use_block,
)

APP = "def main():\n    return 1\n"
KEY = "sk-ant-cli-secret-0123456789"
SIGNATURE = "EqQBCkYIBxgCKkBScriptedSignatureOfTheThinking=="


class Cli:
    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str], url: str) -> None:
        self.root, self.capsys, self.url = root, capsys, url

    def chat(self, *args: str, model: str = "claude-sonnet-4-5-20250929") -> Any:
        return run_cli(
            self.capsys,
            "chat",
            "--provider",
            "anthropic",
            "--base-url",
            self.url,
            "--model",
            model,
            *args,
        )

    def __call__(self, *args: str) -> Any:
        return run_cli(self.capsys, *args)


@pytest.fixture
def server_models() -> list[dict[str, Any]]:
    return [model(), model("claude-opus-4-7", name="Claude Opus 4.7", kinds=("adaptive",))]


@pytest.fixture
def cli(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    server: LLMServer,
) -> Cli:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "app.py").write_text(APP)
    for name in ("DATA", "CACHE", "CONFIG"):
        monkeypatch.setenv(f"XDG_{name}_HOME", str(tmp_path / name.lower()))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.chdir(root)
    made = Cli(root, capsys, server.base_url)
    assert made("init").returncode == 0
    assert made("add", "app.py").returncode == 0
    return made


def edit(old: str, new: str, content: str = APP) -> dict[str, Any]:
    fid = file_id("app.py", content)
    return {"edits": [{"path": "app.py", "file_id": fid, "old_string": old, "new_string": new}]}


def test_an_edit_by_tool_use_lands_as_a_pending_change(cli: Cli, server: LLMServer) -> None:
    server.push(
        messages(
            text_block("Main now returns 2."),
            tool_use_block("edit_file", edit("    return 1", "    return 2"), index=1),
            stop="tool_use",
        )
    )
    done = cli.chat("Return 2.")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Main now returns 2.\n")
    assert " M  app.py" in cli("status").stdout
    (request,) = server.chat_requests()
    assert request["path"] == "/v1/messages" and request["headers"]["x-api-key"] == KEY
    assert KEY not in done.stdout + done.stderr


def _blocks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The request as Anthropic's cache reads it, block by block: (text, marked)."""
    out = [(json.dumps(t["name"]), "cache_control" in t) for t in body.get("tools", [])]
    out += [(b["text"], "cache_control" in b) for b in body.get("system", [])]
    for message in body["messages"]:
        for block in message["content"]:
            text = json.dumps({k: v for k, v in block.items() if k != "cache_control"})
            out.append((text, "cache_control" in block))
    return out


def test_ten_turns_send_the_same_cached_prefix_and_show_the_cache_reads(
    cli: Cli, server: LLMServer
) -> None:
    for turn in range(1, 11):
        read = 0 if turn == 1 else 1000 * turn
        server.push(messages(text_block(f"Answer {turn}."), cache_read=read, cache_write=300))
        done = cli.chat(f"Question {turn}?")
        assert done.returncode == 0, done.stderr
        (line,) = [line for line in done.stdout.splitlines() if line.startswith("↳ ")]
        cached = f"{format_tokens(read)} cached, " if read else ""
        assert f"({cached}300 cache write)" in line, line
    bodies = [r["json"] for r in server.chat_requests()]
    assert len(bodies) == 10
    before: list[tuple[str, bool]] = []
    for body in bodies:
        blocks = _blocks(body)
        marked = [i for i, (_, mark) in enumerate(blocks) if mark]
        assert len(marked) <= 4
        # The tools' last, the system prompt's, the files as first shared, the last history.
        assert blocks[marked[0]][0] == json.dumps(body["tools"][-1]["name"])
        assert marked[1] == len(body["tools"])
        # What the turn before marked last is still there, the same, at the same place.
        if before:
            last = max(i for i, (_, mark) in enumerate(before) if mark)
            assert [text for text, _ in blocks[: last + 1]] == [t for t, _ in before[: last + 1]]
        before = blocks


def test_thinking_goes_back_in_the_tool_turn(cli: Cli, server: LLMServer) -> None:
    thought = "The return value is on line 2; change 1 to 2."
    wrong = edit("    return one", "    return 2")
    server.push(
        messages(
            thinking_block(thought, SIGNATURE),
            tool_use_block("edit_file", wrong, index=1, id="toolu_01Wrong"),
            stop="tool_use",
        ),
        messages(
            tool_use_block("edit_file", edit("    return 1", "    return 2"), id="toolu_02Fixed"),
            stop="tool_use",
        ),
    )
    done = cli.chat("--reasoning", "high", "--auto-repair", "--show-reasoning", "Return 2.")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(thought)
    assert " M  app.py" in cli("status").stdout
    first, second = (r["json"] for r in server.chat_requests())
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    assert second["messages"][0] == first["messages"][0]  # the same prompt, read from the cache
    reply, results = second["messages"][1:]
    assert reply["role"] == "assistant"
    assert reply["content"][0] == {"type": "thinking", "thinking": thought, "signature": SIGNATURE}
    assert reply["content"][1] == {
        "type": "tool_use",
        "id": "toolu_01Wrong",
        "name": "edit_file",
        "input": wrong,
    }
    assert results["role"] == "user"
    assert results["content"][0]["type"] == "tool_result"
    assert results["content"][0]["tool_use_id"] == "toolu_01Wrong"
    assert results["content"][0]["is_error"] is True
    assert "@retry_context" in results["content"][1]["text"]


def test_a_model_that_takes_only_adaptive_thinking_gets_it(cli: Cli, server: LLMServer) -> None:
    # Its models list entry says so: a thinking budget would be refused with a 400.
    thought = "Line 2 returns 1."
    server.push(messages(thinking_block(thought, SIGNATURE), text_block("It returns 1.")))
    done = cli.chat("--reasoning", "medium", "--show-reasoning", "What?", model="claude-opus-4-7")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("It returns 1.\n") and done.stderr.startswith(thought)
    (request,) = server.chat_requests()
    sent = request["json"]
    assert sent["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert sent["output_config"] == {"effort": "medium"}


def test_529_then_success_is_one_retry(cli: Cli, server: LLMServer) -> None:
    overloaded = error_body(529, "overloaded_error", "Overloaded")
    overloaded["headers"] = {"retry-after": "0"}  # no backoff to wait out in a test
    server.push(overloaded, messages(text_block("Here now.")))
    done = cli.chat("Hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Here now.\n")
    assert len(server.chat_requests()) == 2
    retried = [line for line in done.stderr.splitlines() if "overloaded" in line]
    assert len(retried) == 1, done.stderr


def test_an_error_event_mid_stream_keeps_what_arrived_and_says_why(
    cli: Cli, server: LLMServer
) -> None:
    start = message_start()
    partial = text_block("Let me look at app.py")[:-1]  # no content_block_stop
    server.push({"status": 200, "events": [start, *partial, error_event()]})
    done = cli.chat("Hi")
    assert done.returncode == 1
    assert done.stdout.startswith("Let me look at app.py")
    (said,) = [line for line in done.stderr.splitlines() if line.startswith("bb7: ")]
    assert said == (
        "bb7: The provider reported an error: Overloaded (overloaded_error). "
        "The partial answer is kept."
    )
    assert len(server.chat_requests()) == 1  # output had arrived: no retry
