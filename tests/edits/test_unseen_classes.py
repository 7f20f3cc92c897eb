"""One small case per class of wrong apply found on generated edits the engine had never seen
(`../shared/tools/gen_edits.py`): each is the shape of the failure, with a fixture of our own."""

from __future__ import annotations

from edit_outcomes import applied, refused

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


# --- a cut last line matched exactly -------------------------------------------------------------


def test_a_cut_last_line_restated_before_added_lines_is_replaced_whole() -> None:
    file = "a = 1\n# on a beta train, daily\nb = 2\n"
    old = "a = 1\n# on a beta tr"
    new = "a = 1\n# on a beta train, daily\n# TODO: weekly"
    assert (
        applied(file, old, new).content
        == "a = 1\n# on a beta train, daily\n# TODO: weekly\nb = 2\n"
    )


def test_a_cut_last_line_that_new_drops_is_deleted_whole() -> None:
    file = "w = 0\nx = f(1)\ny = g(2, 3)\nz = 4\n"
    assert applied(file, "x = f(1)\ny = g(2,", "x = f(1)").content == "w = 0\nx = f(1)\nz = 4\n"


def test_a_cut_last_line_new_neither_keeps_nor_restates_is_refused() -> None:
    file = "x = f(1)\ny = g(2, 3)\nz = 4\n"
    refused(file, "x = f(1)\ny = g(2,", "x = f(1)\ny = h(9,")


def test_a_cut_last_line_new_keeps_leaves_the_rest_of_the_line() -> None:
    file = "x = f(1)\ny = g(2, 3)\nz = 4\n"
    assert applied(file, "x = f(1)\ny = g(2,", "x = f(0)\ny = g(2,").content == file.replace(
        "1", "0"
    )


def test_a_cut_last_line_new_keeps_before_added_lines_gets_the_rest_of_its_line() -> None:
    file = "x = f(1)\ny = g(2, 3)\nz = 4\n"
    new = "x = f(0)\ny = g(2,\nw = 5"
    result = applied(file, "x = f(1)\ny = g(2,", new)
    assert result.content == "x = f(0)\ny = g(2, 3)\nw = 5\nz = 4\n"


def test_a_cut_line_refused_is_not_looked_for_elsewhere_by_looser_tiers() -> None:
    file = "x = 1\n  y = 2\nx = 1\ny = 2;\n"  # lines 1-2 match `old` but for indentation
    error = refused(file, "x = 1\ny = 2", "x = 0\nz = 9")
    assert error.kind == "ambiguous" and "line 4" in error.message


def test_an_old_starting_mid_line_whose_line_new_restates_replaces_the_whole_line() -> None:
    file = "total = compute(a, b)\nprint(total)\n"
    new = "total = compute(a, b, c)\nprint(total)"
    assert applied(file, "compute(a, b)\nprint(total)", new).content == new + "\n"
    rule = "# " + "-" * 30 + "\n\nx = 1\n"  # a cut prefix of the rule is also its tail
    new = rule.replace("1", "2").rstrip("\n")
    assert applied(rule, "-" * 12 + "\n\nx = 1", new).content == new + "\n"
    # new carrying on from where old starts: a substring edit, the line's head stays.
    result = applied(file, "compute(a, b)\nprint(total)", "compute(a, c)\nprint(total)")
    assert result.content == file.replace("b)", "c)")


def test_an_old_starting_after_the_indentation_whose_new_carries_it_is_not_indented_twice() -> None:
    file = "def f():\n    foo()\n    bar()\n"
    assert applied(file, "foo()\n    bar()", "    foo(1)\n    bar()").content == file.replace(
        "foo()", "foo(1)"
    )


def test_a_short_cut_end_is_taken_where_two_lines_after_it_match_whole() -> None:
    file = 'int g;\n#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n'
    old = '#ifd\nextern "C" {\n#endif\n'  # four characters: too few to vouch by themselves
    new = '#ifdef __cplusplus\nextern "C" {\n#endif\nint h(void);\n'
    assert applied(file, old, new).content == file.replace("#endif\n", "#endif\nint h(void);\n")
    # With only one whole line beside it, a short cut end vouches for nothing.
    refused(file, '#ifd\nextern "C" {\n', '#ifdef X\nextern "C" {\n', "not_found")


def test_a_cut_line_new_restates_with_a_literal_changed_whole_is_replaced() -> None:
    file = "lookup = {\n  read: 'read-only',\n  write: 'read-write',\n}\n"
    old = "  read: 'rea\n  write: 'read-write',\n}"
    new = "  read: 'READ-ONLY',\n  write: 'read-write',\n}"
    assert applied(file, old, new).content == file.replace("'read-only'", "'READ-ONLY'")


def test_a_cut_first_line_is_found_by_the_one_word_line_after_it() -> None:
    file = "items = [\n  'prune',\n  'publish',\n  'query',\n  'rebuild',\n]\n"
    old = "  'publi\n  'query',\n"  # the last line is whole: it is the anchor
    new = "  'publishes',\n  'query',\n"
    assert applied(file, old, new).content == file.replace("'publish'", "'publishes'")


# --- blank line next to a fuzzy-matched region ---------------------------------------------------


def test_new_ending_with_a_line_break_keeps_the_blank_line_after_a_fuzzy_match() -> None:
    file = "def f():\n    return 1\n\nresults = []\nfor x in y:\n    pass\n"
    old = "def f():\n  return 1\n\nresults ="  # shifted, and its last line cut
    new = "def f():\n  return 2\n"  # the cut line dropped, the blank line kept
    assert applied(file, old, new).content == "def f():\n    return 2\n\nfor x in y:\n    pass\n"


# --- indentation wrong in lines the model did not change ------------------------------------------


def test_an_unchanged_line_old_indented_too_deep_keeps_the_file_indentation() -> None:
    file = "int f(void)\n{\n\tif (x)\n\t\ty();\n\treturn 0;\n}\n"
    old = "\tif (x)\n\t\t\ty();\n\treturn 0;"  # one tab too many on the middle line
    new = "\tif (z)\n\t\t\ty();\n\treturn 0;"
    assert applied(file, old, new).content == file.replace("(x)", "(z)")


def test_an_unchanged_line_sent_with_spaces_keeps_the_file_tabs() -> None:
    file = "int f(int a,\n\t\tint b)\n{\n\treturn a;\n}\n"
    old = "int f(int a,\n        int b)\n{\n\treturn a;"  # two tabs sent as 8 spaces
    new = "int f(int a,\n        int b)\n{\n\treturn b;"
    assert applied(file, old, new).content == file.replace("return a", "return b")


def test_a_changed_line_new_spells_as_the_file_does_is_kept_where_old_was_damaged() -> None:
    file = "extern int f (int a,\n\t\t int b);\nint g;\n"
    old = "extern int f (int a,\n \t\t int b);\nint g;"  # a blank crept in before the tabs
    new = "extern int f (int a,\n\t\t int b2);\nint g;"  # the file's own indentation
    assert applied(file, old, new).content == file.replace("b)", "b2)")


def test_lines_new_spells_as_the_file_does_are_kept_when_old_was_damaged_unevenly() -> None:
    file = "  for (x of y) {\n    if (x) {\n      add(x)\n    }\n  }\n\n  return res\n"
    old = "      add(x)\n      }\n}"  # one brace two blanks too deep, one two too shallow
    new = "    }\n  }"  # the call deleted; the braces as the file has them
    assert applied(file, old, new).content == file.replace("      add(x)\n", "")


def test_a_line_added_before_a_damaged_line_new_restates_is_kept_as_sent() -> None:
    file = "if (v < 0) {\n  throw new Error(\n    'negative',\n    v,\n  )\n}\n"
    old = "    'negative',\n    v,\n    )\n}"  # `)` two blanks too deep
    new = "    'negative',\n    v,\n    // for the log\n  )\n}"  # `)` as the file has it
    expected = file.replace("v,\n", "v,\n    // for the log\n")
    assert applied(file, old, new).content == expected
    # Also when new copies another damaged line of old as old has it (a line too deep).
    old, new = " " + old, " " + new
    assert applied(file, old, new).content == expected


def test_new_written_against_the_file_pairs_with_the_lines_old_matched_not_with_old() -> None:
    file = "function f(x) {\n  if (x) {\n    g(x)\n  }\n}\n\nfunction h() {\n"
    # Each brace of old one level off: old's inner `  }` reads like new's inner brace.
    old = "    g(x)\n   }\n  }\n\n function h() {"
    new = "    // g(x)\n  }\n}\n\nfunction h() {"
    assert applied(file, old, new).content == file.replace("g(x)", "// g(x)")


# --- tab-indented files re-indented with spaces ---------------------------------------------------


def test_an_added_line_at_its_neighbours_depth_takes_its_tabs_and_alignment_blanks() -> None:
    file = "int f (int a,\n\t\t\t int b);\nint g;\n"
    old = "int f (int a,\n                         int b);"  # 3 tabs + 1 blank at width 8
    new = old + "\n                         /* note */"
    assert applied(file, old, new).content == file.replace("b);\n", "b);\n\t\t\t /* note */\n")


def test_the_width_that_explains_every_line_beats_the_file_declared_one() -> None:
    file = "# vim: ts=8\nclass A:\n\tdef f(self):\n\t\tif x:\n\t\t\ty()\n"
    old = "    def f(self):\n        if x:\n            y()"  # four blanks a level
    new = old + "\n        z()"
    assert applied(file, old, new).content == file + "\t\tz()\n"


def test_a_dedented_old_whose_new_sits_at_the_file_depth_keeps_new_as_sent() -> None:
    file = "class A:\n    def f(self):\n        return 1\n\nx = 1\n"
    old = "def f(self):\nreturn 1\n\nx = 1"  # every line lost its indentation
    new = "    def f(self):\n        return 2\nassert x\n\nx = 1"  # but new has the file's
    assert applied(file, old, new).content == file.replace("return 1\n", "return 2\nassert x\n")


# --- speed: candidates from a cheap prefilter, never every line ----------------------------------


def test_an_old_whose_words_are_all_common_is_found_by_its_lines_under_every_tier() -> None:
    filler = "i = 1;\n0 = i;\n" * 80  # `i`, `0` and `1` are on every line
    file = filler + "(i)\n  i\u00a0=  0 ;\n" + filler
    result = applied(file, "(i)\n  i = 0;", "(i)\n  i = 2;")
    assert result.content == filler + "(i)\n  i = 2;\n" + filler
    quoted = filler + "i = \u2018i\u2019;\n" + filler  # smart quotes the model sends plain
    assert applied(quoted, "i = 'i';", "i = '0';").content == filler + "i = '0';\n" + filler


# --- a fuzzy match whose middle is out of date ---------------------------------------------------


def test_new_keeping_an_out_of_date_middle_line_is_refused_not_written_back() -> None:
    file = "def f():\n    a = load()\n    b = parse(a, 2)\n    c = save(b)\n    return c\n"
    old = "def f():\n    a = load()\n    b = parse(a, 1)\n    c = save(b)\n    return c"  # older
    new = old.replace("return c", "return c, b")
    error = refused(file, old, new)
    assert error.kind == "not_found" and "line 3" in error.message
    # When new rewrites that line, the model said what it wants there: applied.
    result = applied(file, old, new.replace("parse(a, 1)", "parse(a, 3)"))
    assert result.content == file.replace("2)", "3)").replace("return c", "return c, b")


# --- whole lines before substrings ----------------------------------------------------------------


def test_a_search_that_is_one_whole_line_once_is_matched_there_not_inside_longer_lines() -> None:
    file = "void f() {}\nstruct s {\n\tint x;\n}\nint g;\n"
    result = applied(file, "}", "}\nint h;", whole_lines=True)
    assert result.content == file.replace("}\nint g;", "}\nint h;\nint g;")
    # Twice as whole lines: still ambiguous.
    twice = file + "struct t {\n}\n"
    assert refused(twice, "}", "}\nint h;", whole_lines=True).kind == "ambiguous"


# --- a SEARCH carrying part of a line's indentation ----------------------------------------------


def test_a_line_sent_with_part_of_its_indentation_gets_added_lines_at_its_depth() -> None:
    file = "class A:\n    def f(self):\n        x = 1\n        y = 2\n"
    result = applied(file, "    x = 1", "    x = 1\n    z = 3")  # 4 of 8 blanks
    assert result.content == file.replace("x = 1\n", "x = 1\n        z = 3\n")
    tabbed = "void f(void)\n{\n\t\tx = 1;\n\t\ty = 2;\n}\n"
    result = applied(tabbed, "\tx = 1;", "\tx = 1;\n\tz = 3;")  # 1 of 2 tabs
    assert result.content == tabbed.replace("x = 1;\n", "x = 1;\n\t\tz = 3;\n")
    # The same text at other depths elsewhere: the exact hit, inside the line's indentation,
    # says which line (matched by indentation alone, both would be candidates).
    file = "x = 1\nif a:\n    x = 1\n"
    result = applied(file, "  x = 1", "  x = 1\n  y = 2")  # 2 of 4 blanks: one place
    assert result.content == file.replace("    x = 1\n", "    x = 1\n    y = 2\n", 1)


# --- an edit whose point is whitespace -----------------------------------------------------------


def test_new_whitespace_is_kept_when_old_matches_the_file_whitespace_exactly() -> None:
    file = "def f():\n\tif x:\n\t\treturn 1\n\treturn 0\n"
    old = "\tif x:\n\t\treturn 1\n\treturn 0\n"  # the file's tabs, exactly
    new = "    if x:\n        return 1\n    return 0\n"  # the point: tabs to spaces
    assert applied(file, old, new).content == "def f():\n" + new


def test_a_region_turned_from_tabs_to_spaces_keeps_its_spaces_when_one_old_line_is_off() -> None:
    # old's first line has a tab where the file has eight blanks (the same width): the region
    # is matched by indentation, and re-indenting new to the file's tabs would undo the edit.
    file = "class A:\n    def f(self):\n        x = 1\n\tif x:\n\t\ty()\n        return x\n"
    old = "\tx = 1\n\tif x:\n\t\ty()\n"
    new = "        x = 1\n        if x:\n            y()\n"
    assert applied(file, old, new).content == file.replace("\tif x:\n\t\ty()\n", new[14:])


def test_a_line_new_re_indents_under_a_shifted_old_moves_relative_to_old() -> None:
    # old is the file four blanks deeper throughout; new moves `except` back by four: the
    # file's `except` moves by four too, though new then spells the file's own line.
    file = "def f(rows):\n    try:\n        n = int(rows)\n        except ValueError:\n"
    file += "            n = 0\n    return n\n"
    old = "        try:\n            n = int(rows)\n            except ValueError:\n"
    old += "                n = 0\n"
    new = "        try:\n            n = int(rows)\n        except ValueError:\n            n = 0\n"
    expected = file.replace("        except", "    except").replace(
        "            n = 0", "        n = 0"
    )
    assert applied(file, old, new).content == expected


def test_lines_old_puts_off_the_file_depth_and_new_keeps_there_are_refused() -> None:
    # old is four blanks deeper than the file but for `except`, which it has where the file
    # has it (so, in old's frame, under its `try`); new keeps it: a line to re-align or a slip
    # in copying, and the two give different files.
    file = "def f(rows):\n    try:\n        n = int(rows)\n        m = n\n\n"
    file += "        except ValueError:\n            n = 0\n    return n\n"
    old = "        try:\n            n = int(rows)\n            m = n\n\n"
    old += "        except ValueError:\n            n = 0\n"
    new = old.replace("\n\n", "\n")
    error = refused(file, old, new, "ambiguous")
    assert "`except ValueError:` (lines 6-7 of the file)" in error.message


# --- lines added by a model that leaves out blank lines ------------------------------------------


def test_rules_added_without_blank_lines_get_the_blank_lines_the_file_separates_them_by() -> None:
    file = ".a {\n  color: red;\n}\n\n.a:hover {\n  color: blue;\n}\n\n.b {\n}\n"
    old = ".a {\n  color: red;\n}\n.a:hover {\n  color: blue;\n}\n"  # no blank lines at all
    new = old + ".a.done {\n  color: green;\n}\n.a.done:hover {\n  color: teal;\n}\n"
    expected = file.replace(
        "}\n\n.b", "}\n\n.a.done {\n  color: green;\n}\n\n.a.done:hover {\n  color: teal;\n}\n\n.b"
    )
    assert applied(file, old, new).content == expected


# --- line breaks elsewhere than the file's -------------------------------------------------------


def test_an_old_joining_lines_the_file_breaks_is_found_and_replaced_whole() -> None:
    file = '<div>\n  <p class="note">\n    {count} open items in {place}\n  </p>\n</div>\n'
    old = '  <p class="note">{count} open items in {place}</p>\n'
    new = '  <p class="note">\n    {count} open, {done} done in {place}\n  </p>\n'
    result = applied(file, old, new)
    assert result.content == "<div>\n" + new + "</div>\n"
    assert (result.strategy, result.start_line, result.end_line) == ("reflowed", 2, 4)


def test_a_reflowed_old_too_short_to_vouch_for_a_region_is_not_found() -> None:
    file = "f(\n  a,\n  b)\nf(a, c)\n"
    refused(file, "f(a, b)\n", "f(a, d)\n", "not_found")


# --- an ambiguity that does not matter ------------------------------------------------------------


def test_deleting_one_of_two_identical_adjacent_lines_is_applied() -> None:
    file = "<main>\n  <List/>\n  </main>\n  </main>\n);\n"
    result = applied(file, "  </main>\n", "")
    assert result.content == "<main>\n  <List/>\n  </main>\n);\n"
    # Changing one of them is still ambiguous: which one changes shows in the file.
    refused(file, "  </main>\n", "  </div>\n", "ambiguous")


def test_an_ambiguous_edit_lists_its_places_and_edits_the_one_chosen() -> None:
    file = "a = 1\nb = 2\na = 1\nc = 3\n"
    error = refused(file, "a = 1\n", "a = 9\n", "ambiguous")
    assert [(p.start_line, p.end_line) for p in error.places] == [(1, 1), (3, 3)]
    assert applied(file, "a = 1\n", "a = 9\n", place=1).content == "a = 1\nb = 2\na = 9\nc = 3\n"
    assert applied(file, "a = 1\n", "a = 9\n", place=0).content == "a = 9\nb = 2\na = 1\nc = 3\n"


# --- a blank line missing beside a line that starts another ------------------------------------


def test_an_old_missing_a_blank_line_is_not_taken_for_a_cut_line_elsewhere() -> None:
    # `}` then `return spec` is, blank line aside, the first place; elsewhere `return spec`
    # starts `return specs.map(...)`: a cut line would match there, two columns shallower.
    file = "    if (a) {\n      x()\n    }\n\n    return spec\n  }\n  }\n  return specs.map(f)\n"
    result = applied(file, "    }\n    return spec\n", "    }\n    // checked\n\n    return spec\n")
    assert result.strategy == "blank_lines"
    assert result.content == file.replace("    }\n\n", "    }\n    // checked\n\n", 1)


# --- the style of a window with C comment lines -----------------------------------------------


def test_a_line_added_among_tab_lines_sent_as_spaces_gets_a_tab_beside_comment_lines() -> None:
    # ` *` comment lines start with one blank: alignment, not the window's indentation style.
    file = "/*\n * a\n * b\n * c\n */\nstruct s {\n\tint a;\n\tint b;\n};\n"
    old = " * a\n * b\n * c\n */\nstruct s {\n    int a;\n    int b;\n};"
    new = " * a\n * b\n * c\n */\nstruct s {\n    int z;\n    int a;\n    int b;\n};"
    assert applied(file, old, new).content == file.replace("{\n", "{\n\tint z;\n")
