"""`bb7 chat` (in-process, see tests/cli_runner.py) against the scripted server running as its
own process."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bb7.files.fileid import file_id
from cli_runner import run_cli
from llm_server import (
    chunk,
    error_response,
    finish,
    openrouter_usage_chunk,
    reasoning_chunk,
    stream,
    text_chunk,
    tool_call_chunk,
    usage_chunk,
)

SERVER = Path(__file__).parents[1] / "llm_server.py"
APP = "def main():\n    return 1\n"
SECRET = "sk-test-cli-secret-1234567890"


class Server:
    """tests/llm_server.py as a subprocess; responses are queued over its control endpoints."""

    def __init__(self, process: subprocess.Popen[str], base_url: str) -> None:
        self.process = process
        self.base_url = base_url
        self.control = base_url.removesuffix("/v1")

    def push(self, *responses: dict[str, Any]) -> None:
        httpx.post(f"{self.control}/_bb7/responses", json=list(responses)).raise_for_status()

    def chat_requests(self) -> list[dict[str, Any]]:
        got = httpx.get(f"{self.control}/_bb7/requests").json()
        return [r for r in got if r["path"].endswith("/chat/completions")]


@pytest.fixture
def server() -> Iterator[Server]:
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("listening on "), line
    yield Server(process, line.split()[-1])
    process.terminate()
    process.wait(5)


class Cli:
    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root, self.capsys = root, capsys

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(self.capsys, *args)


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "app.py").write_text(APP)
    for name in ("DATA", "CACHE", "CONFIG"):
        monkeypatch.setenv(f"XDG_{name}_HOME", str(tmp_path / name.lower()))
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.chdir(root)
    made = Cli(root, capsys)
    assert made("init").returncode == 0
    assert made("add", "app.py").returncode == 0
    return made


def edit_call(old: str, new: str, fid: str) -> list[dict[str, Any]]:
    args = json.dumps(
        {"edits": [{"path": "app.py", "file_id": fid, "old_string": old, "new_string": new}]}
    )
    return [
        tool_call_chunk(0, id="call_1", name="edit_file", arguments=args[:25]),
        tool_call_chunk(0, arguments=args[25:]),
    ]


def test_bb7_chat_streams_the_answer_and_prints_the_statuses(cli: Cli, server: Server) -> None:
    fid = file_id("app.py", APP)
    server.push(
        stream(
            reasoning_chunk("Only main changes."),
            text_chunk("Main now "),
            text_chunk("returns 2."),
            *edit_call("    return 1", "    return 2", fid),
            finish("tool_calls"),
            usage_chunk(500, 40, cost=0.002),
        )
    )
    done = cli(
        "chat",
        "--base-url",
        server.base_url,
        "--model",
        "test/tools-model",
        "--show-reasoning",
        "Return 2.",
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("Only main changes.\n")
    lines = done.stdout.splitlines()
    assert lines[0] == "Main now returns 2."
    assert "wrote app.py (M)" in lines
    assert lines[-1] == " M  app.py  [14]"
    assert "bb7: edit_file app.py" in done.stderr
    assert " M  app.py  [14]" in cli("status").stdout
    (request,) = server.chat_requests()
    assert request["json"]["model"] == "test/tools-model"
    assert "authorization" not in request["headers"]  # a server on localhost needs no key


def test_bb7_chat_prints_the_usage_line_and_bb7_usage_counts_the_answer(
    cli: Cli, server: Server
) -> None:
    usage = openrouter_usage_chunk(12_500, 40, cached=11_000, written=400, cost=0.0087)
    server.push(stream(text_chunk("Hello."), finish(), usage))
    done = cli("chat", "--base-url", server.base_url, "--model", "test/tools-model", "Hi")
    assert done.returncode == 0, done.stderr
    answer, line, *_ = done.stdout.splitlines()
    assert answer == "Hello."
    assert re.fullmatch(
        r"↳ 13k in \(11k cached, 400 cache write\) · 40 out · \$0\.0087 \(saved \$0\.029\) · "
        r"\d+\.\d s \(first token \d+\.\d s\)",
        line,
    ), line
    spent = cli("usage", "--no-credit")
    today, chat = spent.stdout.splitlines()
    assert today == (
        "today: $0.0087 in 1 request (1 chat), 13k tokens in, 11k cached; the cache saved $0.029"
    )
    assert re.fullmatch(r"active chat '.+': 13k tokens · \$0\.0087 \(saved \$0\.029\)", chat)
    # No provider named and no OpenRouter key: the credit is not asked about (the answer came
    # from a local server; bb7 usage does not read the editor's setup).
    assert cli("usage").stdout.splitlines() == [today, chat]
    asked = cli("usage", "--provider", "openrouter").stdout.splitlines()
    assert asked[-1].startswith("OpenRouter credit: unknown (No API key")


def test_failed_edits_exit_1_and_the_next_bb7_chat_sends_the_retry_context(
    cli: Cli, server: Server
) -> None:
    fid = file_id("app.py", APP)
    server.push(
        stream(text_chunk("Done."), *edit_call("    return 9", "    return 2", fid), finish())
    )
    args = ("--base-url", server.base_url, "--model", "test/tools-model")
    failed = cli("chat", *args, "Return 2.")
    assert failed.returncode == 1
    assert "could not be applied; nothing was changed" in failed.stderr
    assert "app.py: old_string was not found" in failed.stderr
    assert "the retry context is saved" in failed.stderr
    assert failed.stdout.splitlines()[-1] == "    app.py  [7]"  # in sync: nothing pending

    server.push(
        stream(text_chunk("Fixed."), *edit_call("    return 1", "    return 2", fid), finish())
    )
    fixed = cli("chat", *args, "Please retry the file changes.")
    assert fixed.returncode == 0, fixed.stderr
    prompt = server.chat_requests()[-1]["json"]["messages"][1]["content"]
    assert "@retry_context" in prompt and "[not_found]" in prompt
    assert " M  app.py" in fixed.stdout


def test_provider_errors_exit_1_readably_without_the_key(
    cli: Cli, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.push(error_response(401, f"bad key {SECRET}"))
    monkeypatch.setenv("BB7_CLI_KEY", SECRET)
    done = cli(
        "chat", "--base-url", server.base_url, "--api-key", "BB7_CLI_KEY", "--model", "m", "Hi"
    )
    assert done.returncode == 1
    assert done.stderr.startswith("bb7: The provider refused the request (HTTP 401")
    assert "Check the key from environment variable BB7_CLI_KEY" in done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert server.chat_requests()[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    assert SECRET.encode() not in (cli.root / ".bb7" / "bb7.db").read_bytes()


def test_the_openrouter_default_needs_openrouter_api_key(cli: Cli) -> None:
    done = cli("chat", "Hi")  # the default base URL; nothing is sent without a key
    assert done.returncode == 1
    assert "OPENROUTER_API_KEY is not set" in done.stderr


def test_a_provider_preset_brings_its_key_variable_and_reasoning_dialect(
    cli: Cli, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.push(stream(text_chunk("Thought it over."), finish()))
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    done = cli(
        "chat",
        "--provider",
        "anthropic",
        "--api",  # its OpenAI-compatible endpoint; its own API is the preset's default
        "openai",
        "--base-url",
        server.base_url,
        "--model",
        "claude-sonnet-4-5",
        "--reasoning-effort",
        "high",
        "Hi",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Thought it over.\n")
    sent = server.chat_requests()[0]
    assert sent["headers"]["authorization"] == f"Bearer {SECRET}"
    assert sent["json"]["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    assert "reasoning_effort" not in sent["json"] and "reasoning" not in sent["json"]


def test_a_preset_without_its_key_fails_before_sending(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    done = cli("chat", "--provider", "groq", "Hi")
    assert done.returncode == 1
    assert "GROQ_API_KEY is not set (needed for https://api.groq.com/openai/v1)" in done.stderr


def test_keep_alives_forever_end_at_the_idle_timeout_flag(cli: Cli, server: Server) -> None:
    keep_alives = {"repeat": {"comment": "OPENROUTER PROCESSING"}, "every": 0.05}
    server.push(stream(text_chunk("Half"), keep_alives, done=False))
    done = cli(
        "chat", "--base-url", server.base_url, "--idle-timeout", "0.5", "--retries", "0", "Hi"
    )
    assert done.returncode == 1
    assert done.stdout.startswith("Half\n")
    assert done.stderr.splitlines()[-1] == (
        "bb7: The provider sent only keep-alive comments, no answer, for 0.5 s (the idle limit). "
        "The partial answer is kept; send again to get a complete one."
    )


def test_an_unknown_preset_is_refused_by_the_command_line(cli: Cli) -> None:
    done = cli("chat", "--provider", "olama", "Hi")
    assert done.returncode == 2
    assert "invalid choice: 'olama'" in done.stderr


def test_an_answer_in_content_parts_is_printed_with_its_reasoning(cli: Cli, server: Server) -> None:
    # Mistral's magistral models: content as a list of text and thinking parts.
    thinking = [{"type": "thinking", "thinking": [{"type": "text", "text": "2+2 is 4."}]}]
    server.push(
        stream(
            chunk({"role": "assistant", "content": thinking}),
            chunk({"content": [{"type": "text", "text": "2 + 2 = 4"}]}),
            finish(),
        )
    )
    done = cli("chat", "--base-url", server.base_url, "--show-reasoning", "What is 2+2?")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("2 + 2 = 4\n")
    assert done.stderr.startswith("2+2 is 4.\n")
    assert "warning" not in done.stderr


def test_an_error_page_of_several_lines_is_reported_on_one_line(cli: Cli, server: Server) -> None:
    # A proxy in front of the provider answers with an HTML page, or a provider's message has
    # line breaks: each message bb7 prints is still one line (Neovim shows only the first).
    page = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>nginx</body>\r\n</html>"
    server.push({"status": 502, "body": page}, error_response(500, "upstream\nexploded"))
    done = cli("chat", "--base-url", server.base_url, "--retries", "1", "Hi")
    assert done.returncode == 1
    retried, gave_up = done.stderr.splitlines()  # one line each
    assert retried.startswith("bb7: retrying in ")
    assert retried.endswith(
        ": The provider had a server error (HTTP 502: <html> <head><title>502 Bad Gateway"
        "</title></head> <body>nginx</body> </html>). Send again in a moment, or pick another "
        "model."
    )
    assert gave_up == (
        "bb7: The provider had a server error (HTTP 500: upstream exploded). Send again in a "
        "moment, or pick another model. (gave up after 2 attempts)"
    )


def test_an_unreachable_server_is_reported_one_line_per_message(cli: Cli) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = cli("chat", "--base-url", f"http://127.0.0.1:{port}/v1", "--retries", "0", "Hi")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert all(line.startswith("bb7: ") for line in lines), lines
    assert lines[0].startswith(
        "bb7: warning: no models list: tool support and context size unknown (Could not reach "
        f"127.0.0.1:{port}: "
    )


def test_a_local_server_that_wants_a_key_says_where_to_point_api_key(
    cli: Cli, server: Server
) -> None:
    # No key is sent to a server on this machine; when it wants one, OPENROUTER_API_KEY (the
    # old hint) would not be read for it: api_key is what says where the key is.
    server.push(error_response(401, "missing key"))
    done = cli("chat", "--base-url", server.base_url, "Hi")
    assert done.returncode == 1
    assert done.stderr == (
        "bb7: The provider refused the request (HTTP 401: missing key). No API key was sent: "
        "set provider.api_key to an environment variable name, cmd:COMMAND or file:PATH. "
        "bb7 chat --api-key sets it for one run.\n"
    )


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_cancels_once_however_often_it_is_pressed(
    cli: Cli, server: Server, presses: int
) -> None:
    # A real process: Ctrl-C is a signal. An impatient second press while the first cancels
    # must not end bb7 with a traceback before the partial answer is stored.
    server.push(stream(text_chunk("Half"), {"stall": 30}, done=False))
    process = subprocess.Popen(
        [sys.executable, "-m", "bb7.cli", "chat", "--base-url", server.base_url, "Hi"],
        cwd=cli.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stdout.read(4) == b"Half"  # the answer is streaming
    for _ in range(presses):
        process.send_signal(signal.SIGINT)
        time.sleep(0.01)  # a second press lands while the first is being handled
    _, err = process.communicate(timeout=10)
    assert process.returncode == 130, err
    assert err.decode() == (
        "bb7: Response cancelled by the user; the partial answer is kept, without file changes.\n"
    )
    assert "Half" in cli("chats", "search", "Half").stdout  # the partial answer was stored


def test_ctrl_c_before_any_answer_cancels_the_waiting_send(cli: Cli, server: Server) -> None:
    # The press comes while bb7 waits for the provider's headers: nothing streamed yet.
    server.push(stream(text_chunk("late"), stall_before_headers=30))
    process = subprocess.Popen(
        [sys.executable, "-m", "bb7.cli", "chat", "--base-url", server.base_url, "Hi"],
        cwd=cli.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60  # a loaded machine starts Python slowly
    while not server.chat_requests() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.chat_requests(), "the request never reached the server"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=10)
    assert process.returncode == 130, err
    assert out == b""
    assert err.decode() == "bb7: Response cancelled by the user before any answer came.\n"


def _prompt(request: dict[str, Any]) -> str:
    content = request["json"]["messages"][1]["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def test_an_edit_away_from_the_change_is_kept_and_a_rejection_reason_reaches_the_model(
    cli: Cli, server: Server
) -> None:
    args = ("--base-url", server.base_url, "--model", "test/tools-model")
    server.push(
        stream(text_chunk("2."), *edit_call("    return 1", "    return 2", file_id("app.py", APP)))
    )
    assert cli("chat", *args, "Return 2.").returncode == 0
    (cli.root / "app.py").write_text("import os\n\n" + APP)  # the user's own line, above
    assert " M  app.py" in cli("status").stdout
    assert cli("output", "apply", "app.py").returncode == 0
    assert (cli.root / "app.py").read_text() == "import os\n\ndef main():\n    return 2\n"

    now = file_id("app.py", "import os\n\ndef main():\n    return 2\n")
    server.push(stream(text_chunk("3."), *edit_call("    return 2", "    return 3", now)))
    assert cli("chat", *args, "Return 3.").returncode == 0
    rejected = cli("output", "reject", "app.py", "--reason", "2 is the answer")
    assert rejected.returncode == 0, rejected.stderr
    server.push(stream(text_chunk("Kept 2."), finish()))
    assert cli("chat", *args, "Fine?").returncode == 0
    prompt = _prompt(server.chat_requests()[-1])
    assert "action=user_rejected_hunk path=app.py" in prompt
    assert 'lines=4-4 reason="2 is the answer"\n-    return 2\n+    return 3\n' in prompt


def _answered_by(model: str, *steps: dict[str, Any]) -> dict[str, Any]:
    """A streamed answer whose chunks name `model` (the name the answer is stored under)."""
    for step in steps:
        step["data"]["model"] = model
    return stream(*steps)


def test_bb7_stats_counts_each_model_s_answers_with_edits(cli: Cli, server: Server) -> None:
    base = file_id("app.py", APP)
    two = file_id("app.py", APP.replace("1", "2"))
    three = file_id("app.py", APP.replace("1", "3"))
    tools, other = "test/tools-model", "other/model"
    server.push(
        # tools: applied at the first try; then failed once and repaired by the next answer.
        _answered_by(tools, *edit_call("    return 1", "    return 2", base), finish()),
        _answered_by(tools, *edit_call("    return 9", "    return 3", two), finish()),
        _answered_by(tools, *edit_call("    return 2", "    return 3", two), finish()),
        # other: failed, and the next answer was prose: never applied.
        _answered_by(other, *edit_call("    return 7", "    return 4", three), finish()),
        _answered_by(other, text_chunk("I cannot find that line."), finish()),
    )
    codes = [
        cli("chat", "--base-url", server.base_url, "--model", model, "Change it.").returncode
        for model in (tools, tools, tools, other, other)
    ]
    assert codes == [0, 1, 0, 1, 0]
    listed = cli("stats")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        "test/tools-model  2 answers with edits: 1 at the first try, 1 after a repair, 0 never "
        "(not_found 1)",
        "other/model       1 answer with edits: 0 at the first try, 0 after a repair, 1 never "
        "(not_found 1)",
    ]
    as_json = json.loads(cli("stats", "--json").stdout)
    assert as_json["models"][1] == {
        "model": "other/model",
        "answers": 1,
        "first_try": 0,
        "repaired": 0,
        "never": 1,
        "from_text": 0,
        "failures": {"not_found": 1},
    }


def test_an_edit_between_two_turns_reaches_the_model_as_a_diff_and_leaves_no_tilde(
    cli: Cli, server: Server
) -> None:
    args = ("--base-url", server.base_url, "--model", "test/tools-model")
    big = APP + "".join(f"\ndef f{i}():\n    return {i}\n" for i in range(60))
    (cli.root / "app.py").write_text(big)
    server.push(stream(text_chunk("1."), finish()), stream(text_chunk("2."), finish()))
    assert cli("chat", *args, "What does main return?").returncode == 0
    edited = big.replace("    return 1\n", "    return 'one'\n", 1)
    (cli.root / "app.py").write_text(edited)
    assert "~  app.py" in cli("status").stdout
    done = cli("chat", *args, "And now?")
    assert done.returncode == 0, done.stderr
    prompt = _prompt(server.chat_requests()[-1])
    new = file_id("app.py", edited)
    assert f"path=app.py file_id={new} prev_file_id={file_id('app.py', big)} by=user" in prompt
    assert "-    return 1\n+    return 'one'\n" in prompt
    assert prompt.count("def f30():") == 1  # the whole file went once
    assert "~" not in cli("status").stdout


def test_bb7_add_diff_adds_a_live_part_that_bb7_chat_reads_again(cli: Cli, server: Server) -> None:
    for args in (("init", "-q"), ("add", "."), ("commit", "-qm", "one")):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@e.x", *args], cwd=cli.root, check=True
        )
    (cli.root / "app.py").write_text(APP.replace("1", "2"))
    added = cli("add", "diff")
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith("added @diff (") and "read again at each send" in added.stdout
    assert cli("add", "diagnostics").stderr.strip().endswith("exists only in the editor (:BB7Add)")
    (cli.root / "app.py").write_text(APP.replace("1", "3"))
    server.push(stream(text_chunk("Seen."), finish()))
    args = ("--base-url", server.base_url, "--model", "test/tools-model")
    assert cli("chat", *args, "What changed?").returncode == 0
    prompt = server.chat_requests()[-1]["json"]["messages"][1]["content"]
    assert "The unstaged changes (git diff):" in str(prompt)
    assert "-    return 1\n+    return 3" in str(prompt)


TOOLS = "# tools\n\ndef a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"


def test_an_edit_matching_two_places_waits_for_bb7_output_choose(cli: Cli, server: Server) -> None:
    (cli.root / "tools.py").write_text(TOOLS)
    assert cli("add", "tools.py").returncode == 0
    args = ("--base-url", server.base_url, "--model", "test/tools-model")
    # Three edits of one answer: two match one place each, the middle one two (lines 4, 9).
    edits = [
        ("tools.py", "# tools", "# the tools"),
        ("tools.py", "    x = 1\n", "    x = 2\n"),
        ("app.py", "    return 1", "    return 2"),
    ]
    calls = [
        {"path": path, "file_id": file_id(path, TOOLS if path == "tools.py" else APP),
         "old_string": old, "new_string": new}
        for path, old, new in edits
    ]  # fmt: skip
    arguments = json.dumps({"edits": calls})
    server.push(
        stream(
            text_chunk("Done."),
            tool_call_chunk(0, id="call_1", name="edit_file", arguments=arguments),
            finish("tool_calls"),
        )
    )
    done = cli("chat", *args, "x is 2 in b, main returns 2.")
    assert done.returncode == 0, done.stderr
    assert "  an edit matches several places: `bb7 output choose tools.py` lists them" in (
        done.stdout.splitlines()
    )
    status = cli("status").stdout
    assert " M  app.py  [" in status
    assert re.search(r" M  tools\.py  \[\d+\]  choose", status), status
    # All or nothing: the file waits; the rest of the answer is pending as usual.
    refused = cli("output", "apply", "--all")
    assert refused.returncode != 0
    assert "tools.py: an edit of it waits for a choice of place" in refused.stdout
    assert (cli.root / "app.py").read_text() == APP.replace("return 1", "return 2")
    assert (cli.root / "tools.py").read_text() == TOOLS
    listed = cli("output", "choose", "tools.py").stdout.splitlines()
    assert listed[:5] == [
        "tools.py: an edit matches 2 places:",
        "  1: line 4",
        "           x = 1",
        "  2: line 9",
        "           x = 1",
    ]
    chosen = cli("output", "choose", "tools.py", "2")
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout.startswith("tools.py: took place 2 (line 9);")
    assert cli("output", "apply", "tools.py").returncode == 0
    want = TOOLS.replace("# tools", "# the tools").replace("b():\n    x = 1", "b():\n    x = 2")
    assert (cli.root / "tools.py").read_text() == want


def test_an_edit_refused_instead_of_placed_reaches_the_model(cli: Cli, server: Server) -> None:
    args = ("--base-url", server.base_url, "--model", "test/tools-model")
    twice = APP + "\n\ndef other():\n    return 1\n"
    (cli.root / "app.py").write_text(twice)
    assert cli("update", "app.py").returncode == 0
    server.push(
        stream(
            text_chunk("2."), *edit_call("    return 1", "    return 2", file_id("app.py", twice))
        )
    )
    assert cli("chat", *args, "Return 2.").returncode == 0
    assert "choose" in cli("status").stdout
    refused = cli("output", "choose", "app.py", "--refuse", "--reason", "which one?")
    assert refused.returncode == 0, refused.stderr
    assert cli("status").stdout.splitlines()[-1] == "    app.py  [14]"  # nothing pending
    server.push(stream(text_chunk("Main."), finish()))
    assert cli("chat", *args, "main, sorry").returncode == 0
    prompt = _prompt(server.chat_requests()[-1])
    assert "action=user_refused_edit path=app.py" in prompt
    assert 'lines=2-2 reason="which one?"\n-    return 1\n+    return 2\n' in prompt
