"""Benchmark: a 10-turn chat on a 2,000-line file that the user edits between turns, with
`context.follow_edits = 'diff'` against `'full'`.

Run: .venv/bin/python benchmarks/chat_turns.py

Each turn goes through the real send (`bb7.chat.send.start_send`: the context follows the
edits on disk, the prompt is built from the store) to the scripted server tests/llm_server.py,
which records every request. Per turn it prints the tokens of the request (the estimate of
`bb7.text.tokens`) and the new ones: those after the part the request shares with the one
before, byte for byte, which a provider's prompt cache cannot serve. The user changes a few
lines somewhere in the file before every turn but the first; the model changes it once.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from bb7.chat import events as ev  # noqa: E402
from bb7.chat.send import start_send  # noqa: E402
from bb7.files.fileid import file_id  # noqa: E402
from bb7.prompt.assemble import FollowEdits  # noqa: E402
from bb7.prompt.config import SendConfig  # noqa: E402
from bb7.provider.config import ProviderConfig  # noqa: E402
from bb7.refusal import Problem  # noqa: E402
from bb7.state import context  # noqa: E402
from bb7.state.chats import new_chat  # noqa: E402
from bb7.state.records import Usage  # noqa: E402
from bb7.state.store import init_project  # noqa: E402
from bb7.text.tokens import estimate_tokens  # noqa: E402
from llm_server import LLMServer, edits, finish, stream, text_chunk, tool_call  # noqa: E402

TURNS = 10
SOURCE = "".join(
    f"def handler_{i}(request):\n    value = compute(request, {i})\n    return value\n\n"
    for i in range(500)
)  # 2,000 lines


def _tokens(body: dict[str, Any]) -> int:
    return estimate_tokens(json.dumps(body, ensure_ascii=False))


def _shared(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def chat_completions(text: str, call: dict[str, Any] | None) -> dict[str, Any]:
    """An answer streamed as Chat Completions chunks: its text, then its edit_file call."""
    steps = [text_chunk(text)] + ([] if call is None else tool_call("edit_file", call))
    return stream(*steps, finish())


Reply = Callable[[str, "dict[str, Any] | None"], "dict[str, Any]"]


def scripted_chat(
    config: Callable[[str, Path], SendConfig],
    models: list[dict[str, Any]] | None = None,
    *,
    reply: Reply = chat_completions,
    respond: Callable[[Any, dict[str, Any]], dict[str, Any]] | None = None,
) -> tuple[list[str], list[str], list[Usage | None]]:
    """The chat, sent with `config(base_url, tmp_dir)` to the scripted server (serving
    `models`, answering in `reply`'s protocol, through `respond` when given): every request's
    body, every answer's text and what each send used."""
    answers: list[str] = []
    used: list[Usage | None] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        LLMServer(models=models, respond=respond) as server,
    ):
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        root = Path(tmp) / "proj"
        root.mkdir()
        (root / "app.py").write_text(SOURCE)
        store = init_project(root)
        chat_id = new_chat(store).id
        entry = context.add(store, chat_id, context.Target("app.py"))
        assert not isinstance(entry, Problem)
        settings = config(server.base_url, Path(tmp))
        for turn in range(1, TURNS + 1):
            if turn > 1:  # the user edits a few lines somewhere in the file
                text = (root / "app.py").read_text()
                n = (turn * 47) % 500
                old = f"    value = compute(request, {n})\n"
                new = f"    value = compute(request, {n}, retries={turn})\n    log(value)\n"
                (root / "app.py").write_text(text.replace(old, new))
            if turn == 4:  # the model changes the file once
                now = (root / "app.py").read_text()
                change = edits(
                    (
                        "app.py",
                        file_id("app.py", now),
                        "def handler_3(request):\n",
                        "def handler_3(request, *, strict=False):\n",
                    )
                )
                answers.append("Done.")
                server.push(reply("Done.", change))
            else:
                answers.append(f"Answer {turn}.")
                server.push(reply(f"Answer {turn}.", None))
            handle = start_send(store, chat_id, f"Question {turn}?", settings, lambda _: None)
            assert not isinstance(handle, Problem), handle
            outcome = handle.wait(60)
            assert isinstance(outcome, ev.Done) and outcome.ok, outcome
            used.append(outcome.usage)
        store.close()
        return [r["body"] for r in server.chat_requests()], answers, used


def run_chat(mode: FollowEdits) -> list[tuple[int, int]]:
    """(tokens, new tokens) of each turn's request."""

    def config(base_url: str, tmp: Path) -> SendConfig:
        provider = ProviderConfig(base_url=base_url)
        return SendConfig(model="bench/model", provider=provider, follow_edits=mode)

    bodies, _, _ = scripted_chat(config)
    rows = []
    for i, body in enumerate(bodies):
        shared = _shared(bodies[i - 1], body) if i else 0
        rows.append((_tokens(json.loads(body)), estimate_tokens(body[shared:])))
    return rows


def main() -> int:
    diff = run_chat("diff")
    full = run_chat("full")
    print(f"{TURNS}-turn chat on a {SOURCE.count(chr(10)):,}-line file, edited between turns")
    print(f"{'turn':>4}  {'diff: tokens':>12}  {'new':>7}  {'full: tokens':>12}  {'new':>7}")
    for turn, ((d, dn), (f, fn)) in enumerate(zip(diff, full, strict=True), start=1):
        print(f"{turn:>4}  {d:>12,}  {dn:>7,}  {f:>12,}  {fn:>7,}")
    total_d, total_f = sum(d for d, _ in diff), sum(f for f, _ in full)
    new_d, new_f = sum(n for _, n in diff), sum(n for _, n in full)
    print(f"total tokens sent: diff {total_d:,}, full {total_f:,}: ratio {total_d / total_f:.2f}")
    ratio = new_d / new_f
    print(f"new tokens (not a cacheable prefix): diff {new_d:,}, full {new_f:,}: ratio {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
