"""Anchored edits: three matching passes against the original, uniqueness, no overlaps."""

from __future__ import annotations

from bb7.edits import Applied
from bb7.formats.anchored import ChangeError, apply_anchored
from bb7.formats.schemas import AnchoredChange

FILE = (
    "import os\n"
    "\n"
    "def load(path):\n"
    "    with open(path) as f:\n"
    "        data = f.read()\n"
    "    return data\n"
    "\n"
    "def save(path, data):\n"
    "    with open(path, 'w') as f:\n"
    "        f.write(data)\n"
)


def _change(start: list[str], content: list[str], end: list[str] | None = None) -> AnchoredChange:
    return AnchoredChange(start=start, end=end, content=content)


def _applied(content: str, *changes: AnchoredChange) -> str:
    outcome = apply_anchored(content, changes)
    assert isinstance(outcome, Applied), outcome
    return outcome.content


def _errors(content: str, *changes: AnchoredChange) -> list[ChangeError]:
    outcome = apply_anchored(content, changes)
    assert isinstance(outcome, list), outcome
    return outcome


def test_start_and_end_delimit_the_region() -> None:
    out = _applied(
        FILE,
        _change(
            ["def load(path):"],
            ["def load(path):", "    return open(path).read()"],
            ["    return data"],
        ),
    )
    assert out == FILE.replace(
        "def load(path):\n    with open(path) as f:\n        data = f.read()\n    return data\n",
        "def load(path):\n    return open(path).read()\n",
    )


def test_without_end_the_region_is_the_start_lines() -> None:
    out = _applied(FILE, _change(["import os"], ["import os", "import sys"]))
    assert out.startswith("import os\nimport sys\n\ndef load")


def test_empty_content_deletes_the_region() -> None:
    out = _applied(FILE, _change(["def save(path, data):"], [], ["        f.write(data)"]))
    assert out == FILE[: FILE.index("def save")]


def test_trailing_whitespace_pass() -> None:
    out = _applied(FILE, _change(["    return data   "], ["    return data.strip()"]))
    assert "    return data.strip()\n" in out


def test_indentation_pass_reindents_content() -> None:
    out = _applied(
        FILE,
        _change(
            ["with open(path) as f:", "    data = f.read()"],
            ["with open(path, 'rb') as f:", "    data = f.read()"],
        ),
    )
    assert "    with open(path, 'rb') as f:\n        data = f.read()\n" in out


def test_a_blank_start_anchor_is_invalid() -> None:
    (error,) = _errors(FILE, _change([""], ["x"]))
    assert (error.change, error.kind) == (1, "invalid")


def test_a_start_anchor_matching_twice_is_ambiguous() -> None:
    text = "a = 1\nb = 2\na = 1\n"
    (error,) = _errors(text, _change(["a = 1"], ["a = 3"]))
    assert (error.change, error.kind) == (1, "ambiguous")
    assert "lines 1, 3" in error.message
    assert error.best is not None and error.best.start_line == 1


def test_the_end_anchor_is_searched_after_the_start_only() -> None:
    text = "end\nstart\nmiddle\nend\n"
    out = _applied(text, _change(["start"], ["start", "new"], ["end"]))
    assert out == "end\nstart\nnew\n"


def test_an_end_anchor_matching_twice_after_start_is_ambiguous() -> None:
    text = "start\n}\nx\n}\n"
    (error,) = _errors(text, _change(["start"], ["start"], ["}"]))
    assert error.kind == "ambiguous" and "end anchor" in error.message


def test_overlapping_regions_are_refused() -> None:
    errors = _errors(
        FILE,
        _change(["def load(path):"], ["def load(p):"], ["    return data"]),
        _change(["        data = f.read()"], ["        data = f.read(10)"]),
    )
    assert [e.kind for e in errors] == ["overlap"]
    assert "lines 3-6" in errors[0].message and "lines 5-5" in errors[0].message


def test_touching_regions_are_fine() -> None:
    assert _applied("a\nb\n", _change(["a"], ["A"]), _change(["b"], ["B"])) == "A\nB\n"


def test_anchors_are_matched_against_the_original_file() -> None:
    # The second change anchors on a line the first change rewrites: still found.
    out = _applied("a\nb\nc\n", _change(["a"], ["a2"]), _change(["c"], ["c2"]))
    assert out == "a2\nb\nc2\n"


def test_an_unknown_anchor_names_the_closest_lines() -> None:
    (error,) = _errors(FILE, _change(["def save(path, dat):"], ["x"]))
    assert error.kind == "not_found" and error.best is not None
    assert error.best.start_line == 8


def test_a_change_that_changes_nothing_is_invalid() -> None:
    (error,) = _errors(FILE, _change(["import os"], ["import os"]))
    assert error.kind == "invalid" and "changes nothing" in error.message


def test_crlf_and_bom_are_kept() -> None:
    text = "\ufeffone\r\ntwo\r\nthree\r\n"
    out = _applied(text, _change(["two"], ["2", "2.5"]))
    assert out == "\ufeffone\r\n2\r\n2.5\r\nthree\r\n"
