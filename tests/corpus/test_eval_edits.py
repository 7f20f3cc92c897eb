"""`bb7 eval-edits`: results per case in input order, a table, and no crash on bad lines."""

from __future__ import annotations

import json
from pathlib import Path

from bb7.cli import main


def _write(path: Path, rows: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_results_are_written_in_input_order_with_every_field(tmp_path: Path, capsys) -> None:
    corpus = _write(
        tmp_path / "c.jsonl",
        [
            {
                "id": "a",
                "category": "exact",
                "file": "x = 1\n",
                "old": "1",
                "new": "2",
                "expect": "x = 2\n",
            },
            {
                "id": "b",
                "category": "ambiguous",
                "file": "a\na\n",
                "old": "a",
                "new": "b",
                "expect": None,
                "expect_error": "ambiguous",
            },
        ],
    )
    out = tmp_path / "r.jsonl"
    assert main(["eval-edits", str(corpus), "--results", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a", "b"]
    assert set(rows[0]) == {"id", "ok", "content", "error_kind", "error", "strategy", "ms"}
    assert rows[0]["ok"] is True and rows[0]["content"] == "x = 2\n"
    assert rows[0]["strategy"] == "exact"
    assert rows[1]["ok"] is False and rows[1]["error_kind"] == "ambiguous"
    table = capsys.readouterr().out
    assert "ambiguous" in table and "100.0% correct" in table


def test_a_malformed_line_gets_an_error_result_and_the_run_goes_on(tmp_path: Path) -> None:
    corpus = _write(
        tmp_path / "c.jsonl",
        ["{not json", {"id": "ok", "file": "a\n", "old": "a", "new": "b", "expect": "b\n"}],
    )
    out = tmp_path / "r.jsonl"
    assert main(["eval-edits", str(corpus), "--results", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["ok"] is False and rows[0]["error_kind"] == "malformed"
    assert rows[1] == rows[1] | {"id": "ok", "ok": True, "content": "b\n"}
