"""Sends as a local model makes them: in a tool mode, an answer that called no tool but wrote
SEARCH/REPLACE blocks (or a fenced whole file under its path) in its text leaves pending
outputs, with a note in the conversation; prose alone changes nothing and fails nothing; a
server that dies mid-answer ends the send with one line. A real project and store, the
scripted server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bb7.chat import events as ev
from bb7.chat.send import start_send
from bb7.files.fileid import file_id
from bb7.formats.fallback import NOTE
from bb7.prompt.config import SendConfig
from bb7.provider.client import ProviderConfig, RetryPolicy, Timeouts
from bb7.provider.handle import Handle
from bb7.refusal import Problem
from bb7.state import context
from bb7.state.chats import new_chat
from bb7.state.context import Target
from bb7.state.store import Store, init_project
from bb7.stats import model_stats
from llm_server import LLMServer, finish, stream, text_chunk, tool_call_chunk

APP = "def main():\n    return 1\n\n\ndef helper():\n    return 'x'\n"
BLOCKS = (
    "I changed main.\n\napp.py\n```python\n<<<<<<< SEARCH\n    return 1\n=======\n"
    "    return 2\n>>>>>>> REPLACE\n```\n"
)


class Project:
    def __init__(self, root: Path, store: Store, server: LLMServer) -> None:
        self.root, self.store, self.server = root, store, server
        self.chat_id = new_chat(store).id
        (root / "app.py").write_text(APP)
        added = context.add(store, self.chat_id, Target("app.py"))
        assert not isinstance(added, Problem), added

    def send(self, *answer: str, cut: bool = False, call: str | None = None) -> ev.Outcome:
        """Send, the server answering `answer` in pieces (`cut`: then it drops the connection
        without a finish; `call`: then an edit_file call with these arguments)."""
        steps = [text_chunk(piece) for piece in answer]
        if call is not None:
            steps.append(tool_call_chunk(0, id="call_0", name="edit_file", arguments=call))
        ending = {"drop": True} if cut else finish()
        self.server.push(stream(*steps, ending, done=not cut))
        config = SendConfig(
            model="test/tools-model",  # the models list says it takes tools
            provider=ProviderConfig(
                base_url=self.server.base_url,
                timeouts=Timeouts(connect=5, read=5),
                retry=RetryPolicy(max_attempts=1),
            ),
            models_cache=str(self.root.parent / "cache"),
            auto_repair=False,
        )
        handle = start_send(self.store, self.chat_id, "Return 2.", config, lambda _event: None)
        assert isinstance(handle, Handle), handle
        outcome = handle.wait(15)
        assert outcome is not None
        return outcome

    def notes(self) -> list[str]:
        return [m.text() for m in self.store.messages(self.chat_id) if m.role == "system"]

    def output(self, path: str) -> str | None:
        found = self.store.output(self.chat_id, path)
        return None if found is None else self.store.blob(found.blob)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    root = tmp_path / "proj"
    root.mkdir()
    store = init_project(root)
    with LLMServer() as server:
        yield Project(root, store, server)
    store.close()


def test_search_replace_blocks_in_a_tool_mode_answer_become_pending_outputs(
    project: Project,
) -> None:
    outcome = project.send("I changed main.\n\napp.py\n", BLOCKS.split("app.py\n", 1)[1])
    assert isinstance(outcome, ev.Done) and outcome.ok
    assert [f.path for f in outcome.files] == ["app.py"]
    assert project.output("app.py") == APP.replace("return 1", "return 2")
    assert [n for n in project.notes() if n.startswith(NOTE)] == [
        "edits read from the answer's text: the model called no tool"
    ]
    (stats,) = model_stats([project.store.messages(project.chat_id)])
    assert (stats.answers, stats.first_try, stats.from_text) == (1, 1, 1)


def test_a_fenced_whole_file_under_its_path_becomes_a_pending_output(project: Project) -> None:
    new = APP.replace("return 'x'", "return 'y'")
    outcome = project.send(f"Here it is:\n\n`app.py`\n```python\n{new}```\n")
    assert isinstance(outcome, ev.Done) and outcome.ok
    assert project.output("app.py") == new


def test_prose_only_in_a_tool_mode_changes_nothing_and_fails_nothing(project: Project) -> None:
    outcome = project.send("main returns 1 because ", "that is its contract.")
    assert isinstance(outcome, ev.Done) and outcome.ok and outcome.files == []
    assert outcome.errors == [] and not outcome.retry_saved
    assert project.output("app.py") is None and project.notes() == []


def test_a_broken_block_in_the_text_fails_the_answer_whole(project: Project) -> None:
    broken = BLOCKS.replace(">>>>>>> REPLACE\n", "")
    outcome = project.send(broken)
    assert isinstance(outcome, ev.Done) and not outcome.ok and outcome.retry_saved
    assert project.output("app.py") is None
    assert any(n.startswith(NOTE) for n in project.notes())
    assert file_id("app.py", APP)  # the file itself is untouched on disk
    assert (project.root / "app.py").read_text() == APP


def test_a_server_that_dies_mid_answer_ends_the_send_with_one_line(project: Project) -> None:
    outcome = project.send("I will change ma", cut=True)
    assert isinstance(outcome, ev.Failed) and outcome.kind == "connection"
    assert "\n" not in outcome.message
    assert outcome.message.startswith(
        "The provider closed the connection before the response was complete (did it crash "
        "or run out of memory?). Check the server's log and that the model fits in memory."
    )
    assert project.notes() == [f"The request failed: {outcome.message}"]
    assert project.output("app.py") is None


def test_tool_json_that_cannot_be_mended_is_reported_and_the_retry_offers_the_text_format(
    project: Project,
) -> None:
    outcome = project.send("Changing main.", call='{"edits": [{"path": "app.py", "old_string": ')
    assert isinstance(outcome, ev.Done) and not outcome.ok and outcome.retry_saved
    (note,) = [n for n in project.notes() if n.startswith("The file changes")]
    assert "The arguments are not a valid JSON object" in note
    chat = project.store.chat(project.chat_id)
    assert chat is not None
    assert "or write the change in your answer's text as SEARCH/REPLACE blocks" in (
        chat.retry_context
    )
