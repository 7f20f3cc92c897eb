"""How well each model's edits land, from a project's chats: what `bb7 stats` prints and the
model picker shows beside each model.

An answer with edits is one the model meant to change files with: its changes were stored (an
"assistant wrote" event) or could not be applied (the failure note `bb7.chat.failures` stores
after it). It counts once, for the model that wrote it, as applied at the first try, applied
after a repair (a later answer of the chat wrote files before another answer without edits),
or never; every failed attempt adds its error kinds (not_found, ambiguous, invalid...). Answers
whose edits were read from their text although tools were offered are counted too. Pure over
the stored messages: nothing is sent and nothing written. Not for costs (`bb7.usage`).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from bb7.chat.failures import FAILED_HEAD, KIND_TEXT
from bb7.formats.fallback import NOTE as FROM_TEXT_NOTE
from bb7.state.records import EventPart, Message


class ModelStats(msgspec.Struct, kw_only=True):
    """One model's answers with edits and what became of them."""

    model: str
    answers: int = 0
    first_try: int = 0
    repaired: int = 0
    never: int = 0
    from_text: int = 0  # edits read from the text of an answer that ignored the tools
    failures: dict[str, int] = {}  # error kind -> how many, over every failed attempt

    def line(self) -> str:
        """`12 answers with edits: 9 at the first try, 2 after a repair, 1 never (not_found 3)`."""
        if not self.answers:
            return "no answers with edits yet"
        head = (
            f"{self.answers} answer{'s' if self.answers != 1 else ''} with edits: "
            f"{self.first_try} at the first try, {self.repaired} after a repair, "
            f"{self.never} never"
        )
        if self.from_text:
            head += f"; {self.from_text} read from text"
        kinds = sorted(self.failures.items(), key=lambda item: (-item[1], item[0]))
        if kinds:
            head += " (" + ", ".join(f"{kind} {count}" for kind, count in kinds) + ")"
        return head

    def short(self) -> str:
        """For the model picker: `edits 9/12 at the first try, 2 repaired, 1 never`."""
        return (
            f"edits {self.first_try}/{self.answers} at the first try, {self.repaired} repaired, "
            f"{self.never} never"
        )


def model_stats(chats: Iterable[list[Message]]) -> list[ModelStats]:
    """Per model, from each chat's messages in order; most answers with edits first."""
    found: dict[str, ModelStats] = {}
    for messages in chats:
        _chat(messages, found)
    return sorted(found.values(), key=lambda s: (-s.answers, s.model))


def _chat(messages: list[Message], found: dict[str, ModelStats]) -> None:
    # The failed answer still waiting for a repair, by the model that wrote it.
    waiting: ModelStats | None = None
    answer: Message | None = None  # the last assistant answer, until its outcome is known
    for message in messages:
        if message.role == "assistant":
            if answer is not None and waiting is not None and not _wrote(answer):
                # An answer without edits after a failure: that repair never came.
                waiting.never += 1
                waiting = None
            answer = message
            if _wrote(message):
                stats = waiting or _stats(found, message.model)
                if waiting is not None:
                    waiting.repaired += 1
                    waiting = None
                else:
                    stats.answers += 1
                    stats.first_try += 1
        elif message.role == "system" and answer is not None:
            text = message.text()
            if text.startswith(FROM_TEXT_NOTE):
                _stats(found, answer.model).from_text += 1
            elif text.startswith(FAILED_HEAD):
                stats = _stats(found, answer.model)
                for kind in failure_kinds(text):
                    stats.failures[kind] = stats.failures.get(kind, 0) + 1
                if waiting is None:
                    stats.answers += 1
                    waiting = stats
                answer = None  # its outcome is known: failed
    if waiting is not None:
        waiting.never += 1


def _wrote(message: Message) -> bool:
    return any(
        isinstance(part, EventPart) and part.event.action == "assistant_wrote"
        for part in message.parts
    )


def _stats(found: dict[str, ModelStats], model: str) -> ModelStats:
    name = model or "(unknown model)"
    if name not in found:
        found[name] = ModelStats(model=name, failures={})
    return found[name]


_KINDS_BY_TEXT = sorted(((text, kind) for kind, text in KIND_TEXT.items()), reverse=True)


def failure_kinds(note: str) -> list[str]:
    """The error kind of each `• where: what` line of a stored failure note."""
    kinds = []
    for line in note.split("\n"):
        if not line.startswith("• ") or ": " not in line:
            continue
        what = line.split(": ", 1)[1]
        kind = next((k for text, k in _KINDS_BY_TEXT if what.startswith(text)), None)
        kinds.append(kind or what.split(":", 1)[0].strip().replace(" ", "_"))
    return kinds
