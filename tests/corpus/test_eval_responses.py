"""`bb7 eval-responses`: each case through `bb7 apply` on a real directory, scored per category."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bb7.cli import main

FILES = {"pkg/a.py": "x = 1\n", "b.txt": "keep\n"}
SR = "pkg/a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
CASES = [
    {
        "id": "applies",
        "category": "text",
        "mode": "search_replace_multi",
        "files": FILES,
        "response": SR,
        "expect_files": {**FILES, "pkg/a.py": "x = 2\n"},
        "expect_error": None,
    },
    {
        "id": "refused",
        "category": "escape",
        "mode": "search_replace",
        "files": FILES,
        "response": json.dumps(
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "../x", "content": ""}}]}
        ),
        "expect_files": None,
        "expect_error": "path_escape",
    },
    {
        "id": "expected-wrongly",
        "category": "text",
        "mode": "search_replace_multi",
        "files": FILES,
        "response": SR,
        "expect_files": {**FILES, "pkg/a.py": "x = 3\n"},
        "expect_error": None,
    },
    {
        "id": "missed",
        "category": "text",
        "mode": "search_replace_multi",
        "files": FILES,
        "response": SR.replace("x = 1", "x = 0"),
        "expect_files": {**FILES, "pkg/a.py": "x = 2\n"},
        "expect_error": None,
    },
]


def test_cases_are_scored_and_results_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(c) + "\n" for c in CASES) + "\n{broken\n")
    results = tmp_path / "results.jsonl"
    assert main(["eval-responses", str(corpus), "--results", str(results), "--show", "wrong"]) == 0
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert [(r["id"], r["verdict"]) for r in rows] == [
        ("applies", "correct"),
        ("refused", "correct"),
        ("expected-wrongly", "wrong"),
        ("missed", "missed"),
        ("line-6", "missed"),
    ]
    assert rows[1]["error_kinds"] == ["path_escape"] and rows[1]["ok"] is False
    out, err = capsys.readouterr()
    assert "wrong    expected-wrongly" in err and "pkg/a.py" in err
    assert "text" in out and "escape" in out and "40.0% correct" in out
    assert "refusals naming the expected error kind: 1/1" in out
