"""Apply a whole model response to in-memory file contents, all or nothing.

    result = apply_response(files, response, mode, root=root)

`files` maps each normalised root-relative POSIX path (as `resolve_path` returns it) to a
`FileState`: the content of the path's base version (None when it does not exist), which
version that is (`snapshot` of the context, `pending_output`, or `disk` for `bb7 apply`), and
whether the model may write it. The state layer passes, per path, the pending output if there is
one, else the context snapshot; a path absent from `files` is a file that does not exist.
`response_paths` lists the paths a response names, for callers that load files lazily.

Calls apply in response order; an edit sees every earlier change of the response. file_id
(when an edit carries one) must be the id of the path's content when the call started: the base
version for the first call touching the path, then the content after the earlier calls. Any
failure (an engine refusal, a file_id mismatch, write_file and edit_file on one path, two
write_files on one path, a path outside the root or into `.git/`/`.bb7/`, a read-only path,
editing a missing file, an unreadable call or block) makes `ok` False and `files` empty;
`errors` lists every failure, and `partial` holds what the successful edits alone produce.
With `choices`, an edit whose old text matches several places (and nothing in the answer tells
them apart) is no failure but a `Choice` for the user, when it is the answer's only kind of
problem: `files` hold every other edit, and the choice waits to be made on them.
An edit whose new text equals its old text is skipped with a line in `notes` once `old` is
found (it still fails when `old` matches nothing or several places).

Pure: nothing is written; under `root`, only symlinks (`resolve_path`) and `.editorconfig`
files (the tab width for re-indenting, `bb7.formats.editorconfig`) are looked at.
Writing files is the caller's job (`bb7.commands.apply`, the state layer).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec

from bb7.edits import Applied, Candidate, LineIndex, locate, replace
from bb7.files.fileid import file_id
from bb7.files.fsio import MAX_BYTES, too_large
from bb7.files.paths import PathProblem, project_path
from bb7.formats import editorconfig
from bb7.formats.anchored import apply_anchored
from bb7.formats.arguments import ArgumentError
from bb7.formats.calls import AnchoredOp, Call, Op, ReplaceOp, WriteOp, op_paths, read_calls
from bb7.formats.modes import DEFAULT_MODE, DiffMode
from bb7.formats.response import Response, parse_response

BOM = "\ufeff"
BaseKind = Literal["snapshot", "pending_output", "disk"]
_BASE_NAMES = {
    "snapshot": "the context snapshot",
    "pending_output": "the pending output",
    "disk": "the file on disk",
}


class FileState(msgspec.Struct, frozen=True, kw_only=True):
    """The base version of one path before the response.

    `content` None: the file does not exist. `problem`: why it cannot be edited as text
    (binary, too large...); every edit or write of it then fails with that message.
    """

    content: str | None
    base: BaseKind = "snapshot"
    writable: bool = True
    problem: str | None = None


class ApplyError(msgspec.Struct, frozen=True, kw_only=True):
    """One failed call or edit. `block`: 1-based position of the tool call or text block in the
    response; `edit`: 1-based edit (or anchored change) inside it; `line`: the block's first line
    in the response text. `message` is written for the model."""

    block: int | None
    edit: int | None
    path: str
    kind: str
    message: str
    best: Candidate | None = None
    line: int | None = None


def describe_error(error: ApplyError) -> str:
    """One line for a person: where (block, edit, line, path), the kind, then the message."""
    where = []
    if error.block is not None:
        where.append(f"block {error.block}")
    if error.edit is not None:
        where.append(f"edit {error.edit}")
    if error.line is not None:
        where.append(f"line {error.line}")
    if error.path:
        where.append(error.path)
    head = ", ".join(where) or "response"
    return f"{head} [{error.kind}]: {error.message}"


class EditRecord(msgspec.Struct, frozen=True, kw_only=True):
    """How one edit landed (lines are 1-based in the content the edit was applied to)."""

    block: int | None
    edit: int | None
    strategy: str
    start_line: int
    end_line: int
    count: int = 1


class FileChange(msgspec.Struct, frozen=True, kw_only=True):
    """A path's new content. `before` is its base content (None for an added file)."""

    path: str
    status: Literal["modified", "added"]
    before: str | None
    content: str
    file_id: str
    edits: list[EditRecord]


class CallSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One call as sent, and whether all of it applied."""

    block: int | None
    kind: str
    raw: str
    ok: bool
    line: int | None = None


class Choice(msgspec.Struct, frozen=True, kw_only=True):
    """An edit whose old text matches several places of `path` with nothing in the answer to
    tell them apart: the user chooses one (`bb7.state.choices`), or refuses it. `places` are
    where it matched in the content it was tried on; `message` the engine's refusal, for the
    model when the edit ends refused."""

    path: str
    block: int | None
    edit: int | None
    old: str
    new: str
    whole_lines: bool = False
    places: list[Candidate]
    message: str


class Result(msgspec.Struct, frozen=True, kw_only=True):
    """`files`: the new contents, only when `ok`. `partial`: contents after the edits that did
    succeed (equal to `files` when ok), for repair flows. `base_ids`: the file_id of each touched
    path's base version. `choices`: the edits waiting for the user's choice of place (only when
    ok, and asked for)."""

    ok: bool
    mode: str
    files: list[FileChange]
    errors: list[ApplyError]
    calls: list[CallSummary]
    partial: list[FileChange]
    base_ids: dict[str, str] = {}
    notes: list[str] = []
    choices: list[Choice] = []


def resolve_path(root: Path, raw: str) -> str | PathProblem:
    """The project path a model means by `raw`: `bb7.files.paths.project_path` after reading
    backslashes as separators, and refusing what only makes sense elsewhere (a NUL byte, a
    home directory `~`, a Windows drive or share)."""
    if "\0" in raw:
        return PathProblem("empty", f"{raw!r} contains a NUL byte, which no path can hold")
    path = raw.strip().replace("\\", "/")
    if path.startswith("~"):
        return PathProblem("outside_root", f"{raw} is in a home directory, outside the project")
    if _DRIVE.match(path) or raw.strip().startswith("\\\\"):
        return PathProblem("outside_root", f"{raw} is a Windows path outside the project")
    return project_path(root, path)


_DRIVE = re.compile(r"[A-Za-z]:/")


def response_paths(response: str | Response, mode: DiffMode = DEFAULT_MODE) -> list[str]:
    """The paths a response names, as sent (for callers that load files before applying)."""
    parsed = parse_response(response) if isinstance(response, str) else response
    if isinstance(parsed, ArgumentError):
        return []
    return op_paths(read_calls(parsed, mode))


def apply_response(
    files: Mapping[str, FileState],
    response: str | Response,
    mode: DiffMode = DEFAULT_MODE,
    *,
    root: Path,
    require_file_id: bool = False,
    choices: bool = False,
) -> Result:
    """Apply every call of `response` to `files`; see the module docstring for the rules.

    `require_file_id`: an edit of an existing file without file_id fails (for tool calls in a
    chat, where the model was shown the ids; pasted responses and text blocks carry none).
    `choices`: an ambiguous edit waits for the user's choice instead of failing the answer,
    when nothing else fails.
    """
    parsed = parse_response(response) if isinstance(response, str) else response
    if isinstance(parsed, ArgumentError):
        error = ApplyError(block=None, edit=None, path="", kind=parsed.kind, message=parsed.message)
        raw = response if isinstance(response, str) else ""
        summary = CallSummary(block=None, kind="response", raw=raw, ok=False)
        return Result(ok=False, mode=mode, files=[], errors=[error], calls=[summary], partial=[])
    run = _Run(files, Path(root), mode, require_file_id)
    run.allow_choices = choices
    summaries = [run.call(call) for call in read_calls(parsed, mode)]
    changes = run.changes()
    for change in changes:  # what bb7 writes it must be able to read back (and undo)
        size = len(change.content.encode("utf-8"))
        if size > MAX_BYTES:
            message = f"{too_large(f'The new text of {change.path}', size)}. Keep it smaller."
            run.errors.append(
                ApplyError(
                    block=None, edit=None, path=change.path, kind="too_large", message=message
                )
            )
    ok = not run.errors
    if not ok:
        run.choices_failed(summaries)
    return Result(
        ok=ok,
        mode=mode,
        files=changes if ok else [],
        errors=run.errors,
        calls=summaries,
        partial=changes,
        base_ids=run.base_ids(),
        notes=run.notes,
        choices=run.choices if ok else [],
    )


@dataclass
class _Track:
    """One path during the run."""

    path: str
    state: FileState
    content: str | None
    written: bool = False  # by write_file
    edited: bool = False  # by edit_file or a text block
    failed: bool = False  # an earlier operation on it failed
    choosing: bool = False  # an earlier edit of it waits for a choice of place
    edits: list[EditRecord] = field(default_factory=list)
    shifts: list[tuple[int, int]] = field(default_factory=list)  # (line, lines added) per edit
    index: LineIndex | None = None  # of `content` without its BOM, reused while it is current
    tab_width: int | None = None  # from .editorconfig, read with the first edit (0: none)

    def line_index(self) -> LineIndex:
        """The line index of the current content, built once per content: edits that fail or
        change nothing leave it in place for the next edit."""
        body = (self.content or "").removeprefix(BOM)
        if self.index is None or self.index.content != body:
            self.index = LineIndex(body)
        return self.index

    def current_id(self) -> str | None:
        return None if self.content is None else file_id(self.path, self.content)

    def record(self, call: Call, edit: int | None, outcome: Applied) -> None:
        """Take an applied edit's content and remember how it landed."""
        self.content, self.edited = outcome.content, True
        self.edits.append(
            EditRecord(
                block=call.block,
                edit=edit,
                strategy=outcome.strategy,
                start_line=outcome.start_line,
                end_line=outcome.end_line,
                count=outcome.count,
            )
        )

    def base_name(self) -> str:
        if self.written or self.edited:
            return "its content after the earlier calls of this response"
        return _BASE_NAMES[self.state.base]


class _Run:
    """Mutable bookkeeping of one apply_response call."""

    def __init__(
        self, files: Mapping[str, FileState], root: Path, mode: DiffMode, require_id: bool
    ) -> None:
        self.files, self.root, self.require_id = files, root, require_id
        # Edits are numbered inside calls that carry a list of them.
        self.numbered = mode == "search_replace_multi"
        self.tracks: dict[str, _Track] = {}
        self.errors: list[ApplyError] = []
        self.notes: list[str] = []
        self.allow_choices = False
        # Each choice with the number of errors before it: where its error goes if the answer
        # fails for another reason.
        self.choices: list[Choice] = []
        self._choice_at: list[int] = []

    def choices_failed(self, summaries: list[CallSummary]) -> None:
        """The answer fails for another reason: its choices fail as the ambiguities they are,
        each error at its place among the others, and their calls as not applied."""
        for choice, at in reversed(list(zip(self.choices, self._choice_at, strict=True))):
            error = ApplyError(
                block=choice.block,
                edit=choice.edit,
                path=choice.path,
                kind="ambiguous",
                message=choice.message,
                best=choice.places[0],
                line=next((s.line for s in summaries if s.block == choice.block), None),
            )
            self.errors.insert(at, error)
        for k, summary in enumerate(summaries):
            if summary.ok and any(c.block == summary.block for c in self.choices):
                summaries[k] = msgspec.structs.replace(summary, ok=False)
        self.choices = []

    def call(self, call: Call) -> CallSummary:
        before = len(self.errors)
        if call.error is not None:
            self._fail(call, None, call.error.path, call.error.kind, call.error.message)
        starts: dict[str, tuple[str | None, str]] = {}  # path -> (id, which version)
        numbered = self.numbered and call.kind == "edit_file"
        for number, op in enumerate(call.ops, 1):
            self._op(call, number if numbered else None, op, starts)
        ok = len(self.errors) == before
        return CallSummary(block=call.block, kind=call.kind, raw=call.raw, ok=ok, line=call.line)

    def changes(self) -> list[FileChange]:
        out: list[FileChange] = []
        for track in self.tracks.values():
            before = track.state.content
            if track.content is None or track.content == before:
                continue
            out.append(
                FileChange(
                    path=track.path,
                    status="added" if before is None else "modified",
                    before=before,
                    content=track.content,
                    file_id=file_id(track.path, track.content),
                    edits=track.edits,
                )
            )
        return out

    def base_ids(self) -> dict[str, str]:
        return {
            t.path: file_id(t.path, t.state.content)
            for t in self.tracks.values()
            if t.state.content is not None
        }

    # --- one operation -------------------------------------------------------------------

    def _op(
        self, call: Call, edit: int | None, op: Op, starts: dict[str, tuple[str | None, str]]
    ) -> None:
        resolved = resolve_path(self.root, op.path)
        if isinstance(resolved, PathProblem):
            self._fail(
                call, edit, op.path, _PATH_KINDS.get(resolved.kind, "invalid"), _path_msg(resolved)
            )
            return
        track = self.tracks.get(resolved)
        if track is None:
            state = self.files.get(resolved) or FileState(content=None)
            track = self.tracks[resolved] = _Track(resolved, state, state.content)
        # file_ids name the version the call started from, however often the call edits it.
        starts.setdefault(resolved, (track.current_id(), track.base_name()))
        problem = self._refusal(track, op)
        if problem is not None:
            self._fail(call, edit, resolved, *problem)
            track.failed = True
            return
        if isinstance(op, WriteOp):
            track.content, track.written = _like(track.content, op.content), True
            lines = op.content.count("\n") + (0 if op.content.endswith("\n") else 1)
            track.edits.append(
                EditRecord(
                    block=call.block, edit=edit, strategy="write_file", start_line=1, end_line=lines
                )
            )
            return
        mismatch = self._check_id(track, op, *starts[resolved])
        if mismatch is not None:
            self._fail(call, edit, resolved, *mismatch)
            track.failed = True
            return
        if isinstance(op, ReplaceOp):
            self._replace(call, edit, track, op)
        else:
            self._anchored(call, track, op)

    def _refusal(self, track: _Track, op: Op) -> tuple[str, str] | None:
        path = track.path
        if track.state.problem is not None:
            return "unreadable", f"{path} cannot be edited: {track.state.problem}."
        if not track.state.writable:
            return (
                "read_only",
                f"{path} is read-only in this chat, so it cannot be changed. Describe the "
                "change in your answer instead, or ask the user to make the file writable.",
            )
        if track.content is None:
            clash = self._clash(path)
            if clash is not None:
                return (
                    "path_conflict",
                    f"{path} cannot be created: {clash} is a file, and a path cannot be both a "
                    "file and a directory. Check the paths.",
                )
        if isinstance(op, WriteOp):
            if track.written:
                return (
                    "duplicate_write",
                    f"write_file was called twice for {path}. Send one write_file per path, "
                    "with the complete final content.",
                )
            if track.edited:
                return _conflict(path)
            return None
        if track.written:
            return _conflict(path)
        if track.content is None and _needs_content(op):
            return (
                "missing_file",
                f"{path} does not exist, so there is nothing to edit. Create it with write_file "
                "(or an empty old_string / empty EDIT section), or check the path.",
            )
        return None

    def _clash(self, path: str) -> str | None:
        """A file (existing or created by this response) that is `path`'s ancestor or below it."""
        files = [p for p, t in self.tracks.items() if t.content is not None]
        files += [p for p, state in self.files.items() if state.content is not None]
        for other in files:
            if other.startswith(path + "/") or path.startswith(other + "/"):
                return other
        return None

    def _check_id(
        self, track: _Track, op: ReplaceOp | AnchoredOp, expected: str | None, version: str
    ) -> tuple[str, str] | None:
        if expected is None:
            return None  # a new file: there is no version to name
        if not op.file_id:
            if not self.require_id:
                return None
            return (
                "file_id_missing",
                f"The edit of {track.path} has no file_id. Add file_id {expected} (the id of "
                f"{version}) to every edit of this path.",
            )
        if op.file_id.strip().lower() == expected:
            return None
        return (
            "file_id_mismatch",
            f"file_id {op.file_id} does not match {track.path}: this call edits "
            f"{version}, whose id is {expected}. Copy old_string from that version "
            f"and send file_id {expected}.",
        )

    def _replace(self, call: Call, edit: int | None, track: _Track, op: ReplaceOp) -> None:
        content = track.content or ""
        hint = _shifted(op.start_line, track.shifts)
        if op.old and op.old == op.new:
            # A block that changes nothing is skipped once it is found; one that matches
            # nothing still fails (the model's picture of the file is wrong).
            outcome = locate(
                content, op.old, start_line=hint, index=track.line_index(), path=track.path
            )
            if isinstance(outcome, Applied):
                track.record(call, edit, outcome)
                self.notes.append(
                    f"{_where(call, edit)}{track.path}: skipped an edit whose new text equals its "
                    f"old text (lines {outcome.start_line}-{outcome.end_line}); it changes nothing"
                )
                return
        else:
            outcome = replace(
                content,
                op.old,
                op.new,
                replace_all=op.replace_all,
                start_line=hint,
                index=track.line_index(),
                path=track.path,
                whole_lines=op.whole_lines,
                tab_width=self._tab_width(track),
            )
        if not isinstance(outcome, Applied):
            if self.allow_choices and len(outcome.places) > 1 and not op.replace_all:
                self._choosing(call, edit, track, op, outcome.places, outcome.message)
                return
            message = outcome.message
            if outcome.kind == "not_found" and op.new.strip() and op.new in content:
                message += _ALREADY
            if track.failed or track.choosing:
                message += _DEPENDS
            self._fail(call, edit, track.path, outcome.kind, message, outcome.best)
            track.failed = True
            return
        track.shifts.append(
            (outcome.start_line, _line_count(outcome.content) - _line_count(content))
        )
        track.record(call, edit, outcome)

    def _choosing(
        self,
        call: Call,
        edit: int | None,
        track: _Track,
        op: ReplaceOp,
        places: tuple[Candidate, ...],
        message: str,
    ) -> None:
        """An edit that matches several places: it waits for the user's choice, and the
        content goes on without it."""
        self._choice_at.append(len(self.errors))
        self.choices.append(
            Choice(
                path=track.path,
                block=call.block,
                edit=edit,
                old=op.old,
                new=op.new,
                whole_lines=op.whole_lines,
                places=list(places),
                message=message,
            )
        )
        track.choosing = True

    def _tab_width(self, track: _Track) -> int | None:
        if track.tab_width is None:  # 0: read, and nothing set
            track.tab_width = editorconfig.tab_width(self.root, track.path) or 0
        return track.tab_width or None

    def _anchored(self, call: Call, track: _Track, op: AnchoredOp) -> None:
        outcome = apply_anchored(track.content or "", op.changes)
        if not isinstance(outcome, Applied):
            for error in outcome:
                self._fail(call, error.change, track.path, error.kind, error.message, error.best)
            track.failed = True
            return
        track.record(call, None, outcome)

    def _fail(
        self,
        call: Call,
        edit: int | None,
        path: str,
        kind: str,
        message: str,
        best: Candidate | None = None,
    ) -> None:
        self.errors.append(
            ApplyError(
                block=call.block,
                edit=edit,
                path=path,
                kind=kind,
                message=message,
                best=best,
                line=call.line,
            )
        )


_PATH_KINDS = {"outside_root": "path_escape", "protected": "protected_path", "empty": "invalid"}
_DEPENDS = " (An earlier edit of this path in this response failed too; this one may depend on it.)"
_ALREADY = (
    " (new_string is already in the file: this edit may have been applied before; if so, "
    "leave it out.)"
)


def _where(call: Call, edit: int | None) -> str:
    """`block 2, edit 1: ` (whatever of the two is known), to start a note."""
    parts = [f"block {call.block}"] if call.block is not None else []
    if edit is not None:
        parts.append(f"edit {edit}")
    return ", ".join(parts) + ": " if parts else ""


def _path_msg(problem: PathProblem) -> str:
    return (
        f"{problem.message}. bb7 only changes files inside the project, outside .git/ and "
        ".bb7/: use the project-relative path shown in the file's header."
    )


def _conflict(path: str) -> tuple[str, str]:
    return (
        "write_edit_conflict",
        f"{path} is changed by both write_file and edit_file in this response. Use one: "
        "write_file with the complete final content, or edit_file edits only.",
    )


def _like(previous: str | None, content: str) -> str:
    """A rewrite keeps the file's line endings and BOM: the model sees neither."""
    if not previous:
        return content
    if previous.startswith(BOM) and not content.startswith(BOM):
        content = BOM + content
    if LineIndex(previous).eol == "\r\n" and "\r\n" not in content:
        content = content.replace("\n", "\r\n")
    return content


def _needs_content(op: Op) -> bool:
    return isinstance(op, AnchoredOp) or (isinstance(op, ReplaceOp) and bool(op.old))


def _shifted(hint: int | None, shifts: list[tuple[int, int]]) -> int | None:
    """A start_line hint moved by the lines earlier edits added or removed above it."""
    if hint is None:
        return None
    return max(1, hint + sum(delta for line, delta in shifts if line < hint))


def _line_count(text: str) -> int:
    return text.count("\n")
