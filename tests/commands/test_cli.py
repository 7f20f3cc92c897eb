"""The `bb7` front door: version, help built from the command table, and bad commands."""

from __future__ import annotations

import pytest

from bb7 import __version__
from bb7.cli import COMMANDS
from cli_runner import run_cli


def test_version_is_printed_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    done = run_cli(capsys, "--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"bb7 {__version__}\n", "")


def test_help_lists_every_command_of_the_table_with_its_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    done = run_cli(capsys, "--help")
    assert done.returncode == 0
    listed = " ".join(done.stdout.split())  # argparse wraps long help lines
    for name, (_, help_text) in COMMANDS.items():
        assert f"{name} {help_text}" in listed, name


def test_a_command_lists_the_others_in_the_same_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    alone = run_cli(capsys, "--help").stdout
    with_status = run_cli(capsys, "-h", "status").stdout  # status's module is imported here
    assert with_status == alone


def test_no_command_prints_the_help_on_stderr_and_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    done = run_cli(capsys)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: bb7") and "eval-responses" in done.stderr


def test_an_unknown_command_is_refused_naming_the_known_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    done = run_cli(capsys, "stauts")
    assert done.returncode == 2
    assert "invalid choice: 'stauts'" in done.stderr and "'status'" in done.stderr
