"""Whether an assembled prompt fits the model: its context window (if not, by how much and what
takes the room) and its inputs (images to a model that reads only text). A prompt that cannot
fit is refused before it is sent (a provider bills, or at best rejects, a request of a megabyte
that was never going to fit, or an image it cannot read).

Sizes are the prompt's own estimates (`bb7.text.tokens`, within about 15%): the refusal says
"about". What this is not for: the softer warning near the limit (`prompt.check_context`).
"""

from __future__ import annotations

from bb7.prompt.assemble import Prompt, PromptPart
from bb7.provider.wire import ImagePart
from bb7.text.tokens import format_tokens

# How many of the largest parts the refusal names.
LARGEST = 3


def part_label(part: PromptPart) -> str:
    """What a user calls a part: the file's path, else `history`, `system prompt`, ..."""
    return part.path or part.name.replace("_", " ")


def largest_parts(prompt: Prompt, count: int = LARGEST) -> list[tuple[str, int]]:
    """The `count` largest parts as (label, tokens), a file's parts counted together."""
    sizes: dict[str, int] = {}
    for part in prompt.parts:
        label = part_label(part)
        sizes[label] = sizes.get(label, 0) + part.tokens
    return sorted(sizes.items(), key=lambda item: -item[1])[:count]


def over_context(prompt: Prompt, context_length: int | None) -> str | None:
    """Why `prompt` cannot be sent to a model of `context_length` tokens (one line), or None
    when it fits or the length is unknown."""
    if not context_length or prompt.total_tokens <= context_length:
        return None
    over = prompt.total_tokens - context_length
    largest = ", ".join(f"{label} {format_tokens(n)}" for label, n in largest_parts(prompt))
    return (
        # What to do first, in a sentence an 80-column editor shows whole; the figures after.
        "Too large to send: drop files or messages, or start a new chat. The "
        f"prompt is about {format_tokens(prompt.total_tokens)} tokens, {format_tokens(over)} over "
        f"the model's context of {format_tokens(context_length)} (largest: {largest})."
    )


def unreadable_images(prompt: Prompt, takes_images: bool | None) -> str | None:
    """Why `prompt` cannot go to a model that reads no images (one line, what to do first),
    or None when it has none or the model takes them (or nobody says it does not)."""
    if takes_images is not False or not any(isinstance(p, ImagePart) for p in prompt.user):
        return None
    shown = [block.path for block in prompt.files if block.image]
    if not shown:
        return (
            "The model reads no images and an earlier message has one: exclude it, or pick "
            "a model that reads images."
        )
    names = ", ".join(shown[:2]) + (f" and {len(shown) - 2} more" if len(shown) > 2 else "")
    return f"The model reads no images: remove {names}, or pick a model that reads images."
