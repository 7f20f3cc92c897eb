"""`bb7 apply`: apply a model response (tool-call JSON or text with edit blocks) to a directory.

All or nothing: the files the response touches are read, every edit is applied in memory, and
only when all succeed are the files written (each atomically; a failed write rolls back the
ones already written). file_ids in the response are checked against the files as they are on
disk. Exit 0 when applied (or applicable, with --dry-run), 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import msgspec

from bb7.commands.terminal import print_json, write_raw
from bb7.files.fsio import (
    MAX_BYTES,
    FileMoved,
    atomic_write,
    backups,
    is_read_only,
    load_text,
    remove_leftovers,
    too_large,
    write_target,
)
from bb7.formats.apply import (
    ApplyError,
    EditRecord,
    FileChange,
    FileState,
    apply_response,
    describe_error,
    resolve_path,
    response_paths,
)
from bb7.formats.modes import DEFAULT_MODE, DIFF_MODES, DiffMode
from bb7.text.diff import colorize, line_counts, unified_diff
from bb7.text.visible import visible
from bb7.text.words import plural


class FileSummary(msgspec.Struct, kw_only=True):
    """One changed file in `--json` output (`diff` only with --dry-run)."""

    path: str
    status: str
    file_id: str
    added: int
    removed: int
    edits: list[EditRecord]
    diff: str | None = None


class Report(msgspec.Struct, kw_only=True):
    """The `--json` output."""

    ok: bool
    files: list[FileSummary]
    errors: list[ApplyError]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "apply",
        description=(
            "Apply a model response (tool-call JSON, or text with SEARCH/REPLACE or EDIT "
            "blocks) to the files under --root. Either every edit applies and the files are "
            "written, or nothing is written and the errors are printed (exit 1)."
        ),
    )
    parser.add_argument("--root", required=True, help="project directory the paths are under")
    parser.add_argument(
        "--mode",
        choices=DIFF_MODES,
        default=DEFAULT_MODE,
        help=f"edit_file schema of tool calls (default {DEFAULT_MODE})",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="write nothing; print the unified diff"
    )
    parser.add_argument("--json", action="store_true", help="print {ok, files, errors} as JSON")
    parser.add_argument(
        "response", nargs="?", default="-", help="file holding the response, or - for stdin"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.root)
    mode: DiffMode = args.mode
    text = _read_response(args.response)
    if isinstance(text, ApplyError):
        return _finish(args, False, [], [text])
    if not root.is_dir():
        # Named by the root, not as the response's fault.
        not_dir = _plain_error("invalid", "--root is not a directory", path=str(root))
        return _finish(args, False, [], [not_dir])
    result = apply_response(_load(root, text, mode), text, mode, root=root)
    if not result.calls:
        problem = _plain_error(
            "no_edits",
            "the response has no tool calls and no edit blocks (SEARCH/REPLACE or EDIT); "
            "nothing to apply",
        )
        return _finish(args, False, [], [problem])
    if not result.ok:
        return _finish(args, False, [], result.errors)
    if not result.files:
        problem = _plain_error(
            "no_change", "the response changes no file (the files already hold its edits)"
        )
        return _finish(args, False, [], [problem])
    if not args.dry_run:
        failure = _write_all(root, result.files)
        if failure is not None:
            return _finish(args, False, [], [failure])
    for note in result.notes:  # skipped no-op edits: applied, but worth knowing
        print(f"note: {note}", file=sys.stderr)
    return _finish(args, True, result.files, [])


def _read_response(source: str) -> str | ApplyError:
    """The response's text, read only up to bb7's size limit (one limit for what it reads)."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
            size = len(data)
        else:
            with open(source, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
                size = max(len(data), os.fstat(handle.fileno()).st_size)
    except OSError as exc:
        return _plain_error("unreadable", f"cannot read the response {source}: {exc.strerror}")
    if len(data) > MAX_BYTES:
        name = "the response" if source == "-" else f"the response {source}"
        return _plain_error("too_large", f"{too_large(name, size)}; nothing was written")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _plain_error("unreadable", f"the response is not UTF-8 (byte {exc.start})")


def _load(root: Path, text: str, mode: DiffMode) -> dict[str, FileState]:
    """The disk version of every path the response names (refused paths are left to apply)."""
    files: dict[str, FileState] = {}
    for raw in response_paths(text, mode):
        path = resolve_path(root, raw)
        if not isinstance(path, str) or path in files:
            continue
        real = write_target(root / path)
        remove_leftovers(real.parent, real.name)  # of a `bb7 apply` killed while writing
        left = backups(real.parent, real.name)
        if left:
            # Killed halfway through a write in place: the file may be half new. Its text from
            # before is in the backup; the user decides, bb7 writes nothing over it.
            problem = (
                f"a bb7 killed while writing it left its earlier text in {left[0].name}: "
                "compare, keep what you want, then delete that file"
            )
            files[path] = FileState(content=None, base="disk", problem=problem)
            continue
        loaded = load_text(root / path)
        if isinstance(loaded, str):
            files[path] = FileState(content=loaded, base="disk")
        elif loaded.kind != "missing":
            files[path] = FileState(content=None, base="disk", problem=loaded.message)
    return files


def _write_all(root: Path, changes: list[FileChange]) -> ApplyError | None:
    """Write every change; on the first failure restore what was written and say why.

    The write path of `bb7 output apply` (`bb7.files.fsio.atomic_write`): a read-only file is
    refused before anything is written, and each file must still hold what was read when it
    is replaced."""
    for change in changes:
        if change.before is not None and is_read_only(root / change.path):
            return _plain_error(
                "read_only_file",
                f"{change.path} is read-only on disk; nothing was written (make it writable, "
                "then apply again)",
                change.path,
            )
    done: list[tuple[FileChange, list[Path]]] = []
    for change in changes:
        target = root / change.path
        created = _missing_parents(target.parent, root)
        try:
            atomic_write(target, change.content, expect=change.before)
        except OSError as exc:
            # The failed file was not replaced: only the ones before it and new directories
            # are put back.
            _roll_back(done, root)
            _remove_empty(created)
            why = f"was {exc.strerror} while bb7 was writing it"
            if not isinstance(exc, FileMoved):
                why = f"could not be written ({exc.strerror or exc})"
            return _plain_error(
                "changed" if isinstance(exc, FileMoved) else "write_failed",
                f"{change.path} {why}; nothing was written (every file was restored)",
                change.path,
            )
        done.append((change, created))
    return None


def _missing_parents(directory: Path, root: Path) -> list[Path]:
    missing: list[Path] = []
    while directory != root and not directory.exists():
        missing.append(directory)
        directory = directory.parent
    return missing


def _roll_back(done: list[tuple[FileChange, list[Path]]], root: Path) -> None:
    for change, created in reversed(done):
        target = root / change.path
        if change.before is None:
            target.unlink(missing_ok=True)
        elif load_text(target) != change.before:
            atomic_write(target, change.before)
        _remove_empty(created)


def _remove_empty(created: list[Path]) -> None:
    for directory in created:  # innermost first
        if directory.exists() and not any(directory.iterdir()):
            directory.rmdir()


def _plain_error(kind: str, message: str, path: str = "") -> ApplyError:
    return ApplyError(block=None, edit=None, path=path, kind=kind, message=message)


# --- output ------------------------------------------------------------------------------------


def _finish(
    args: argparse.Namespace, ok: bool, changes: list[FileChange], errors: list[ApplyError]
) -> int:
    summaries = [_summary(change, args.dry_run) for change in changes]
    if args.json:
        report = Report(ok=ok, files=summaries, errors=errors)
        print_json(report)
    elif ok:
        _print_success(summaries, args.dry_run)
    else:
        _print_errors(errors)
    return 0 if ok else 1


def _summary(change: FileChange, with_diff: bool) -> FileSummary:
    added, removed = line_counts(change.before, change.content)
    diff = unified_diff(change.path, change.before, change.content) if with_diff else None
    return FileSummary(
        path=change.path,
        status=change.status,
        file_id=change.file_id,
        added=added,
        removed=removed,
        edits=change.edits,
        diff=diff,
    )


def _print_success(summaries: list[FileSummary], dry_run: bool) -> None:
    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    if dry_run:
        for summary in summaries:
            diff = summary.diff or ""
            if colour:
                write_raw(sys.stdout, colorize(visible(diff)))
            else:
                sys.stdout.write(diff)
    width = max(len(s.path) for s in summaries)
    for s in summaries:
        counts = f"+{s.added} -{s.removed}"
        how = "; ".join(_describe(edit) for edit in s.edits)
        print(f"{s.status:8}  {s.path:{width}}  {counts:>9}  {how}")
    files = f"{len(summaries)} file{'s' if len(summaries) != 1 else ''}"
    print(f"{files} would change (dry run: nothing written)." if dry_run else f"{files} written.")


def _describe(edit: EditRecord) -> str:
    where = f"lines {edit.start_line}-{edit.end_line}"
    if edit.start_line == edit.end_line:
        where = f"line {edit.start_line}"
    times = f" x{edit.count}" if edit.count > 1 else ""
    return f"{edit.strategy}{times} ({where})"


def _print_errors(errors: list[ApplyError]) -> None:
    print(
        f"bb7 apply: not applied, nothing was written ({plural(len(errors), 'error')}):",
        file=sys.stderr,
    )
    for error in errors:
        print("  " + describe_error(error).replace("\n", "\n    "), file=sys.stderr)
