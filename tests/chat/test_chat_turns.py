"""Many turns: the prompt grows at its end, cache marks go where the provider needs them, and
the user's edits between two turns reach the model as diffs (the scripted server logs every
request)."""

from __future__ import annotations

import itertools
from typing import Any

import msgspec
import pytest
from test_chat_send import Chat
from test_chat_send import chat as chat  # the fixtures

from bb7.chat import events as ev
from bb7.files.fileid import file_id
from bb7.state.records import EventPart
from llm_server import edits, finish, stream, text_chunk, tool_call

# About 2,000 lines, every line unique.
BIG = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(700))


def answer(text: str = "Noted.") -> dict[str, Any]:
    return stream(text_chunk(text), finish())


def body(chat: Chat, n: int) -> dict[str, Any]:
    found: dict[str, Any] = chat.server.chat_requests()[n]["json"]
    return found


def anthropic(chat: Chat) -> dict[str, Any]:
    """An Anthropic model through OpenRouter (the README's default), at the scripted server."""
    provider = msgspec.structs.replace(chat.config().provider, preset="openrouter")
    return {"model": "anthropic/claude-sonnet-4.5", "provider": provider, "api_key": "env:KEY"}


def test_an_anthropic_model_gets_cache_marks_on_the_stable_parts(
    chat: Chat, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KEY", "sk-test")
    chat.add("app.py", BIG)
    for _ in range(3):
        chat.server.push(answer())
    chat.send("What does f1 return?", **anthropic(chat))
    chat.send("And f2?", **anthropic(chat))

    system, user = body(chat, 1)["messages"]
    assert system["content"][0]["cache_control"] == {"type": "ephemeral"}
    # The files as first shared, the history up to this turn; not the latest message.
    marks = [part.get("cache_control") is not None for part in user["content"]]
    assert marks == [True, True, False]
    assert user["content"][-1]["text"].startswith("# latest")

    chat.send("And f3?", cache=False, **anthropic(chat))
    assert "cache_control" not in chat.server.chat_requests()[2]["body"]


def test_a_model_whose_provider_caches_by_itself_gets_no_marks(
    chat: Chat, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KEY", "sk-test")
    chat.add("app.py", BIG)
    chat.server.push(answer())
    chat.send("What does f1 return?", **{**anthropic(chat), "model": "openai/gpt-5"})
    assert "cache_control" not in chat.server.chat_requests()[0]["body"]


def common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def test_each_of_ten_turns_starts_with_the_request_before(chat: Chat) -> None:
    fid = chat.add("app.py", BIG)
    for turn in range(1, 11):
        if turn == 3:  # the model changes the file
            change = edits(
                ("app.py", fid, "def f5():\n    return 5\n", "def f5():\n    return 'five'\n")
            )
            chat.server.push(
                stream(text_chunk("Changed f5."), *tool_call("edit_file", change), finish())
            )
        else:
            chat.server.push(answer(f"Answer {turn}."))
        if turn in (5, 8):  # the user edits the file between two turns
            text = (chat.root / "app.py").read_text()
            (chat.root / "app.py").write_text(
                text.replace(f"return {turn * 50}\n", f"return -{turn}\n")
            )
        outcome, _ = chat.send(f"Question {turn}?")
        assert isinstance(outcome, ev.Done) and outcome.ok, outcome

    bodies = [r["body"] for r in chat.server.chat_requests()]
    assert len(bodies) == 10
    shares = [common_prefix(a, b) / len(a) for a, b in itertools.pairwise(bodies)]
    assert min(shares) >= 0.9, shares
    # The whole file went once; the changes after it as diffs.
    last = body(chat, 9)["messages"][1]["content"]
    assert last.count("def f300():") == 1
    assert last.count("@diff ") == 3


def test_an_edit_between_two_turns_reaches_the_model_as_a_diff(chat: Chat) -> None:
    old = chat.add("app.py", BIG)
    chat.server.push(answer(), answer())
    chat.send("What does f100 return?")
    edited = BIG.replace("    return 100\n", "    return 'hundred'\n")
    (chat.root / "app.py").write_text(edited)
    assert chat.statuses() == {"app.py": "~"}

    chat.send("And now?")
    prompt = chat.prompt()
    new = file_id("app.py", edited)
    diff = prompt[prompt.index("@diff ") : prompt.index("@end diff")]
    assert f"path=app.py file_id={new} prev_file_id={old} by=user\n" in diff
    assert "-    return 100\n+    return 'hundred'\n" in diff
    assert prompt.count("def f300():") == 1  # the whole file is not sent a second time
    assert f"- {new} app.py rw original\n" in prompt
    assert chat.statuses() == {"app.py": ""}  # no `~` after the send
    followed = [
        p.event
        for m in chat.store.messages(chat.chat_id)
        for p in m.parts
        if isinstance(p, EventPart) and p.event.action == "user_updated"
    ]
    assert [(e.file_id, e.followed) for e in followed] == [(new, True)]


def test_follow_edits_full_sends_the_file_again_and_off_leaves_it(chat: Chat) -> None:
    chat.add("app.py", BIG)
    chat.server.push(answer(), answer(), answer())
    chat.send("Hi.")
    (chat.root / "app.py").write_text(BIG.replace("return 7\n", "return 70\n"))
    chat.send("Again.", follow_edits="full")
    assert chat.prompt().count("def f300():") == 2 and "@diff" not in chat.prompt()
    (chat.root / "app.py").write_text(BIG)
    chat.send("Once more.", follow_edits="off")
    assert chat.statuses() == {"app.py": "~"}
    assert "+    return 7\n" not in chat.prompt()  # the edit back was not sent
