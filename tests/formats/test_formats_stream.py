"""Streaming: the same items whatever the chunking, each emitted as soon as its block closes."""

from __future__ import annotations

from bb7.formats.blocks import BlockError
from bb7.formats.edit_blocks import EditBlock
from bb7.formats.search_replace import SearchReplaceBlock
from bb7.formats.stream import TextParser, parse_text

SAMPLE = (
    "I changed two files.\r\n"
    "\n"
    "src/app.py\n"
    "```python\n"
    "<<<<<<< SEARCH\n"
    ":start_line:3\n"
    "-------\n"
    "\\=======\n"
    "def run():\n"
    "=======\n"
    "def run(fast=False):\n"
    ">>>>>>> REPLACE\n"
    "```\n"
    "\n"
    "docs/«odd» name.md\n"
    "««« EDIT\n"
    "# Title\n"
    "═══════ REPL\n"
    "# Title\n"
    "More «text».\n"
    "»»» EDIT END\n"
    ">>>>>>> REPLACE\n"
    "src/app.py\n"
    "<<<<<<< SEARCH\n"
    "tail"
)


def _chunked(text: str, cuts: list[int]) -> list[object]:
    parser = TextParser()
    items: list[object] = []
    previous = 0
    for cut in [*cuts, len(text)]:
        items += parser.feed(text[previous:cut])
        previous = cut
    return items + parser.close()


def test_the_sample_holds_every_kind_of_item() -> None:
    items = parse_text(SAMPLE)
    assert [type(i) for i in items] == [SearchReplaceBlock, EditBlock, BlockError, BlockError]
    sr, edit, stray, unclosed = items
    assert isinstance(sr, SearchReplaceBlock) and sr.search == "=======\ndef run():\n"
    assert isinstance(edit, EditBlock) and edit.path == "docs/«odd» name.md"
    assert isinstance(stray, BlockError) and stray.line == 22 and stray.index is None
    assert isinstance(unclosed, BlockError) and unclosed.block_line == 24


def test_every_split_into_two_chunks_parses_like_one_shot() -> None:
    expected = parse_text(SAMPLE)
    for cut in range(len(SAMPLE) + 1):
        assert _chunked(SAMPLE, [cut]) == expected, f"split at {cut}"


def test_one_character_at_a_time_parses_like_one_shot() -> None:
    assert _chunked(SAMPLE, list(range(1, len(SAMPLE)))) == parse_text(SAMPLE)


def test_a_block_is_emitted_by_the_chunk_that_closes_it() -> None:
    parser = TextParser()
    end = SAMPLE.index(">>>>>>> REPLACE\n") + len(">>>>>>> REPLACE")
    assert parser.feed(SAMPLE[:end]) == []  # the end marker's line is not complete yet
    (block,) = parser.feed("\n")
    assert isinstance(block, SearchReplaceBlock) and block.end_line == 12
    rest = parser.feed(SAMPLE[end + 1 :])
    assert [type(i) for i in rest] == [EditBlock, BlockError]
    (unclosed,) = parser.close()
    assert isinstance(unclosed, BlockError) and unclosed.line == 25
