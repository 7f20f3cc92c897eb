"""`bb7 apply`: real files, real command (in-process and as a subprocess), all or nothing."""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bb7.cli import main
from bb7.files.fileid import file_id

APP = "def main():\n    print('hello')\n\n\nif __name__ == '__main__':\n    main()\n"
WIN = "\ufeff@echo off\r\necho one\r\necho two\r\n"


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP)
    (root / "run.bat").write_bytes(WIN.encode())
    (root / "tool.sh").write_text("#!/bin/sh\necho old\n")
    os.chmod(root / "tool.sh", 0o755)
    return root


def _snapshot(root: Path) -> dict[str, tuple[bytes, int, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mode, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _response(tmp_path: Path, body: object) -> Path:
    path = tmp_path / "response.txt"
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    return path


def _edit(path: str, old: str, new: str, **extra: Any) -> dict[str, Any]:
    return {"path": path, "old_string": old, "new_string": new, **extra}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["apply", *argv])
    out, err = capsys.readouterr()
    return code, out, err


GOOD_TEXT = (
    "Two changes.\n\n"
    "src/app.py\n"
    "```python\n"
    "<<<<<<< SEARCH\n"
    "    print('hello')\n"
    "=======\n"
    "    print('hello, world')\n"
    ">>>>>>> REPLACE\n"
    "```\n\n"
    "run.bat\n"
    "««« EDIT\n"
    "echo one\n"
    "═══════ REPL\n"
    "echo one\n"
    "echo one and a half\n"
    "»»» EDIT END\n\n"
    "tool.sh\n"
    "<<<<<<< SEARCH\n"
    "echo old\n"
    "=======\n"
    "echo new\n"
    ">>>>>>> REPLACE\n"
)


def test_a_good_response_is_written_keeping_mode_crlf_and_bom(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    code, out, err = _run(capsys, "--root", str(root), str(_response(tmp_path, GOOD_TEXT)))
    assert (code, err) == (0, "")
    assert (root / "src/app.py").read_text() == APP.replace("'hello'", "'hello, world'")
    assert (root / "run.bat").read_bytes().decode() == (
        "\ufeff@echo off\r\necho one\r\necho one and a half\r\necho two\r\n"
    )
    assert stat.S_IMODE((root / "tool.sh").stat().st_mode) == 0o755
    assert "modified  src/app.py" in out and "+1 -1" in out and "exact" in out
    assert "3 files written." in out
    assert not list(root.rglob("*.bb7-tmp"))


def test_a_root_that_is_no_directory_is_named_as_the_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere"
    code, out, err = _run(capsys, "--root", str(missing), str(_response(tmp_path, GOOD_TEXT)))
    assert code == 1 and out == ""
    assert f"  {missing} [invalid]: --root is not a directory" in err.splitlines()
    assert "response" not in err


def test_one_bad_edit_among_good_ones_changes_nothing_on_disk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    before = _snapshot(root)
    bad = GOOD_TEXT.replace("echo old\n=======", "echo older\n=======")
    code, out, err = _run(capsys, "--root", str(root), str(_response(tmp_path, bad)))
    assert code == 1 and out == ""
    assert "nothing was written" in err and "block 3" in err and "tool.sh [not_found]" in err
    assert _snapshot(root) == before


def test_an_edit_matching_several_places_fails_the_response_naming_their_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No one is there to choose: bb7 apply stays all or nothing.
    root = _project(tmp_path)
    (root / "steps.txt").write_text("start\nstep\nstop\nstep\n")
    before = _snapshot(root)
    twice = GOOD_TEXT + "\nsteps.txt\n<<<<<<< SEARCH\nstep\n=======\nstep 1\n>>>>>>> REPLACE\n"
    code, out, err = _run(capsys, "--root", str(root), str(_response(tmp_path, twice)))
    assert code == 1 and out == ""
    assert "steps.txt [ambiguous]: old_string matches 2 places exactly: lines 2, 4." in err
    assert _snapshot(root) == before


def test_dry_run_prints_a_plain_diff_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    before = _snapshot(root)
    code, out, _ = _run(
        capsys, "--root", str(root), "--dry-run", str(_response(tmp_path, GOOD_TEXT))
    )
    assert code == 0 and _snapshot(root) == before
    assert "--- a/src/app.py\n+++ b/src/app.py\n" in out
    assert "-    print('hello')\n+    print('hello, world')\n" in out
    assert "\x1b[" not in out  # not a terminal: no colour
    assert "dry run: nothing written" in out


def test_json_output_lists_files_and_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    code, out, _ = _run(capsys, "--root", str(root), "--json", str(_response(tmp_path, GOOD_TEXT)))
    report = json.loads(out)
    assert code == 0 and set(report) == {"ok", "files", "errors"}
    assert report["ok"] is True and report["errors"] == []
    first = report["files"][0]
    assert (first["path"], first["status"], first["added"], first["removed"]) == (
        "src/app.py",
        "modified",
        1,
        1,
    )
    assert first["edits"][0]["strategy"] == "exact" and first["diff"] is None

    bad = GOOD_TEXT.replace("echo old\n=======", "echo older\n=======")
    fresh = _project(tmp_path / "fresh")
    code, out, _ = _run(capsys, "--root", str(fresh), "--json", str(_response(tmp_path, bad)))
    report = json.loads(out)
    assert code == 1 and report["ok"] is False and report["files"] == []
    (error,) = report["errors"]
    assert (error["block"], error["path"], error["kind"]) == (3, "tool.sh", "not_found")
    assert error["best"]["text"] == "echo old"


def test_file_ids_are_checked_against_the_files_on_disk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    good = file_id("src/app.py", APP)
    calls = {
        "tool_calls": [
            {
                "name": "edit_file",
                "arguments": {"edits": [_edit("src/app.py", "hello", "bye", file_id=good)]},
            }
        ]
    }
    assert _run(capsys, "--root", str(root), "--json", str(_response(tmp_path, calls)))[0] == 0
    # The file changed on disk since: the same id no longer matches.
    code, out, _ = _run(capsys, "--root", str(root), "--json", str(_response(tmp_path, calls)))
    assert code == 1 and json.loads(out)["errors"][0]["kind"] == "file_id_mismatch"


def test_the_response_can_come_from_stdin_in_openai_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path)
    arguments = json.dumps(_edit("src/app.py", "hello", "hi"))
    call = {
        "id": "1",
        "type": "function",
        "function": {"name": "edit_file", "arguments": arguments},
    }
    stdin = json.dumps({"tool_calls": [call]}).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code, _, err = _run(capsys, "--root", str(root), "--mode", "search_replace")
    assert code == 0, err
    assert "print('hi')" in (root / "src/app.py").read_text()


@pytest.mark.parametrize("target", ["../outside.txt", "{outside}/abs.txt", "link/inside-link.txt"])
def test_path_escapes_are_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    root = _project(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / "link")
    before = _snapshot(root)
    calls = {
        "tool_calls": [
            {"name": "edit_file", "arguments": {"edits": [_edit("src/app.py", "hello", "bye")]}},
            {
                "name": "write_file",
                "arguments": {"path": target.format(outside=outside), "content": "x\n"},
            },
        ]
    }
    code, out, _ = _run(capsys, "--root", str(root), "--json", str(_response(tmp_path, calls)))
    assert code == 1 and [e["kind"] for e in json.loads(out)["errors"]] == ["path_escape"]
    assert _snapshot(root) == before
    assert list(outside.iterdir()) == [] and not (tmp_path / "outside.txt").exists()


def test_a_response_without_edits_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    code, _, err = _run(capsys, "--root", str(root), str(_response(tmp_path, "Looks fine to me.")))
    assert code == 1 and "no tool calls and no edit blocks" in err


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def test_a_failed_write_restores_the_files_already_written(tmp_path: Path) -> None:
    root = _project(tmp_path)
    before = _snapshot(root)
    calls = {
        "tool_calls": [
            {"name": "write_file", "arguments": {"path": "run.bat", "content": "small\n"}},
            {
                "name": "write_file",
                "arguments": {"path": "new/dir/big.txt", "content": "x" * 10000},
            },
        ]
    }
    # A real process whose file size limit makes the second write fail (EFBIG) after the first
    # one landed: the first must be restored and the new directories removed.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bb7.cli",
            "apply",
            "--root",
            str(root),
            "--json",
            str(_response(tmp_path, calls)),
        ],
        capture_output=True,
        text=True,
        preexec_fn=_limit_file_size,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    (error,) = json.loads(done.stdout)["errors"]
    assert error["kind"] == "write_failed" and error["path"] == "new/dir/big.txt"
    after = _snapshot(root)
    assert {p: v[0] for p, v in after.items()} == {p: v[0] for p, v in before.items()}
    assert not (root / "new").exists()


def test_the_installed_command_runs_as_a_subprocess(tmp_path: Path) -> None:
    # The one smoke test of a real `bb7` process (the other CLI tests run bb7.cli.main): the
    # console script pip installed next to this interpreter.
    root = _project(tmp_path)
    script = Path(sys.executable).parent / "bb7"
    assert script.exists(), "bb7 is not installed in this interpreter's environment"
    done = subprocess.run(
        [str(script), "apply", "--root", str(root), "--dry-run", "-"],
        input=GOOD_TEXT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "3 files would change" in done.stdout
    assert (root / "src/app.py").read_text() == APP


def test_a_block_that_changes_nothing_is_skipped_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    text = "tool.sh\n<<<<<<< SEARCH\necho old\n=======\necho old\n>>>>>>> REPLACE\n" + GOOD_TEXT
    code, _, err = _run(capsys, "--root", str(root), str(_response(tmp_path, text)))
    assert code == 0
    assert "note: block 1" in err and "tool.sh" in err and "changes nothing" in err
    assert (root / "tool.sh").read_text() == "#!/bin/sh\necho new\n"
