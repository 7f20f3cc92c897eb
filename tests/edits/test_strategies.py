"""Each matching tier finds what it is for, and fixes `new` the way the model's mistake requires."""

from __future__ import annotations

from edit_outcomes import applied


def test_exact_substring_replaces_in_place() -> None:
    result = applied("a = 1\nb = 2\nc = 3\n", "b = 2", "b = 20")
    assert result.content == "a = 1\nb = 20\nc = 3\n"
    assert (result.strategy, result.start_line, result.end_line) == ("exact", 2, 2)
    assert result.similarity == 1.0


def test_whole_lines_match_when_old_ends_with_a_newline_the_file_lacks() -> None:
    result = applied("x = 1\ny = 2", "y = 2\n", "y = 3\n")
    assert result.content == "x = 1\ny = 3"
    assert result.strategy == "line_exact"


def test_trailing_whitespace_differences_are_ignored() -> None:
    file = "def f():  \n    return 1\t\n"
    result = applied(file, "def f():\n    return 1\n", "def f():\n    return 2\n")
    assert result.strategy == "trailing_whitespace"
    assert result.content == "def f():\n    return 2\n"


def test_a_shifted_old_re_indents_new_by_the_same_amount() -> None:
    file = "class A:\n    def f(self):\n        return 1\n"
    result = applied(
        file,
        "def f(self):\n    return 1\n",
        "def f(self):\n    if self:\n        return 1\n    return 0\n",
    )
    assert result.strategy == "indentation"
    assert result.content == (
        "class A:\n    def f(self):\n        if self:\n            return 1\n        return 0\n"
    )


def test_spaces_in_old_become_the_files_tabs_in_new() -> None:
    file = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n"
    old = "func f() {\n    if x {\n        return 1\n    }\n}"
    new = "func f() {\n    if x {\n        log(x)\n        return 1\n    }\n}"
    result = applied(file, old, new)
    assert result.content == "func f() {\n\tif x {\n\t\tlog(x)\n\t\treturn 1\n\t}\n}\n"


def test_inner_whitespace_runs_are_collapsed_for_matching() -> None:
    file = "int  main(int argc,   char **argv)\n{\n"
    result = applied(file, "int main(int argc, char **argv)\n{", "int main(void)\n{")
    assert result.strategy == "inner_whitespace"
    assert result.content == "int main(void)\n{\n"


def test_whitespace_removed_inside_a_line_still_matches() -> None:
    file = "    elif hasattr(func, '__name__'):\n        pass\n"
    old = "    elif hasattr(func,'__name__'):\n        pass"
    result = applied(file, old, "    elif hasattr(func, '__name__'):\n        return")
    assert result.strategy == "no_whitespace"
    assert result.content == "    elif hasattr(func, '__name__'):\n        return\n"


def test_smart_quotes_and_dashes_in_old_match_ascii_in_the_file() -> None:
    file = "msg = 'it's done' - ok\nnext()\n"
    old = "msg = \u2018it\u2019s done\u2019 \u2014 ok\nnext()"
    result = applied(file, old, "msg = 'finished'\nnext()")
    assert result.strategy == "unicode"
    assert result.content == "msg = 'finished'\nnext()\n"


def test_over_escaped_old_and_new_are_unescaped() -> None:
    file = 'print("a\\n")\nx = "q"\n'
    old = 'print(\\"a\\\\n\\")\\nx = \\"q\\"'  # what a double JSON encoding sends
    new = 'print(\\"b\\\\n\\")\\nx = \\"q\\"'
    result = applied(file, old, new)
    assert result.strategy.startswith("escape")
    assert result.content == 'print("b\\n")\nx = "q"\n'


def test_line_number_gutters_are_stripped_from_old_and_new() -> None:
    file = "one\ntwo\nthree\nfour\n"
    result = applied(file, "  2 | two\n  3 | three", "  2 | two\n  3 | THREE")
    assert result.strategy.startswith("gutter")
    assert result.content == "one\ntwo\nTHREE\nfour\n"
    tabbed = applied(file, "     3\tthree\n     4\tfour\n", "     3\tthree\n     4\tFOUR\n")
    assert tabbed.content == "one\ntwo\nthree\nFOUR\n"


def test_a_truncated_first_line_is_expanded_from_the_file() -> None:
    file = "    static params = [\n      'registry',\n      'scope',\n    ]\n"
    old = "    static params\n      'registry',\n      'scope',\n    ]"
    result = applied(file, old, "    static params\n      'registry',\n    ]")
    assert result.strategy == "truncated_ends"
    assert result.content == "    static params = [\n      'registry',\n    ]\n"


def test_a_truncated_last_line_restated_in_new_is_not_doubled() -> None:
    file = "def f():\n    line = read()\n    return line\n"
    old = "    line = read()\n    return"
    result = applied(file, old, "    line = read_all()\n    return line")
    assert result.content == "def f():\n    line = read_all()\n    return line\n"


def test_blank_line_differences_between_old_and_file_are_tolerated() -> None:
    file = "import os\n\n\ndef main():\n    pass\n"
    result = applied(file, "import os\ndef main():\n    pass", "import os\ndef main():\n    run()")
    assert result.strategy == "blank_lines"
    assert result.content == "import os\n\n\ndef main():\n    run()\n"


def test_block_anchor_accepts_a_typo_in_a_middle_line() -> None:
    file = "begin()\nstep_one(alpha)\nstep_two(beta)\nstep_three(gamma)\nfinish()\n"
    old = "begin()\nstep_one(alpah)\nstep_two(beta)\nstep_three(gamma)\nfinish()"
    new = "begin()\nstep_one(alpha)\nstep_two(beta2)\nstep_three(gamma)\nfinish()"
    result = applied(file, old, new)
    assert result.strategy == "block_anchor"
    assert 0.9 <= result.similarity < 1.0
    assert result.content == new + "\n"


def test_elisions_in_old_and_new_are_expanded_from_the_file() -> None:
    file = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n"
    old = "def f():\n    # ... existing code ...\n    return a"
    new = "def f():\n    # ... existing code ...\n    return a + b + c"
    result = applied(file, old, new)
    assert result.strategy == "elision"
    assert result.content == "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a + b + c\n"
