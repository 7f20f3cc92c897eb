"""Issue 25 item 3: the history in the prompt view one message at a time, each part what the
request carries; a message excluded from future requests is absent from the next request,
stays in the chat (marked), and a fork or an edit keeps the exclusion."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bb7.chatview.conversation import render
from bb7.prompt.config import SendConfig
from bb7.prompt.instructions import Instructions
from bb7.prompt.parts import NextRequest, next_request, toggle_exclusion
from bb7.prompt.turn import build_turn
from bb7.provider.models import ModelInfo, Pricing
from bb7.refusal import Problem
from bb7.state import context, history
from bb7.state.chats import append_message, append_user_message, new_chat
from bb7.state.context import Target
from bb7.state.exclusions import toggle_excluded
from bb7.state.records import Event, EventPart, Message, PendingOutput, TextPart
from bb7.state.store import Store, init_project, open_project
from bb7.text.tokens import estimate_tokens

MODEL = ModelInfo(
    id="test/model", context_length=100_000, pricing=Pricing(prompt=2e-6, completion=8e-6)
)
CONFIG = SendConfig(model=MODEL.id)
# Each message of the history as the request carries it.
BLOCK = re.compile(r"@msg n=\d+ role=\w+\n.*?@end msg\n", re.S)


class Chat:
    def __init__(self, store: Store, chat_id: str) -> None:
        self.store, self.id = store, chat_id

    def exchange(self, question: str, answer: str) -> tuple[Message, Message]:
        asked = append_user_message(self.store, self.id, question)
        said = Message(role="assistant", parts=[TextPart(answer)], model=MODEL.id)
        return asked, append_message(self.store, self.id, said)

    def request(self, text: str = "next") -> str:
        turn = build_turn(self.store, self.id, text, CONFIG, model=MODEL)
        return "".join(str(m.content) for m in turn.request.messages)

    def view(self, text: str = "next") -> NextRequest:
        return next_request(self.store, self.id, CONFIG, MODEL, Instructions(), text)

    def toggle(self, message: Message) -> str:
        said = toggle_exclusion(self.store, self.id, message.id, CONFIG, MODEL, Instructions())
        assert isinstance(said, str), said
        return said


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[Chat]:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("print('a')\n")
    store = init_project(root)
    chat_id = new_chat(store).id
    context.add(store, chat_id, Target("a.py"))
    chat = Chat(store, chat_id)
    yield chat
    chat.store.close()


def test_the_history_is_one_part_per_message_each_what_the_request_carries(chat: Chat) -> None:
    chat.exchange("What does a print?", "It prints a.")
    chat.exchange("And twice?", "Call it twice: " + "a" * 400)
    found = chat.view("Thanks")
    history = [p for p in found.parts if p.kind == "history"]
    roles = [p.line.split(":")[0].split("  ")[0] for p in history]
    assert roles == ["file events", "you", "answer", "you", "answer"]
    assert history[0].message == 0  # the user's file actions: not a message to exclude
    assert "you: What does a print?" in history[1].line
    history = history[1:]
    blocks = BLOCK.findall(chat.request("Thanks"))
    assert [p.tokens for p in history] == [estimate_tokens(b) for b in blocks]
    assert sum(p.tokens for p in found.parts) == found.tokens
    assert found.tokens == build_turn(chat.store, chat.id, "Thanks", CONFIG).prompt.total_tokens
    costs = [p.cost for p in history]
    assert costs == [pytest.approx(p.tokens * 2e-6) for p in history]


def test_an_excluded_message_and_its_answer_are_absent_from_the_next_request(
    chat: Chat,
) -> None:
    first, answer = chat.exchange("What does a print?", "It prints a.")
    chat.exchange("And twice?", "Call it twice.")
    before = chat.request()
    said = chat.toggle(first)
    after = chat.request()
    for text in ("What does a print?", "It prints a."):
        assert text in before and text not in after
    assert "And twice?" in after and "Call it twice." in after and "print('a')" in after
    saved = sum(estimate_tokens(b) for b in BLOCK.findall(before)[:2])
    assert said == f"excluded from future requests, with its answer: {saved:,} tokens less"
    # Stored: a reopened database still leaves them out, and the conversation marks them.
    chat.store.close()
    reopened = open_project(chat.store.root or Path())
    assert isinstance(reopened, Store)
    chat.store = reopened
    assert [m.excluded for m in reopened.messages(chat.id)][-4:] == [True, True, False, False]
    assert chat.request() == after
    shown = render(reopened.messages(chat.id))
    assert "## You · excluded" in shown.lines and len(shown.excluded) == 2
    # Again: both are back, the request as it was.
    assert chat.toggle(first) == (
        f"included again in future requests, with its answer: {saved:,} tokens more"
    )
    assert chat.request() == before and not any(m.excluded for m in reopened.messages(chat.id))
    # An answer alone: its question stays.
    chat.toggle(answer)
    alone = chat.request()
    assert "What does a print?" in alone and "It prints a." not in alone


def test_the_prompt_view_lists_an_excluded_message_in_its_place_outside_the_sum(
    chat: Chat,
) -> None:
    chat.exchange("What does a print?", "It prints a.")
    second, _ = chat.exchange("And twice?", "Call it twice.")
    chat.exchange("And thrice?", "Three calls.")
    sent = [p.tokens for p in chat.view().parts if p.kind == "history"][1:]
    chat.toggle(second)
    found = chat.view()
    history = [p for p in found.parts if p.kind == "history"][1:]
    assert [p.excluded for p in history] == [False, False, True, True, False, False]
    assert history[2].line.startswith("(excluded) you: And twice?")
    assert [p.tokens for p in history] == sent
    assert found.tokens == sum(p.tokens for p in found.parts if not p.excluded)
    assert found.tokens == build_turn(chat.store, chat.id, "next", CONFIG).prompt.total_tokens
    assert found.title.endswith(f" · {sent[2] + sent[3]} tok excluded")


def test_what_an_answer_wrote_is_counted_and_excluded_with_it(chat: Chat) -> None:
    chat.exchange("Add b.py", "Here it is.")
    blob = chat.store.put_blob("print('b')\n")
    output = PendingOutput(path="b.py", blob=blob, file_id="b1", base_file_id="", added=True)
    with chat.store.transaction():
        last = chat.store.messages(chat.id)[-1]
        chat.store.delete_messages_from(chat.id, last.seq)
        wrote = Message(
            role="assistant",
            parts=[TextPart("Here it is."), EventPart(Event.wrote(output))],
            model=MODEL.id,
        )
        answer = chat.store.append_message(chat.id, wrote)
    found = chat.view()
    (part,) = [p for p in found.parts if p.message == answer.id]
    assert part.tokens > estimate_tokens("Here it is.") + estimate_tokens("print('b')")
    assert "action=assistant_wrote" in chat.request()
    chat.toggle(answer)
    assert "action=assistant_wrote" not in chat.request() and "Here it is." not in chat.request()


def test_a_file_event_is_not_excluded_by_hand(chat: Chat) -> None:
    (event,) = [m for m in chat.store.messages(chat.id) if m.role == "event"]
    refused = toggle_excluded(chat.store, chat.id, event.id)
    assert isinstance(refused, Problem) and "file event" in refused.message
    missing = toggle_excluded(chat.store, chat.id, 999_999)
    assert isinstance(missing, Problem) and missing.kind == "no_message"


def test_a_fork_and_an_edit_keep_the_exclusions_of_the_messages_they_keep(chat: Chat) -> None:
    first, _ = chat.exchange("What does a print?", "It prints a.")
    second, _ = chat.exchange("And twice?", "Call it twice.")
    chat.toggle(first)
    forked = history.fork_chat(chat.store, chat.id, second.id)
    assert isinstance(forked, history.Restored)
    kept = [(m.text(), m.excluded) for m in chat.store.messages(forked.chat.id) if m.text()]
    assert kept == [("What does a print?", True), ("It prints a.", True)]
    edited = history.edit_message(chat.store, chat.id, second.id)
    assert isinstance(edited, history.Restored)
    assert [m.excluded for m in chat.store.messages(chat.id) if m.text()] == [True, True]
    assert "What does a print?" not in chat.request()
