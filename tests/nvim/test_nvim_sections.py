"""A section (`PATH:START-END`) of a file holding form feeds and other characters that
`str.splitlines` breaks at is the lines Neovim shows for that range."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chat_state import Seeded

from bb7.state import context
from bb7.state.records import ContextEntry

# Each of these is a line break to `str.splitlines`, none is one to Neovim.
TEXT = "one\x0cpage two\nthree\x0bfour\nfive\x1csix\u2028seven\x85eight\nnine\n"


def test_a_section_holds_the_lines_neovim_numbers(launch: Any, project: Path) -> None:
    (project / "doc.txt").write_text(TEXT, encoding="utf-8")
    nvim = launch()
    nvim.command("edit doc.txt")
    shown = nvim.current.buffer[:]
    assert len(shown) == 4 and len(TEXT.splitlines()) > 4  # the case the section must survive
    seeded = Seeded(project)
    chat = seeded.chat("Sections")
    for start, end in ((1, 1), (2, 3), (4, 4)):
        entry = context.add(seeded.store, chat, context.Target("doc.txt", start, end))
        assert isinstance(entry, ContextEntry), entry
        expected = "".join(line + "\n" for line in shown[start - 1 : end])
        assert seeded.store.blob(entry.blob) == expected, (start, end)
