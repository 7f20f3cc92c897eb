"""What `K` on a message shows (`bb7.chatview.info`), from a chat's stored records."""

from __future__ import annotations

import re

from bb7.chatview.info import message_info
from bb7.refusal import Problem
from bb7.state.records import Message, TextPart, Usage


def test_k_says_when_which_model_and_effort_and_what_the_answer_took() -> None:
    usage = Usage(
        prompt_tokens=1200,
        completion_tokens=40,
        cost=0.0042,
        duration=3.1,
        first_token=0.8,
        reasoning_effort="high",
    )
    messages = [
        Message(role="user", parts=[TextPart("Why?")], id=1, created=1_700_000_000.0),
        Message(role="assistant", parts=[TextPart("Because.")], id=2, model="x/m", usage=usage),
        Message(role="user", parts=[TextPart("And?")], id=3, created=1_700_000_100.0),
    ]
    first = message_info(messages, 1)
    assert isinstance(first, list)
    assert re.fullmatch(r"your message of \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", first[0])
    assert first[1:] == [
        "x/m · effort high",
        "1.2k in · 40 out · $0.0042 · 3.1 s (first token 0.8 s)",
    ]
    answer = message_info(messages, 2)
    assert isinstance(answer, list) and answer[0].startswith("answer of ")
    assert answer[1:] == first[1:]
    assert message_info(messages, 3)[1:] == ["no answer"]  # type: ignore[index]
    gone = message_info(messages, 9)
    assert isinstance(gone, Problem) and gone.kind == "no_message"
