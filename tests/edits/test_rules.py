"""The engine's rules and the traps other engines fall into."""

from __future__ import annotations

from bb7.edits import Applied, EditError, LineIndex, locate, replace
from edit_outcomes import applied, refused

# --- rule 1: never the wrong place -------------------------------------------------------------


def test_two_exact_occurrences_are_ambiguous_and_name_both_places() -> None:
    error = refused("x()\ny()\nx()\n", "x()", "z()", "ambiguous")
    assert "2 places" in error.message and "1" in error.message and "3" in error.message
    assert "start_line" in error.message and "replace_all" in error.message


def test_two_fuzzy_candidates_in_one_tier_are_ambiguous() -> None:
    file = "  if ok:\n    go()\n\n      if ok:\n        go()\n"
    refused(file, "if ok:\n  go()", "if ok:\n  stop()", "ambiguous")


def test_an_invented_middle_between_correct_anchors_is_not_found() -> None:
    file = "def f():\n    load()\n    parse()\n    save()\n    return\n"
    old = "def f():\n    connect_to_db()\n    run_migrations()\n    save()\n    return"
    error = refused(file, old, old.replace("save", "store"), "not_found")
    assert error.best is not None and error.best.start_line == 1


def test_anchors_alone_never_vouch_for_a_region() -> None:
    file = "function hello() {\n    console.log('hello')\n}\n"
    old = "function hello() {\n    console.log('wrong')\n}\n"
    refused(file, old, "function hello() {\n    console.log('x')\n}\n", "not_found")


def test_a_stale_region_with_only_the_first_line_right_is_not_found() -> None:
    file = "a = load()\nb = a + 1\nc = b * 2\nprint(c)\n"
    refused(file, "a = load()\nb = a - 7\nd = 99\n", "a = load()\n", "not_found")


def test_fuzzy_matching_prefers_the_exact_copy_over_a_near_duplicate() -> None:
    file = "if (node[meta]) {\n  extra.start(foo)\n}\nif (node[meta]) {\n  extra.start(bar)\n}\n"
    result = applied(file, "if (node[meta]) {  \n  extra.start(bar)\n} ", "if (node[meta]) {\n}")
    assert result.content == "if (node[meta]) {\n  extra.start(foo)\n}\nif (node[meta]) {\n}\n"


def test_a_stricter_tier_wins_over_a_looser_match_elsewhere() -> None:
    # Block A matches once trailing whitespace is ignored; block B only after re-indenting.
    file = "foo()  \nbar()\n\n    foo()\n    bar()\n"
    result = applied(file, "foo()\nbar()", "foo()\nbaz()")
    assert result.strategy == "trailing_whitespace"
    assert result.content == "foo()\nbaz()\n\n    foo()\n    bar()\n"


# --- rule 2: bytes outside the span never change ------------------------------------------------


def test_a_fuzzy_edit_leaves_every_other_byte_alone() -> None:
    head = "\ufeffkeep  \r\n\tmixed\ttabs \r\nsmart \u2018quotes\u2019\n"
    tail = "trailing   \r\nno newline at end"
    file = head + "    def f():\r\n        return 1\r\n" + tail
    result = applied(file, "def f():\n    return 1\n", "def f():\n    return 2\n")
    assert result.content == head + "    def f():\r\n        return 2\r\n" + tail


# --- rule 3: undo systematic mistakes in new ------------------------------------------------------


def test_crlf_files_match_on_lf_and_stay_crlf() -> None:
    file = "a\r\nb\r\nc\r\n"
    assert applied(file, "a\nb", "a\nB\nb2").content == "a\r\nB\r\nb2\r\nc\r\n"


def test_a_bom_is_kept() -> None:
    assert applied("\ufeffx = 1\n", "x = 1", "x = 2").content == "\ufeffx = 2\n"


def test_gutters_are_stripped_from_new_lines_that_have_them_only() -> None:
    file = "a\nb\nc\n"
    result = applied(file, "L2: b\nL3: c", "L2: b\ninserted\nL3: c")
    assert result.content == "a\nb\ninserted\nc\n"


def test_tab_indented_file_gets_tabs_in_reindented_new() -> None:
    file = "void f() {\n\tif (a) {\n\t\tx();\n\t}\n}\n"
    result = applied(file, "if (a) {\n    x();\n}", "if (a) {\n    x();\n    y();\n}")
    assert result.content == "void f() {\n\tif (a) {\n\t\tx();\n\t\ty();\n\t}\n}\n"


# --- rule 4: cascade traps ---------------------------------------------------------------------


def test_first_line_copied_from_mid_line_keeps_the_files_indentation() -> None:
    file = "class A:\n    def old(self):\n        return 1\n"
    old = "def old(self):\n        return 1"
    new = "def new(self):\n        return 2"
    result = applied(file, old, new)
    assert result.content == "class A:\n    def new(self):\n        return 2\n"


def test_no_stray_blank_line_when_old_ends_with_newline_and_matches_fuzzily() -> None:
    file = "    line1\n    line2\n    line3\n"
    result = applied(file, "line1\nline2\n", "new_line1\nnew_line2\n")
    assert result.content == "    new_line1\n    new_line2\n    line3\n"


def test_damaged_indentation_in_old_only_keeps_new_as_sent() -> None:
    file = "const f = () => {\n  const a = {}\n  const b = []\n}\n"
    old = "const f = () => {\nconst a = {}\nconst b = []"
    new = "const f = () => {\n  const a = {}\n  // const b = []"
    assert applied(file, old, new).content == (
        "const f = () => {\n  const a = {}\n  // const b = []\n}\n"
    )


def test_deleting_a_whole_line_removes_it_without_leaving_a_blank() -> None:
    assert applied("apple\nbanana\ncherry\n", "banana", "").content == "apple\ncherry\n"
    assert applied("a\n  b  \nc\n", "b\n", "").content == "a\nc\n"


def test_new_with_an_elision_old_lacks_is_refused() -> None:
    file = "def f():\n    a()\n    b()\n"
    error = refused(
        file, "def f():\n    a()\n", "def f():\n    # ... existing code ...\n", "invalid"
    )
    assert "elision" in error.message


def test_an_elision_line_the_file_really_contains_is_code() -> None:
    file = "x = [\n    # ...\n]\n"
    assert applied(file, "x = [\n", "y = 1\nx = [\n    # ...\n").content.startswith("y = 1\n")


# --- rule 5: start_line -------------------------------------------------------------------------


def test_a_hint_picks_the_nearer_of_two_identical_blocks() -> None:
    file = "x()\ny()\nx()\n"
    assert applied(file, "x()", "z()", start_line=3).content == "x()\ny()\nz()\n"
    assert applied(file, "x()", "z()", start_line=1).content == "z()\ny()\nx()\n"


def test_a_hint_halfway_between_two_copies_is_still_ambiguous() -> None:
    refused("x()\ny()\nx()\n", "x()", "z()", "ambiguous", start_line=2)


def test_a_hint_never_makes_a_poor_match_acceptable() -> None:
    file = "def f():\n    load()\n    parse()\n    return\n"
    old = "def f():\n    totally()\n    different()\n    return"
    refused(file, old, "def f():\n    return", "not_found", start_line=1)


# --- rule 6: replace_all ------------------------------------------------------------------------


def test_replace_all_replaces_adjacent_occurrences_without_overlap() -> None:
    result = applied("aaaa b aa", "aa", "x", replace_all=True)
    assert result.content == "xx b x" and result.count == 3


def test_replacement_text_is_literal() -> None:
    for new in ["$&", "\\1", "$'", "$$", "\\g<0>"]:
        assert applied("foo bar foo", "foo", new, replace_all=True).content == f"{new} bar {new}"
        assert applied("foo bar", "foo", new).content == f"{new} bar"


# --- rule 7: degenerate edits -------------------------------------------------------------------


def test_identical_old_and_new_is_invalid() -> None:
    refused("a\n", "a", "a", "invalid")


def test_empty_old_creates_an_empty_file_and_is_invalid_on_a_non_empty_one() -> None:
    created = applied("", "", "hello\r\nworld\r\n")
    assert created.content == "hello\r\nworld\r\n" and created.strategy == "create"
    refused("content\n", "", "x", "invalid")


# --- messages -----------------------------------------------------------------------------------


def test_not_found_names_the_closest_candidate_with_lines_and_similarity() -> None:
    file = "".join(f"line {i}\n" for i in range(1, 40)) + "def compute(a, b):\n    return a + b\n"
    error = refused(file, "def compute(a, c):\n    return a * c\n", "x\n", "not_found")
    assert error.best is not None
    assert (error.best.start_line, error.best.end_line) == (40, 41)
    assert "lines 40-41" in error.message and "% similar" in error.message
    assert "def compute(a, b):" in error.message


def test_a_line_index_can_be_reused_across_edits_of_one_content() -> None:
    content = "a = 1\nb = 2\n"
    index = LineIndex(content)
    first = replace(content, "a = 1", "a = 9", index=index)
    second = replace(content, "b = 2\n", "b = 8\n", index=index)
    assert isinstance(first, Applied) and isinstance(second, Applied)
    assert second.content == "a = 1\nb = 8\n"


def test_a_fully_dedented_old_restores_each_lines_own_depth_in_new() -> None:
    file = "class A:\n    def f(self):\n        if x:\n            y()\n        return 1\n"
    old = "def f(self):\nif x:\ny()\nreturn 1"
    new = "def f(self):\nif x:\nz()\nw()\nreturn 1"
    assert applied(file, old, new).content == (
        "class A:\n    def f(self):\n        if x:\n            z()\n            w()\n"
        "        return 1\n"
    )


def test_new_with_real_backslashes_is_not_unescaped_because_old_was_escaped() -> None:
    file = "if x:\n    sep = '\\\\'\n    alt = '/'\n"
    old = "if x:\\n    sep = '\\\\\\\\'\\n    alt = '/'"  # flattened and double-escaped
    new = "if x:\n    sep = '\\\\'\n    alt = '|'"  # plain text with a real '\\\\'
    assert applied(file, old, new).content == "if x:\n    sep = '\\\\'\n    alt = '|'\n"


def test_a_cut_last_line_restated_with_a_change_is_replaced_whole() -> None:
    file = "a = 1\nb = call(first, second, third)\nc = 3\n"
    result = applied(file, "a = 1\nb = call(first,", "a = 1\nb = call(first2, second, third)")
    assert result.content == "a = 1\nb = call(first2, second, third)\nc = 3\n"


def test_blank_lines_new_restores_itself_are_not_doubled() -> None:
    file = "x = 1\n\n\ndef f():\n    pass\n"
    result = applied(file, "x = 1\n\ndef f():\n    pass", "x = 2\n\n\ndef f():\n    pass")
    assert result.content == "x = 2\n\n\ndef f():\n    pass\n"


def test_elision_placements_that_change_nothing_differently_are_not_ambiguous() -> None:
    # `#endif` occurs twice before the changed part; either placement gives the same file.
    file = "#endif\na\n#endif\nb\nint main(void);\n"
    old = "#endif\n// ... existing code ...\nint main(void);"
    new = "#endif\n// ... existing code ...\nint main(int argc);"
    result = applied(file, old, new)
    assert result.content == "#endif\na\n#endif\nb\nint main(int argc);\n"
    assert (result.start_line, result.end_line) == (3, 5)


def test_elision_placements_that_differ_are_ambiguous() -> None:
    file = "#endif\na\n#endif\nb\nint main(void);\n"
    old = "#endif\n// ... existing code ...\nint main(void);"
    new = "#endif /* x */\n// ... existing code ...\nint main(int argc);"
    refused(file, old, new, "ambiguous")


def test_deleting_an_indented_line_takes_its_indentation_too() -> None:
    assert applied("  x\ny\n", "x\n", "").content == "y\n"
    assert applied("  x\ny\n", "x", "").content == "y\n"


def test_an_indented_old_is_not_matched_inside_a_deeper_indented_line() -> None:
    assert applied("    }\n  }\n", "  }\n", "  };\n").content == "    }\n  };\n"


# --- classes seen in real models' answers (issue 13) ------------------------------------------

BOM = "\ufeff"
FUNC = "function f() {\n    const a = 1;\n    const b = 2;\n}\n"


# --- an unindented one-line SEARCH matching inside an indented line ----------------------------


def test_lines_added_after_a_dedented_whole_line_get_its_indentation() -> None:
    result = applied(FUNC, "const a = 1;\n", "const a = 1;\nconst c = 3;\n", whole_lines=True)
    assert (
        result.content
        == "function f() {\n    const a = 1;\n    const c = 3;\n    const b = 2;\n}\n"
    )


def test_the_same_without_final_newlines() -> None:
    result = applied(FUNC, "const a = 1;", "const a = 1;\nconst c = 3;", whole_lines=True)
    assert (
        result.content
        == "function f() {\n    const a = 1;\n    const c = 3;\n    const b = 2;\n}\n"
    )


def test_indented_added_lines_after_a_dedented_line_are_refused() -> None:
    # Relative to old's line (8 columns) or already at the file's depth (4)? Not guessed.
    error = refused(
        FUNC, "const a = 1;\n", "const a = 1;\n    const c = 3;\n", "ambiguous", whole_lines=True
    )
    assert "indentation" in error.message and "line 2" in error.message


def test_a_substring_inside_a_line_is_still_a_substring_edit() -> None:
    assert applied(FUNC, "a = 1", "a = 10").content == FUNC.replace("a = 1", "a = 10")
    # Without whole_lines (tool calls), old_string is text: a plain replacement.
    result = applied(FUNC, "const a = 1;\n", "const a = 1;\nconst c = 3;\n")
    assert result.content == FUNC.replace("const a = 1;\n", "const a = 1;\nconst c = 3;\n")


# --- a byte-order mark carried by REPLACE ---------------------------------------------------------


def test_a_new_file_keeps_the_bom_its_content_starts_with() -> None:
    assert applied("", "", BOM + "namespace A\n{\n}\n").content == BOM + "namespace A\n{\n}\n"


def test_a_bom_file_gets_one_bom_whatever_new_carries() -> None:
    result = applied(BOM + "x = 1\n", "x = 1\n", BOM + "x = 2\n")
    assert result.content == BOM + "x = 2\n"


# --- an empty SEARCH on an existing file ----------------------------------------------------------


def test_an_empty_old_on_a_non_empty_file_says_how_to_append_or_rewrite() -> None:
    error = refused("a\nb\n", "", "c\n", "invalid")
    assert "append" in error.message and "last lines" in error.message
    assert "write_file" in error.message


def test_a_first_or_last_context_line_the_file_lacks_is_dropped_from_both_sides() -> None:
    file = "a = 1\nb = 2\n\n# note\n\nc = 3\n"
    old = "b = 2\n\n# note\n\n# invented\n"
    result = applied(file, old, "b = 2\n\n# note\nd = 4\n\n# invented\n")
    assert result.strategy == "stray_context"
    assert result.content == "a = 1\nb = 2\n\n# note\nd = 4\n\nc = 3\n"
    # Changed by new, or present elsewhere in the file, it is not stray context: refused.
    refused(file, old, "b = 2\n\n# note\nd = 4\n\n# other\n", "not_found")
    refused(file, "b = 2\n\n# note\n\na = 1\n", "b = 2\n\n# note\nd = 4\n\na = 1\n", "not_found")


def test_a_no_op_edit_is_located_without_changing_anything() -> None:
    found = locate("a\n  b\nc\n", "b\n")
    assert isinstance(found, Applied) and found.content == "a\n  b\nc\n"
    assert (found.strategy, found.start_line, found.end_line) == ("unchanged", 2, 2)
    assert isinstance(locate("a\nb\na\n", "a\n"), EditError)


def test_markdown_prose_and_examples_hold_no_elisions() -> None:
    file = "# Doc\n\nIntro.\n"
    new = "Intro...\n\n...\n\n```py\n# ... rest of code ...\n```\n"
    assert applied(file, "Intro.\n", new, path="README.md").content == "# Doc\n\n" + new
    refused(file, "Intro.\n", new, "invalid")  # the same text in a code file is an elision
    # A marker in a comment is still one in Markdown.
    refused(
        file, "Intro.\n", "Intro.\n<!-- ... rest of the section ... -->\n", "invalid", path="a.md"
    )


# --- tab-aligned continuation lines ---------------------------------------------------------------

ALIGNED = "static int f(void)\n{\n\tresult = compute_the_thing(alpha,\n\t\t\t\t   beta);\n}\n"


def test_a_changed_line_keeps_the_files_exact_tabs_and_alignment_spaces() -> None:
    # Sent with spaces (tab width 8: 35 columns); the file line is 4 tabs and 3 spaces.
    old = "        result = compute_the_thing(alpha,\n                                   beta);\n"
    new = "        result = compute_the_thing(alpha,\n                                   gamma);\n"
    assert applied(ALIGNED, old, new).content == ALIGNED.replace("beta", "gamma")


def test_the_tab_width_comes_from_the_files_alignment_or_modeline() -> None:
    assert LineIndex(ALIGNED).tab_width() == 8
    assert LineIndex(ALIGNED).tab_width(configured=4) == 4  # the project's .editorconfig
    assert LineIndex("x = 1\n# vim: set ts=4 sw=4:\n").tab_width(configured=8) == 4
    assert LineIndex("/* -*- mode: c; tab-width: 3 -*- */\n").tab_width() == 3
    assert LineIndex("\tx = 1\n").tab_width() is None


def test_a_lone_changed_line_in_a_space_indented_file_keeps_its_tabs() -> None:
    file = "int f(void)\n{\n    result = compute_the_thing(alpha,\n\t\t\t\t   beta);\n}\n"
    old = "                                   beta);\n"
    result = applied(file, old, old.replace("beta", "gamma"))
    assert result.content == file.replace("beta", "gamma")
    # An added line has no file line of its own: its 35 columns in the region's style.
    new = old + "                                   delta);\n"
    result = applied(file, old, new)
    assert result.content == file.replace("beta);\n", "beta);\n\t\t\t\t   delta);\n")


def test_a_one_line_over_escaped_change_is_unescaped_like_old() -> None:
    file = 'void f(void)\n{\n    printf("\\032");\n}\n'
    old = '    printf("\\\\032");'  # the file's \032 sent as \\032
    new = '    printf("\\\\032\\\\n");'  # the same over-escaping
    result = applied(file, old, new)
    assert result.content == 'void f(void)\n{\n    printf("\\032\\n");\n}\n'


def test_without_other_evidence_the_tab_width_that_shifts_nothing_wins() -> None:
    file = "int f(void)\n{\n\tif (x) {\n\t\ty();\n\t}\n}\n"
    old = "                y();\n"  # two tabs written as 8 columns each
    result = applied(file, old, old + "                        z();\n")
    assert result.content == file.replace("\t\ty();\n", "\t\ty();\n\t\t\tz();\n")


def test_deleting_text_that_starts_with_a_line_break_leaves_the_blank_lines_around_it() -> None:
    file = "x = 1\n\n    def f():\n        pass\n\ny = 2\n"
    old = "\n    def f():\n        pass"  # takes the break before the block, not a blank line
    assert applied(file, old, "").content == "x = 1\n\n\ny = 2\n" == file.replace(old, "")
    # Whole lines without the break: the lines go, and the blank lines on both sides stay.
    assert applied(file, old[1:], "").content == "x = 1\n\n\ny = 2\n"
