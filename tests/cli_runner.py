"""`bb7` run in-process, as a shell would run it: argv in; exit code, stdout and stderr out.

The command line is a pure consumer of the core, so running `bb7.cli.main` in the test process
tests the same code a real `bb7` runs, without paying a process start per command. What needs a
real process (a second lease holder, resource limits, the installed entry point) starts one.
"""

from __future__ import annotations

import subprocess

import pytest

from bb7.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    capsys.readouterr()  # what earlier steps printed is not this command's output
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse: --help, --version, unusable arguments
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["bb7", *args], code, out, err)
