"""A prompt over the model's context window is refused with how far over it is and what is
largest; one that fits (or a window nobody stated) is not."""

from __future__ import annotations

from bb7.prompt.assemble import ContextFile, PromptInput, assemble_prompt
from bb7.prompt.fit import largest_parts, over_context


def prompt_with(*files: tuple[str, int]):
    return assemble_prompt(
        PromptInput(
            user_text="Tidy this up.",
            files=[ContextFile(path, "x = 1\n" * (lines)) for path, lines in files],
        )
    )


def test_a_prompt_over_the_window_is_refused_naming_the_largest_parts() -> None:
    prompt = prompt_with(("big.py", 40_000), ("mid.py", 7_700), ("small.py", 10))
    message = over_context(prompt, 32_000)
    assert message is not None
    # "x = 1\n" is 1.5 tokens: big.py 60k, mid.py 11.6k, and the system prompt and message
    # (about 1.5k: the total is some hundred tokens from rounding to 74k).
    assert message.startswith(
        "Too large to send: drop files or messages, or start a new chat. The "
        "prompt is about 73k "
        "tokens, 41k over the model's context of 32k (largest: big.py 60k, mid.py 12k, "
    )
    assert "\n" not in message
    assert [label for label, _ in largest_parts(prompt)][:2] == ["big.py", "mid.py"]


def test_a_prompt_that_fits_or_a_window_nobody_stated_is_not_refused() -> None:
    prompt = prompt_with(("a.py", 100))
    assert over_context(prompt, 128_000) is None
    assert over_context(prompt, None) is None
