"""The send loop end to end: a real project, a real store, the real scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import pytest

from bb7.chat import events as ev
from bb7.chat.compact import compact_chat
from bb7.chat.send import CANCELLED, CANCELLED_EMPTY, REPAIR_REQUEST, SendHandle, start_send
from bb7.chat.title import retitle_chat
from bb7.chatview.conversation import render
from bb7.files.fileid import file_id
from bb7.prompt.config import SendConfig
from bb7.prompt.turn import build_turn
from bb7.provider.client import OpenAICompatClient, ProviderConfig, RetryPolicy, Timeouts
from bb7.provider.handle import Handle
from bb7.refusal import Problem
from bb7.state import context, outputs
from bb7.state.chats import new_chat
from bb7.state.context import Target
from bb7.state.exclusions import toggle_excluded
from bb7.state.records import EventPart
from bb7.state.responses import retry_state
from bb7.state.status import file_statuses
from bb7.state.store import Store, init_project, open_global
from bb7.usage.log import day_spend, read
from llm_server import (
    DEFAULT_MODELS,
    LLMServer,
    edits,
    error_response,
    finish,
    openrouter_usage_chunk,
    reasoning_chunk,
    stream,
    text_chunk,
    tool_call,
    tool_call_chunk,
    usage_chunk,
)
from shared_folder import need_shared
from waits import WAIT_S, until

APP = "def main():\n    return 1\n\n\ndef helper():\n    return 'x'\n"
SECRET = "sk-or-v1-chat-secret-9876543210"
E = TypeVar("E")


class Recorder:
    """Collects a send's events, checking they arrive one at a time with one outcome."""

    def __init__(self) -> None:
        self.events: list[ev.SendEvent] = []
        self.lock = threading.Lock()
        self.first_chunk = threading.Event()

    def __call__(self, event: ev.SendEvent) -> None:
        assert self.lock.acquire(blocking=False), "on_event called concurrently"
        try:
            if not isinstance(event, ev.TitleChanged):
                assert not self.of(ev.Done) and not self.of(ev.Failed), "event after the outcome"
            self.events.append(event)
        finally:
            self.lock.release()
        if isinstance(event, ev.Chunk):
            self.first_chunk.set()

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]


class Chat:
    """A project with one chat, and sends against the test server."""

    def __init__(self, root: Path, store: Store, chat_id: str, server: LLMServer) -> None:
        self.root, self.store, self.chat_id, self.server = root, store, chat_id, server

    def config(self, **changes: Any) -> SendConfig:
        base = SendConfig(
            model="test/tools-model",
            provider=ProviderConfig(
                base_url=self.server.base_url,
                timeouts=Timeouts(connect=5, read=5),
                retry=RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.02),
            ),
            models_cache=str(self.root.parent / "cache"),
        )
        return msgspec.structs.replace(base, **changes)

    def start(self, text: str, **changes: Any) -> tuple[SendHandle, Recorder]:
        recorder = Recorder()
        handle = start_send(self.store, self.chat_id, text, self.config(**changes), recorder)
        assert isinstance(handle, Handle), handle
        return handle, recorder

    def send(self, text: str, **changes: Any) -> tuple[ev.Outcome, Recorder]:
        handle, recorder = self.start(text, **changes)
        outcome = handle.wait(15)
        assert outcome is not None and handle.finished
        assert recorder.events[0] in [*recorder.of(ev.Started), outcome]
        return outcome, recorder

    def add(self, path: str, text: str, *, readonly: bool = False) -> str:
        (self.root / path).write_text(text)
        got = context.add(self.store, self.chat_id, Target(path), readonly=readonly)
        assert not isinstance(got, Problem), got
        return got.file_id

    def statuses(self) -> dict[str, str]:
        return {r.path: r.status for r in file_statuses(self.store, self.chat_id)}

    def output(self, path: str) -> str:
        found = self.store.output(self.chat_id, path)
        assert found is not None, f"no pending output for {path}"
        return self.store.blob(found.blob)

    def roles(self) -> list[tuple[str, str]]:
        return [(m.role, m.text()) for m in self.store.messages(self.chat_id)]

    def prompt(self, n: int = -1) -> str:
        """The user message of the n-th chat request the server received."""
        content = self.server.chat_requests()[n]["json"]["messages"][1]["content"]
        return content if isinstance(content, str) else "".join(p["text"] for p in content)


@pytest.fixture
def chat(tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Chat]:
    # Keep the global store and the user's instruction file inside the test's directory.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    root = tmp_path / "proj"
    root.mkdir()
    store = init_project(root)
    made = Chat(root, store, new_chat(store).id, server)
    yield made
    store.close()


# -- a full turn ---------------------------------------------------------------------------------


def test_a_tool_call_edit_becomes_a_pending_output_with_the_answer_usage_and_cost(
    chat: Chat,
) -> None:
    fid = chat.add("app.py", APP)
    args = edits(
        ("app.py", fid, "    return 1", "    return 2"),
        ("app.py", fid, "    return 'x'", "    return 'y'"),
    )
    chat.server.push(
        stream(
            reasoning_chunk("Two returns to change."),
            text_chunk("I changed both "),
            text_chunk("return values."),
            *tool_call(("edit_file"), args),
            finish("tool_calls"),
            usage_chunk(1200, 80, cost=0.0042, cached=1000),
        )
    )
    outcome, events = chat.send("Make main return 2 and helper return 'y'.")

    assert isinstance(outcome, ev.Done) and outcome.ok, outcome
    assert chat.output("app.py") == APP.replace("return 1", "return 2").replace("'x'", "'y'")
    assert chat.statuses() == {"app.py": "M"}
    assert outcome.files == [ev.WrittenFile("app.py")]
    # Streamed as it arrived: text, reasoning, the tool call's progress with its path.
    assert "".join(c.text for c in events.of(ev.Chunk)) == "I changed both return values."
    assert [r.text for r in events.of(ev.Reasoning)] == ["Two returns to change."]
    progress = events.of(ev.ToolProgress)
    assert progress[-1].name == "edit_file" and progress[-1].path == "app.py"
    assert progress[-1].arguments_length == len(json.dumps(args))
    (started,) = events.of(ev.Started)
    assert (started.edit_format, started.diff_mode) == ("tools", "search_replace_multi")
    # The user's message with its context snapshot, then the answer with usage, cost and event.
    user, answer = chat.store.messages(chat.chat_id)[-2:]
    assert user.role == "user" and [r.path for r in user.context_snapshot] == ["app.py"]
    assert answer.role == "assistant" and answer.text() == "I changed both return values."
    assert answer.usage is not None
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (1200, 80)
    assert (answer.usage.cached_tokens, answer.usage.cost) == (1000, 0.0042)
    assert outcome.message_id == answer.id and outcome.usage == answer.usage
    wrote = [p.event for p in answer.parts if isinstance(p, EventPart)]
    assert [(e.action, e.path, e.prev_file_id) for e in wrote] == [
        ("assistant_wrote", "app.py", fid)
    ]
    # The request offered the tools and showed the file with its id.
    request = chat.server.chat_requests()[-1]["json"]
    assert [t["function"]["name"] for t in request["tools"]] == [
        "write_file",
        "edit_file",
        "request_files",
    ]
    assert f"@file n=2 id={fid} path=app.py\n{APP}@end file" in chat.prompt()
    assert f"Files:\n- {fid} app.py rw original\n" in chat.prompt()
    assert chat.store.chat(chat.chat_id).retry_context == ""  # type: ignore[union-attr]


ANTHROPIC_PRICES = {
    "prompt": "0.000003",
    "completion": "0.000015",
    "input_cache_read": "0.0000003",
    "input_cache_write": "0.00000375",
}


def test_the_usage_line_shows_the_cached_tokens_and_what_the_cache_saved(
    chat: Chat, server: LLMServer
) -> None:
    server.models = [{**DEFAULT_MODELS[0], "pricing": ANTHROPIC_PRICES}]
    # 11k of 12.5k prompt tokens read from the cache, 400 written to it, as OpenRouter says.
    usage = openrouter_usage_chunk(12_500, 40, cached=11_000, written=400, cost=0.0087)
    server.push(stream(text_chunk("Hello."), finish(), usage))
    outcome, _ = chat.send("Hi")
    assert isinstance(outcome, ev.Done) and outcome.usage is not None
    # Without the cache: 12.5k prompt tokens at $3/M and 40 at $15/M, $0.0381.
    assert outcome.usage.saved == pytest.approx(0.0381 - 0.0087)
    shown = render(chat.store.messages(chat.chat_id))
    (line,) = [line for line in shown.lines if line.startswith("↳")]
    assert re.fullmatch(
        r"↳ 13k in \(11k cached, 400 cache write\) · 40 out · \$0\.0087 \(saved \$0\.029\) · "
        r"\d+\.\d s \(first token \d+\.\d s\)",
        line,
    ), line
    assert shown.usage == "13k tokens · $0.0087 (saved $0.029)"


def test_the_recorded_openrouter_usage_chunk_is_priced_and_shown(
    chat: Chat, server: LLMServer
) -> None:
    recording = need_shared("wire", "openrouter-cache-usage.sse")
    server.push(stream({"raw": recording.read_bytes()}, done=False))
    outcome, _ = chat.send("Hi")
    assert isinstance(outcome, ev.Done) and outcome.usage is not None
    assert (outcome.usage.prompt_tokens, outcome.usage.completion_tokens) == (254, 5)
    assert outcome.usage.cost == pytest.approx(0.000837)
    (line,) = [line for line in render(chat.store.messages(chat.chat_id)).lines if "↳" in line]
    assert line.startswith("↳ 254 in · 5 out · $0.00084 · ")


def test_every_request_is_added_to_the_usage_log(chat: Chat, tmp_path: Path) -> None:
    log = tmp_path / "data" / "nvim" / "bb7" / "usage.csv"
    chat.server.push(stream(text_chunk("Hello."), finish(), usage_chunk(1000, 100, cost=0.01)))
    outcome, _ = chat.send("Hi", usage_log=str(log))
    assert isinstance(outcome, ev.Done)
    (logged,) = read(log)
    assert (logged.project, logged.chat, logged.model) == (
        str(chat.root),
        chat.chat_id,
        "test/model",
    )
    assert (logged.usage.prompt_tokens, logged.usage.cost) == (1000, 0.01)
    assert day_spend(log).cost == pytest.approx(0.01)


def test_cost_comes_from_the_models_list_prices_when_the_provider_sends_none(chat: Chat) -> None:
    chat.server.push(stream(text_chunk("Hello."), finish(), usage_chunk(1000, 100)))
    outcome, _ = chat.send("Hi")
    assert isinstance(outcome, ev.Done) and outcome.usage is not None
    # test/tools-model: $3 per million prompt tokens, $15 per million completion tokens.
    assert outcome.usage.cost == pytest.approx(1000 * 3e-6 + 100 * 15e-6)


def test_write_file_creates_an_added_output(chat: Chat) -> None:
    chat.add("app.py", APP)
    content = "def test_main():\n    assert True\n"
    chat.server.push(
        stream(
            text_chunk("Added a test."),
            *tool_call("write_file", {"path": "tests/test_app.py", "content": content}),
            finish("tool_calls"),
        )
    )
    outcome, _ = chat.send("Add a test file.")
    assert isinstance(outcome, ev.Done) and outcome.ok
    assert outcome.files == [ev.WrittenFile("tests/test_app.py")]
    assert chat.output("tests/test_app.py") == content
    assert chat.statuses() == {"app.py": "", "tests/test_app.py": "A"}
    assert not (chat.root / "tests").exists()  # nothing touches the project before apply


def test_an_answer_without_changes_stores_the_text_and_changes_nothing(chat: Chat) -> None:
    chat.add("app.py", APP)
    chat.server.push(stream(text_chunk("main returns 1."), finish()))
    outcome, _ = chat.send("What does main return?")
    assert isinstance(outcome, ev.Done) and outcome.ok and outcome.files == []
    assert chat.roles()[-2:] == [
        ("user", "What does main return?"),
        ("assistant", "main returns 1."),
    ]
    assert chat.statuses() == {"app.py": ""}


def test_history_and_events_reach_the_next_prompt(chat: Chat) -> None:
    fid = chat.add("app.py", APP)
    chat.server.push(stream(text_chunk("It returns 1."), finish()))
    chat.send("What does main return?")
    chat.server.push(stream(text_chunk("Sure."), finish()))
    chat.send("Thanks.")
    prompt = chat.prompt()
    assert f"@event n=1 action=user_added path=app.py file_id={fid}" in prompt
    assert "@msg n=3 role=user\nWhat does main return?\n@end msg" in prompt
    assert "@msg n=4 role=assistant\nIt returns 1.\n@end msg" in prompt
    assert "@latest\nFiles:\n- " in prompt and prompt.index("Thanks.") > prompt.index("@latest")
    assert prompt.count("What does main return?") == 1
    assert prompt.count(APP) == 1  # the unchanged file is not sent again


# -- text blocks ----------------------------------------------------------------------------------


def test_a_model_without_tools_gets_edit_blocks_and_they_apply(chat: Chat) -> None:
    chat.add("app.py", APP)
    answer = (
        "Changing main.\n\napp.py\n««« EDIT\ndef main():\n    return 1\n═══════ REPL\n"
        "def main():\n    return 3\n»»» EDIT END\n\nDone."
    )
    pieces = [answer[i : i + 5] for i in range(0, len(answer), 5)]
    chat.server.push(stream(*[text_chunk(p) for p in pieces], finish()))
    outcome, events = chat.send("main should return 3", model="test/plain-model")

    assert isinstance(outcome, ev.Done) and outcome.ok, outcome
    assert chat.output("app.py") == APP.replace("return 1", "return 3")
    request = chat.server.chat_requests()[-1]["json"]
    assert "tools" not in request
    assert "««« EDIT" in request["messages"][0]["content"]  # the block instructions
    (started,) = events.of(ev.Started)
    assert (started.edit_format, started.diff_mode) == ("text_blocks", "edit_blocks")
    assert events.of(ev.BlockStatus) == [ev.BlockStatus(1, "app.py", 4, True)]
    assert chat.store.messages(chat.chat_id)[-1].text() == answer


def test_search_replace_blocks_by_diff_mode_report_a_malformed_block_while_streaming(
    chat: Chat,
) -> None:
    chat.add("app.py", APP)
    answer = "app.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return 4\n"  # never closed
    chat.server.push(stream(text_chunk(answer), finish()))
    outcome, events = chat.send("return 4", diff_mode="search_replace_blocks")
    assert "<<<<<<< SEARCH" in chat.server.chat_requests()[-1]["json"]["messages"][0]["content"]
    (block,) = events.of(ev.BlockStatus)
    assert not block.ok and "ended before its >>>>>>> REPLACE" in block.message
    assert isinstance(outcome, ev.Done) and not outcome.ok and outcome.retry_saved
    assert chat.statuses() == {"app.py": ""}


# -- failed edits and the retry state ------------------------------------------------------------


def test_failed_edits_store_nothing_and_the_next_send_carries_the_retry_context(
    chat: Chat,
) -> None:
    fid = chat.add("app.py", APP)
    bad = edits(
        ("app.py", fid, "    return 1", "    return 2"),  # applies
        ("app.py", fid, "    return 'z'", "    return 'y'"),  # not in the file
    )
    chat.server.push(
        stream(text_chunk("Changed both."), *tool_call("edit_file", bad), finish("tool_calls"))
    )
    outcome, _ = chat.send("Return 2 and 'y'.")

    assert isinstance(outcome, ev.Done) and not outcome.ok and outcome.retry_saved
    assert [(e.path, e.kind) for e in outcome.errors] == [("app.py", "not_found")]
    assert chat.store.outputs(chat.chat_id) == [] and chat.statuses() == {"app.py": ""}
    roles = chat.roles()
    assert roles[-2] == ("assistant", "Changed both.")
    assert roles[-1][0] == "system" and "could not be applied (1 problem)" in roles[-1][1]
    assert "• app.py, edit 2: not found: the text to replace is not in the file" in roles[-1][1]
    # The retry state is in the database: the text and the successful edit's partial version.
    half = APP.replace("return 1", "return 2")
    state = retry_state(chat.store, chat.chat_id)
    assert state is not None and "ONLY what failed" in state.text
    assert [(o.path, o.content) for o in state.outputs] == [("app.py", half)]

    half_id = file_id("app.py", half)
    fix = edits(("app.py", half_id, "    return 'x'", "    return 'y'"))
    chat.server.push(stream(text_chunk("Fixed."), *tool_call("edit_file", fix), finish()))
    outcome, _ = chat.send("Please retry the file changes.")

    prompt = chat.prompt()
    retry = prompt.split("@retry_context\n")[1].split("@end retry_context")[0]
    assert f"- app.py: file_id {half_id} (your successful changes applied)" in retry
    assert "1. call 1 (edit_file), edit 2, app.py [not_found]" in retry
    assert '"old_string":"    return \'z\'"' in retry  # the failed call, as sent
    # The partial version is the text the model edits (this small file shown whole again).
    assert f"@file n=6 id={half_id} path=app.py\n{half}@end file" in prompt
    assert f"- {half_id} app.py rw pending_output\n" in prompt
    assert isinstance(outcome, ev.Done) and outcome.ok, outcome
    assert chat.output("app.py") == APP.replace("return 1", "return 2").replace("'x'", "'y'")
    assert retry_state(chat.store, chat.chat_id) is None
    # Carried once: the send after the repair has no retry context.
    chat.server.push(stream(text_chunk("ok"), finish()))
    chat.send("Thanks.")
    assert "@retry_context" not in chat.prompt()


def test_an_answer_to_the_retry_without_changes_keeps_the_edits_that_succeeded(
    chat: Chat,
) -> None:
    fid = chat.add("app.py", APP)
    twice = edits(("app.py", fid, "return 1", "return 2"), ("app.py", fid, "return 1", "return 2"))
    chat.server.push(stream(*tool_call("edit_file", twice), finish()))
    outcome, _ = chat.send("Return 2.")
    assert isinstance(outcome, ev.Done) and not outcome.ok
    assert "may have been applied before" in outcome.errors[0].message
    # The model was told its successful edit is kept; it has nothing left to send.
    chat.server.push(stream(text_chunk("The first edit already did it."), finish()))
    outcome, _ = chat.send("Please retry the file changes.")
    assert isinstance(outcome, ev.Done) and outcome.ok
    assert outcome.files == [ev.WrittenFile("app.py")]
    assert chat.output("app.py") == APP.replace("return 1", "return 2")


def test_a_partial_version_whose_file_changed_since_is_dropped_from_the_retry(chat: Chat) -> None:
    fid = chat.add("app.py", APP)
    bad = edits(("app.py", fid, "    return 1", "    return 2"), ("app.py", fid, "nope", "x"))
    chat.server.push(stream(*tool_call("edit_file", bad), finish()))
    chat.send("Change it.")
    # The user edits and re-snapshots the file: the partial version would undo that.
    (chat.root / "app.py").write_text(APP + "# mine\n")
    assert not isinstance(context.update(chat.store, chat.chat_id, Target("app.py")), Problem)
    chat.server.push(stream(text_chunk("ok"), finish()))
    _, events = chat.send("Retry.")
    assert [n.kind for n in events.of(ev.Notice)] == ["retry"]
    prompt = chat.prompt()
    assert "status=pending_output" not in prompt and "# mine" in prompt
    assert "app.py changed after that response" in prompt


def test_automatic_repair_sends_one_more_request_and_applies_the_fix(chat: Chat) -> None:
    fid = chat.add("app.py", APP)
    bad = edits(("app.py", fid, "    return 1", "    return 2"), ("app.py", fid, "zzz", "y"))
    half_id = file_id("app.py", APP.replace("return 1", "return 2"))
    fix = edits(("app.py", half_id, "    return 'x'", "    return 'y'"))
    chat.server.push(
        stream(
            text_chunk("First try."), *tool_call("edit_file", bad), finish(), usage_chunk(100, 10)
        ),
        stream(
            text_chunk("Repaired."), *tool_call("edit_file", fix), finish(), usage_chunk(200, 20)
        ),
    )
    outcome, events = chat.send("Change both.", auto_repair=True)

    assert isinstance(outcome, ev.Done) and outcome.ok and outcome.repaired, outcome
    assert chat.output("app.py") == APP.replace("return 1", "return 2").replace("'x'", "'y'")
    assert [s.repair for s in events.of(ev.Started)] == [False, True]
    (repairing,) = events.of(ev.Repairing)
    assert [(e.edit, e.kind) for e in repairing.errors] == [(2, "not_found")]
    assert outcome.usage is not None and outcome.usage.prompt_tokens == 300
    repair_prompt = chat.prompt()
    assert REPAIR_REQUEST in repair_prompt.split("@latest")[1]
    assert "@retry_context" in repair_prompt and "@msg n=" in repair_prompt
    assert [r for r, _ in chat.roles()[-4:]] == ["user", "assistant", "system", "assistant"]
    assert retry_state(chat.store, chat.chat_id) is None


def test_a_failed_automatic_repair_leaves_its_own_retry_state(chat: Chat) -> None:
    fid = chat.add("app.py", APP)
    bad = edits(("app.py", fid, "nope", "x"))
    worse = edits(("app.py", fid, "still nope", "x"))
    chat.server.push(
        stream(*tool_call("edit_file", bad), finish()),
        stream(*tool_call("edit_file", worse), finish()),
    )
    outcome, _ = chat.send("Change it.", auto_repair=True)
    assert isinstance(outcome, ev.Done) and not outcome.ok and outcome.retry_saved
    assert len(chat.server.chat_requests()) == 2  # one repair, not more
    state = retry_state(chat.store, chat.chat_id)
    assert state is not None and "still nope" in state.text


# -- cancel and provider errors ------------------------------------------------------------------


def test_cancel_mid_stream_keeps_the_partial_answer_as_aborted_and_commits_nothing(
    chat: Chat,
) -> None:
    fid = chat.add("app.py", APP)
    args = json.dumps(edits(("app.py", fid, "    return 1", "    return 2")))
    chat.server.push(
        stream(
            text_chunk("Working on it"),
            tool_call_chunk(0, id="c", name="edit_file", arguments=args[:30]),
            {"stall": 10},
            tool_call_chunk(0, arguments=args[30:]),
            finish(),
        )
    )
    handle, events = chat.start("Change it.")
    assert events.first_chunk.wait(5)
    handle.cancel()
    outcome = handle.wait(5)
    assert isinstance(outcome, ev.Failed) and outcome.kind == "cancelled"
    assert outcome.message == CANCELLED
    assert chat.server.wait_for_disconnect(5) is not None
    assert chat.roles()[-3:] == [
        ("user", "Change it."),
        ("assistant", "Working on it"),
        ("system", CANCELLED),
    ]
    assert outcome.message_id == chat.store.messages(chat.chat_id)[-2].id
    assert chat.store.outputs(chat.chat_id) == [] and retry_state(chat.store, chat.chat_id) is None


def test_cancel_before_any_answer_says_nothing_came(chat: Chat) -> None:
    chat.server.push(stream({"stall": 10}, done=False))
    handle, _ = chat.start("Hello?")
    until(chat.server.chat_requests, "the request")
    handle.cancel()
    outcome = handle.wait(WAIT_S)
    assert isinstance(outcome, ev.Failed) and outcome.kind == "cancelled"
    assert outcome.message == CANCELLED_EMPTY
    assert chat.roles()[-2:] == [("user", "Hello?"), ("system", CANCELLED_EMPTY)]


def test_an_unknown_key_is_refused_readably_and_the_key_is_never_repeated(
    chat: Chat, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BB7_TEST_KEY", SECRET)
    chat.server.push(error_response(401, f"Invalid key {SECRET}"))
    outcome, _ = chat.send("Hello?", api_key="BB7_TEST_KEY")

    assert chat.server.chat_requests()[-1]["headers"]["authorization"] == f"Bearer {SECRET}"
    assert isinstance(outcome, ev.Failed) and outcome.kind == "auth" and outcome.status == 401
    assert "HTTP 401" in outcome.message and "BB7_TEST_KEY" in outcome.message
    assert chat.roles() == [
        ("user", "Hello?"),
        ("system", f"The request failed: {outcome.message}"),
    ]
    everything = (chat.root / ".bb7" / "bb7.db").read_bytes()
    assert SECRET.encode() not in everything and SECRET not in outcome.message


def test_a_missing_key_fails_before_any_request_and_keeps_the_message(chat: Chat) -> None:
    outcome, _ = chat.send("Hello?", api_key="BB7_UNSET_KEY_VARIABLE")
    assert isinstance(outcome, ev.Failed) and outcome.kind == "auth"
    assert "BB7_UNSET_KEY_VARIABLE is not set" in outcome.message
    assert chat.server.chat_requests() == []
    assert chat.roles()[0] == ("user", "Hello?")


def test_rate_limits_after_the_retries_give_a_readable_error(chat: Chat) -> None:
    limited = error_response(429, "Slow down", headers={"Retry-After": "0"})
    chat.server.push(limited, limited)
    outcome, events = chat.send("Hello?")
    assert isinstance(outcome, ev.Failed) and outcome.kind == "rate_limited"
    assert "rate limiting" in outcome.message and "gave up after 2 attempts" in outcome.message
    assert [r.attempt for r in events.of(ev.Retrying)] == [2]
    assert chat.roles() == [
        ("user", "Hello?"),
        ("system", f"The request failed: {outcome.message}"),
    ]


def test_a_server_error_mid_answer_keeps_the_partial_text(chat: Chat) -> None:
    chat.server.push(stream(text_chunk("Half an ans"), {"drop": True}, done=False))
    outcome, _ = chat.send("Explain.")
    assert isinstance(outcome, ev.Failed) and outcome.kind == "connection"
    assert chat.roles()[-2] == ("assistant", "Half an ans")
    assert outcome.message_id == chat.store.messages(chat.chat_id)[-2].id


def test_a_second_send_in_the_same_chat_waits_for_the_first(chat: Chat) -> None:
    chat.server.push(stream(text_chunk("slow"), {"stall": 10}, finish()))
    handle, events = chat.start("one")
    assert events.first_chunk.wait(5)
    refused = start_send(chat.store, chat.chat_id, "two", chat.config(), Recorder())
    assert isinstance(refused, Problem) and refused.kind == "busy"
    handle.cancel()
    assert handle.wait(5) is not None
    chat.server.push(stream(text_chunk("fine"), finish()))
    outcome, _ = chat.send("three")
    assert isinstance(outcome, ev.Done)


def test_a_prompt_near_the_context_window_warns_before_the_answer(
    chat: Chat, server: LLMServer
) -> None:
    size = build_turn(chat.store, chat.chat_id, "Hi", chat.config()).prompt.total_tokens
    server.models = [{**DEFAULT_MODELS[0], "id": "test/tiny", "context_length": size + 10}]
    chat.server.push(stream(text_chunk("ok"), finish()))
    outcome, events = chat.send("Hi", model="test/tiny")
    (notice,) = events.of(ev.Notice)
    assert notice.kind == "context_near" and f"{size + 10:,}" in notice.message
    assert events.events.index(notice) < events.events.index(events.of(ev.Chunk)[0])
    assert isinstance(outcome, ev.Done)


def test_a_prompt_over_the_context_window_is_refused_before_any_request(
    chat: Chat, server: LLMServer
) -> None:
    chat.add("big.py", "x = 1\n" * 2000)  # 3k tokens
    server.models = [{**DEFAULT_MODELS[0], "id": "test/tiny", "context_length": 1000}]
    outcome, events = chat.send("Tidy big.py", model="test/tiny")
    assert isinstance(outcome, ev.Failed) and outcome.kind == "context_over"
    assert outcome.message.startswith(
        "Too large to send: drop files or messages, or start a new chat."
    )
    assert "over the model's context of 1.0k (largest: big.py 3.0k, " in outcome.message
    assert server.chat_requests() == []  # only the models list was asked for
    assert not events.of(ev.Started)
    assert chat.roles()[-2:] == [("user", "Tidy big.py"), ("system", outcome.message)]


# -- global chats and titles ---------------------------------------------------------------------


def test_a_global_chat_offers_no_tools_and_everything_is_read_only(
    chat: Chat, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# notes\n")
    store = open_global()
    try:
        chat_id = new_chat(store).id
        assert not isinstance(context.add(store, chat_id, Target(str(notes))), Problem)
        chat.server.push(stream(text_chunk("Nice notes."), finish()))
        recorder = Recorder()
        handle = start_send(store, chat_id, "Review my notes", chat.config(), recorder)
        assert isinstance(handle, Handle)
        outcome = handle.wait(10)
        assert isinstance(outcome, ev.Done) and outcome.ok
        request = chat.server.chat_requests()[-1]["json"]
        assert "tools" not in request
        assert "belongs to no project" in request["messages"][0]["content"]
        assert f"path={notes} external\n" in chat.prompt()
        assert f"{notes} ro original\n" in chat.prompt()
        assert recorder.of(ev.Started)[0].edit_format == "none"
        assert [m.role for m in store.messages(chat_id)][-2:] == ["user", "assistant"]
    finally:
        store.close()


def test_the_first_exchange_names_the_chat_with_the_title_model(chat: Chat) -> None:
    chat.add("app.py", APP)
    chat.server.push(
        stream(text_chunk("It returns 1."), finish()),
        stream(text_chunk('"Main return value."'), finish()),
    )
    outcome, events = chat.send("What does main return?", title_model="test/small")
    assert isinstance(outcome, ev.Done)
    assert events.of(ev.TitleChanged) == [ev.TitleChanged(chat.chat_id, "Main return value")]
    assert chat.store.chat(chat.chat_id).name == "Main return value"  # type: ignore[union-attr]
    title_request = chat.server.chat_requests()[-1]["json"]
    assert title_request["model"] == "test/small" and "tools" not in title_request
    assert "What does main return?" in title_request["messages"][1]["content"]
    # Only after the first exchange.
    chat.server.push(stream(text_chunk("ok"), finish()))
    _, later = chat.send("Thanks.", title_model="test/small")
    assert later.of(ev.TitleChanged) == [] and len(chat.server.chat_requests()) == 3


def test_a_chat_is_named_again_after_its_first_message_whatever_its_name(chat: Chat) -> None:
    client = OpenAICompatClient(chat.config().provider, None)
    try:
        empty = retitle_chat(chat.store, chat.chat_id, "test/small", client)
        assert isinstance(empty, Problem) and empty.kind == "no_message"
        chat.server.push(stream(text_chunk("It returns 1."), finish()))
        chat.send("What does main return?")
        chat.store.update_chat(chat.chat_id, name="My own name")
        chat.server.push(stream(text_chunk("Title: Main's value."), finish()))
        assert retitle_chat(chat.store, chat.chat_id, "test/small", client) == "Main's value"
        assert chat.store.chat(chat.chat_id).name == "Main's value"  # type: ignore[union-attr]
        asked = chat.server.chat_requests()[-1]["json"]
        assert asked["model"] == "test/small"
        assert "What does main return?" in asked["messages"][1]["content"]
        chat.server.push(error_response(400, "no such model"))
        failed = retitle_chat(chat.store, chat.chat_id, "test/missing", client)
        assert isinstance(failed, Problem) and "no such model" in failed.message
        assert chat.store.chat(chat.chat_id).name == "Main's value"  # type: ignore[union-attr]
    finally:
        client.close()


def test_a_failed_title_is_silent_but_logged(chat: Chat, caplog: pytest.LogCaptureFixture) -> None:
    chat.server.push(stream(text_chunk("Hi."), finish()), error_response(400, "no such model"))
    with caplog.at_level(logging.INFO, logger="bb7.chat.title"):
        outcome, events = chat.send("Hello", title_model="test/missing")
    assert isinstance(outcome, ev.Done) and events.of(ev.TitleChanged) == []
    assert chat.store.chat(chat.chat_id).name.startswith("Chat ")  # type: ignore[union-attr]
    assert any("no title" in r.message and "no such model" in r.message for r in caplog.records)


def test_applying_the_output_then_the_next_prompt_reports_it(chat: Chat) -> None:
    fid = chat.add("app.py", APP)
    chat.server.push(
        stream(*tool_call("edit_file", edits(("app.py", fid, "return 1", "return 5"))), finish())
    )
    chat.send("Return 5.")
    applied = outputs.apply_output(chat.store, chat.chat_id, "app.py")
    assert not isinstance(applied, Problem), applied
    chat.server.push(stream(text_chunk("ok"), finish()))
    chat.send("Thanks.")
    new_id = file_id("app.py", APP.replace("return 1", "return 5"))
    assert f"action=user_applied path=app.py file_id={new_id} prev_file_id={fid}" in chat.prompt()


def test_a_server_error_before_the_answer_is_retried_within_the_send(chat: Chat) -> None:
    chat.server.push(error_response(500, "overloaded"), stream(text_chunk("Hello."), finish()))
    outcome, events = chat.send("Hi")
    assert isinstance(outcome, ev.Done) and outcome.ok
    (retrying,) = events.of(ev.Retrying)
    assert "HTTP 500: overloaded" in retrying.reason
    assert chat.roles() == [("user", "Hi"), ("assistant", "Hello.")]


def test_changes_to_a_file_the_user_discarded_meanwhile_are_not_stored(chat: Chat) -> None:
    fid = chat.add("app.py", APP)
    chat.server.push(
        stream(*tool_call("edit_file", edits(("app.py", fid, "return 1", "return 5"))), finish())
    )
    chat.send("Return 5.")
    pending_id = file_id("app.py", APP.replace("return 1", "return 5"))
    later = edits(("app.py", pending_id, "return 'x'", "return 'q'"))
    chat.server.push(
        stream(text_chunk("Also q."), {"sleep": 0.3}, *tool_call("edit_file", later), finish())
    )
    handle, events = chat.start("And return 'q'.")
    assert events.first_chunk.wait(5)
    # While the answer streams, the user discards the pending output it is editing.
    assert not isinstance(outputs.discard_output(chat.store, chat.chat_id, "app.py"), Problem)
    outcome = handle.wait(5)
    assert isinstance(outcome, ev.Failed) and outcome.kind == "stale_base", outcome
    assert "changed while the response was written" in outcome.message
    assert chat.store.outputs(chat.chat_id) == []
    assert chat.roles()[-2] == ("assistant", "Also q.")
    assert outcome.message_id == chat.store.messages(chat.chat_id)[-2].id


def test_a_failing_key_command_is_named_with_its_exit_code_and_its_output_kept_nowhere(
    chat: Chat,
) -> None:
    # A password manager that prints the key (or part of it) on failure, on both streams.
    command = f"cmd:echo {SECRET}; echo {SECRET} >&2; exit 3"
    outcome, _ = chat.send("Hello?", api_key=command)
    assert isinstance(outcome, ev.Failed) and outcome.kind == "auth"
    assert outcome.message == (
        "The API key command `echo ...` failed with exit code 3 (its output is not shown: it may "
        "hold the key). Run it in a terminal to see why."
    )
    assert chat.server.chat_requests() == []
    assert chat.roles() == [
        ("user", "Hello?"),
        ("system", f"The request failed: {outcome.message}"),
    ]
    for stored in (chat.root / ".bb7").rglob("*"):
        if stored.is_file():
            assert SECRET.encode() not in stored.read_bytes(), stored


def test_a_chunk_the_client_cannot_fully_read_becomes_a_stream_warning(chat: Chat) -> None:
    chat.server.push(
        stream(text_chunk("Fine"), {"raw": "data: {half a chunk\n\n"}, text_chunk("."), finish())
    )
    outcome, events = chat.send("Hello?", diff_mode="edit_blocks")
    assert isinstance(outcome, ev.Done) and outcome.text == "Fine."
    assert [(n.kind, n.message) for n in events.of(ev.Notice) if n.kind == "stream"] == [
        (
            "stream",
            "Skipped part of the provider's stream that bb7 cannot read: "
            "a chunk that is not valid JSON (13 bytes).",
        )
    ]


def test_a_failed_answer_still_reports_its_usage_and_duration(chat: Chat) -> None:
    error = {"code": 400, "message": "Token limit reached"}
    usage = {"prompt_tokens": 43, "completion_tokens": 10, "total_tokens": 53, "cost": 0.5}
    chat.server.push(
        stream(text_chunk("Par"), {"data": {"choices": [], "error": error, "usage": usage}})
    )
    outcome, _ = chat.send("Hello?")
    assert isinstance(outcome, ev.Failed) and outcome.kind == "provider"
    assert outcome.usage is not None
    assert (outcome.usage.prompt_tokens, outcome.usage.completion_tokens) == (43, 10)
    assert outcome.usage.cost == 0.5 and outcome.usage.duration > 0


def test_a_reasoning_effort_the_preset_cannot_send_is_left_out_and_said(
    chat: Chat, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", SECRET)
    chat.server.push(stream(text_chunk("Hi."), finish()))
    provider = msgspec.structs.replace(chat.config().provider, preset="deepseek")
    outcome, events = chat.send("Hello?", provider=provider, reasoning_effort="high")
    assert isinstance(outcome, ev.Done)
    assert [n.message for n in events.of(ev.Notice) if n.kind == "reasoning"] == [
        "DeepSeek takes no reasoning effort setting; the request goes without it."
    ]
    sent = chat.server.chat_requests()[0]
    assert sent["headers"]["authorization"] == f"Bearer {SECRET}"  # the preset's variable
    assert "reasoning_effort" not in sent["json"] and "reasoning" not in sent["json"]
    # The answer keeps the effort it was asked with (`K` in the chat view shows it): none.
    answer = chat.store.messages(chat.chat_id)[-1]
    assert answer.usage is not None and answer.usage.reasoning_effort == ""


def test_the_answer_keeps_the_reasoning_effort_it_was_asked_with(chat: Chat) -> None:
    chat.server.push(stream(text_chunk("Hi."), finish()))
    outcome, _ = chat.send("Hello?", reasoning_effort="low")
    assert isinstance(outcome, ev.Done)
    assert chat.server.chat_requests()[0]["json"]["reasoning_effort"] == "low"
    answer = chat.store.messages(chat.chat_id)[-1]
    assert answer.usage is not None and answer.usage.reasoning_effort == "low"


def test_compacting_sends_a_summary_instead_of_the_older_turns_and_gx_restores_them(
    chat: Chat,
) -> None:
    chat.add("app.py", APP)
    for n in range(6):
        chat.server.push(
            stream(text_chunk(f"Answer {n}: keep parse_all in src/p{n}.py."), finish())
        )
        chat.send(f"Question {n} about src/p{n}.py")

    def request() -> str:
        turn = build_turn(chat.store, chat.chat_id, "next", chat.config())
        return msgspec.json.encode(turn.request).decode()

    def tokens() -> int:
        return build_turn(chat.store, chat.chat_id, "", chat.config()).prompt.total_tokens

    before, whole = tokens(), request()
    summary = "Files: src/p0.py, src/p1.py. Decided: parse_all stays. Rejected: regexes (slow)."
    chat.server.push(stream(text_chunk(summary), finish()))
    client = OpenAICompatClient(chat.config().provider, None)
    try:
        said = compact_chat(chat.store, chat.chat_id, 4, "test/small", client, tokens)
    finally:
        client.close()
    assert isinstance(said, str) and said.startswith("compacted 4 messages into a summary: ")
    asked = chat.server.chat_requests()[-1]["json"]
    assert asked["model"] == "test/small"
    assert "every file path" in asked["messages"][0]["content"]
    assert "Question 1 about src/p1.py" in asked["messages"][1]["content"]
    assert "Question 2 about" not in asked["messages"][1]["content"]
    # The next request: smaller by the summarized messages, with the summary in their place.
    after, compacted = tokens(), request()
    assert after < before and f"{before - after:,} tokens less" in said
    assert summary in compacted and "Answer 0:" not in compacted and "Answer 1:" not in compacted
    assert "Answer 2:" in compacted and "Answer 5:" in compacted
    messages = chat.store.messages(chat.chat_id)
    talk = [m.excluded for m in messages if m.role in ("user", "assistant")]
    assert talk == [True] * 4 + [False] * 8
    shown = "\n".join(render(messages).lines)
    assert "## Summary of 4 messages (gX brings them back)" in shown and summary in shown
    # gX on the summary: the messages are sent again, the summary is not.
    (made,) = [m for m in messages if m.role == "summary"]
    toggled = toggle_excluded(chat.store, chat.chat_id, made.id)
    assert not isinstance(toggled, Problem) and toggled.excluded
    assert tokens() == before and request() == whole
    assert toggle_excluded(chat.store, chat.chat_id, made.id).excluded is False  # type: ignore[union-attr]
    assert tokens() == after
    nothing = compact_chat(chat.store, chat.chat_id, 4, "test/small", client, tokens)
    assert isinstance(nothing, Problem) and nothing.message.startswith("nothing to compact")


def test_the_prompt_log_keeps_each_request_and_answer_and_never_the_key(
    chat: Chat, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BB7_TEST_KEY", SECRET)
    log = chat.root.parent / "log" / "bb7-prompts.log"
    chat.server.push(stream(text_chunk(f"Hi. The key was {SECRET}."), finish()))
    outcome, _ = chat.send("Hello?", api_key="BB7_TEST_KEY", prompt_log=str(log))
    assert isinstance(outcome, ev.Done)
    kept = log.read_text()
    sent = chat.server.chat_requests()[-1]["json"]
    # The request as it went, indented, and the answer (the key in it redacted).
    assert kept.startswith("=== ") and " · test/tools-model\n--- request\n{\n" in kept
    assert f'"model": "{sent["model"]}"' in kept and "Hello?" in kept
    assert "--- answer\nHi. The key was " in kept and "--- ended: stop" in kept
    assert SECRET not in kept and log.stat().st_mode & 0o777 == 0o600
    # Off (the default): nothing is kept.
    chat.server.push(stream(text_chunk("Again."), finish()))
    chat.send("Once more?")
    assert log.read_text() == kept
