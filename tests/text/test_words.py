from bb7.text.words import plural


def test_one_is_singular_every_other_count_plural() -> None:
    assert plural(1, "problem") == "1 problem"
    assert [plural(n, "region") for n in (0, 2, 11)] == ["0 regions", "2 regions", "11 regions"]
