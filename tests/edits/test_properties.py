"""Properties over generated files: exact edits are plain replacement; no edit touches bytes
outside the lines it reports."""

from __future__ import annotations

from itertools import accumulate

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bb7.edits import Applied, LineIndex, replace

# File text uses these characters; `new` uses others, so the line-completion rules of the exact
# tier (which look for the file's own text restated in `new`) cannot fire by accident.
FILE_CHARS = "ab(){}; \t"
NEW_CHARS = "XYZ=\n "

file_lines = st.lists(st.text(FILE_CHARS, max_size=12).map(str.rstrip), min_size=1, max_size=30)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(lines=file_lines, data=st.data())
def test_an_exact_unique_edit_equals_str_replace(lines: list[str], data: st.DataObject) -> None:
    content = "\n".join(lines) + data.draw(st.sampled_from(["", "\n"]))
    assume(content)
    start = data.draw(st.integers(0, len(content) - 1))
    end = data.draw(st.integers(start + 1, len(content)))
    old = content[start:end]
    assume(content.count(old) == 1 and content.find(old, content.find(old) + 1) < 0)
    new = data.draw(st.text(NEW_CHARS, min_size=1, max_size=20))
    assume(new != old)
    outcome = replace(content, old, new)
    line_end = content.find("\n", end) % (len(content) + 1)
    if "\n" in old and old.rsplit("\n", 1)[1].strip() and content[end:line_end].strip():
        # `old` spans lines and ends inside one: a cut line, which `new` (other characters)
        # neither keeps nor restates, so it is refused rather than spliced mid-line.
        assert not isinstance(outcome, Applied)
        return
    line_start = content.rfind("\n", 0, start) + 1
    stop = start + len(old.rstrip("\n"))
    if (
        old[:1] in (" ", "\t")
        and "\n" not in old.rstrip("\n")
        and "\n" in new.rstrip("\n")
        and start > line_start
        and not content[line_start:start].strip(" \t")
        and not content[stop : content.find("\n", start) % (len(content) + 1)].strip()
    ):
        # One whole line sent with part of its indentation, and `new` adds lines: spliced in,
        # they would land too shallow, so the line is replaced whole, `new` shifted by what
        # `old` left out (test_unseen_classes.py, part of its indentation). Nothing else changes.
        assert isinstance(outcome, Applied), outcome
        assert outcome.strategy == "indentation"
        assert outcome.content.startswith(content[:line_start])
        assert outcome.content.endswith(content[end:])
        return
    head = content[line_start:start]
    first = new.split("\n", 1)[0]
    if (
        "\n" in old.rstrip("\n")
        and head
        and not head.strip(" \t")
        and old[:1] not in (" ", "\t")
        and first.startswith(head)
        and first[len(head) :][:1] not in ("", " ", "\t")
    ):
        # `old` starts after its line's indentation and `new` carries that indentation: the
        # line is replaced from its start, not indented twice (test_unseen_classes.py).
        assert isinstance(outcome, Applied), outcome
        assert outcome.content == content[:line_start] + new + content[end:]
        return
    assert isinstance(outcome, Applied)
    assert outcome.strategy == "exact"
    assert outcome.content == content.replace(old, new)


def _damage(line: str, how: str) -> str:
    if how == "dedent":
        return line.lstrip()
    if how == "trailing":
        return line + "  "
    if how == "collapse":
        return " ".join(line.split())
    return line


code_line = st.builds(
    lambda indent, body: " " * indent + body,
    st.sampled_from([0, 2, 4, 8]),
    st.sampled_from(
        ["x = 1", "y = x + 2", "return y", "if x:", "call(a,  b)", "}", "{", "", "z = [1, 2]"]
    ),
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(code_line, min_size=3, max_size=40),
    eol=st.sampled_from(["\n", "\r\n"]),
    bom=st.booleans(),
    data=st.data(),
)
def test_no_edit_changes_bytes_outside_the_reported_lines(
    lines: list[str], eol: str, bom: bool, data: st.DataObject
) -> None:
    content = ("\ufeff" if bom else "") + eol.join(lines) + eol
    first = data.draw(st.integers(0, len(lines) - 1))
    last = data.draw(st.integers(first, min(len(lines) - 1, first + 5)))
    how = data.draw(st.sampled_from(["none", "dedent", "trailing", "collapse"]))
    old = "\n".join(_damage(line, how) for line in lines[first : last + 1])
    new = data.draw(st.text(NEW_CHARS, max_size=30))
    assume(old != new and old.strip())
    replace_all = data.draw(st.booleans())
    outcome = replace(content, old, new, replace_all=replace_all)
    if not isinstance(outcome, Applied):
        return
    body_start = 1 if bom else 0
    raw = content[body_start:].split(eol)
    before = ("\ufeff" if bom else "") + "".join(
        line + eol for line in raw[: outcome.start_line - 1]
    )
    after = "".join(line + eol for line in raw[outcome.end_line : -1])
    assert outcome.content.startswith(before)
    assert outcome.content.endswith(after)
    assert len(outcome.content) >= len(before) + len(after)


@settings(max_examples=300)
@given(
    text=st.text("ab\r\n", max_size=60),
    reads=st.lists(st.integers(0, 40), max_size=12),
    words=st.lists(st.sampled_from(["a", "ab", "b\r", "ba"]), max_size=3),
)
def test_lines_read_on_demand_equal_a_full_split(
    text: str, reads: list[int], words: list[str]
) -> None:
    """However lines are reached (words found first, lines read in any order), each reads as
    the whole-content split gives it, and each starts where that split says."""
    full = LineIndex(text).all_texts()
    offsets = list(accumulate((len(line) + 1 for line in text.split("\n")), initial=0))
    index = LineIndex(text)
    assert len(index) == len(full)
    for word in words:
        assert all(full[k].find(word) >= 0 or word.endswith("\r") for k in index.word_lines(word))
    for k in reads:
        if k < len(full):
            assert index.texts[k] == full[k]
            assert index.start(k) == offsets[k]
    assert list(index.texts[2:5]) == full[2:5]
