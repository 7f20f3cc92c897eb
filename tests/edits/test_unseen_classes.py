"""One small case per class of wrong apply found on generated edits the engine had never seen
(`../shared/tools/gen_edits.py`): each is the shape of the failure, with a fixture of our own."""

from __future__ import annotations

from bb7.edits import Applied, EditError, replace


def applied(content: str, old: str, new: str, **kw: object) -> Applied:
    outcome = replace(content, old, new, **kw)  # type: ignore[arg-type]
    assert isinstance(outcome, Applied), outcome
    return outcome


def refused(content: str, old: str, new: str, **kw: object) -> EditError:
    outcome = replace(content, old, new, **kw)  # type: ignore[arg-type]
    assert isinstance(outcome, EditError), outcome
    return outcome


# --- over-escaped `new` --------------------------------------------------------------------------


def test_over_escaped_new_is_unescaped_although_its_other_lines_carry_no_escape() -> None:
    file = 'm = re.match(r"(\\w+)\\.", text)\nif not m:\n    return\n'
    old = 'm = re.match(r\\"(\\\\w+)\\\\.\\", text)\nif not m:'
    new = 'm = re.match(r\\"(\\\\w+)\\\\.\\", text_2)\nif not m:'
    assert applied(file, old, new).content == file.replace("text)", "text_2)")


def test_over_escaped_new_changing_a_string_line_is_unescaped() -> None:
    file = "def f():\n    say('one\\ntwo')\n    return 1\n"
    old = "def f():\n    say('one\\\\ntwo')\n    return 1"
    new = "def f():\n    say('uno\\\\ntwo')\n    return 1"
    assert applied(file, old, new).content == file.replace("one", "uno")
