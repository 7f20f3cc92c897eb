"""`bb7 eval-edits` and `bb7 eval-responses` on a corpus they cannot use: one line, exit 1,
and an existing --results file is left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import run_cli

COMMANDS = ["eval-edits", "eval-responses"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_corpus_is_one_line_and_keeps_the_results_file(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text('{"id": "earlier run"}\n')
    missing = tmp_path / "nothere.jsonl"
    done = run_cli(capsys, command, str(missing), "--results", str(results))
    assert done.returncode == 1
    assert (
        done.stderr
        == f"bb7 {command}: cannot read the corpus {missing}: No such file or directory\n"
    )
    assert results.read_text() == '{"id": "earlier run"}\n'


@pytest.mark.parametrize("command", COMMANDS)
def test_a_directory_or_a_non_utf8_corpus_is_one_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_cli(capsys, command, str(tmp_path))
    assert done.returncode == 1
    assert done.stderr == f"bb7 {command}: cannot read the corpus {tmp_path}: Is a directory\n"
    binary = tmp_path / "c.jsonl"
    binary.write_bytes(b'\xff\xfe{"id": 1}\n')
    done = run_cli(capsys, command, str(binary))
    assert done.returncode == 1
    assert done.stderr == f"bb7 {command}: cannot read the corpus {binary}: it is not UTF-8\n"
    assert done.stdout == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unwritable_results_path_is_one_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("")
    results = tmp_path / "no" / "dir" / "r.jsonl"
    done = run_cli(capsys, command, str(corpus), "--results", str(results))
    assert done.returncode == 1
    assert done.stderr == (
        f"bb7 {command}: cannot write the results to {results}: No such file or directory\n"
    )
