"""The records bb7 stores per chat: msgspec Structs, shared by the store, the host and the CLI.

Only shapes live here; reading and writing them is `bb7.state.store`'s job.
"""

from __future__ import annotations

from typing import Literal, TypeVar

import msgspec

from bb7.files.fileid import entry_file_id

# Context entry kinds. A full file is `writable` or `readonly`; a `section` is a read-only line
# range of a project file; an `external` file lives outside the project (absolute path, read-only);
# an `image` (PNG, JPEG, GIF, WebP) is stored as its data URL and shown to the model as an image.
# `diagnostics`, `diff` and `terminal` are live parts (`bb7.live`): the editor's state or git's,
# read again at each send, stored under their name (`@diff --staged`) instead of a path.
EntryKind = Literal[
    "writable", "readonly", "section", "external", "image", "diagnostics", "diff", "terminal"
]
WRITABLE: EntryKind = "writable"
READONLY: EntryKind = "readonly"
SECTION: EntryKind = "section"
EXTERNAL: EntryKind = "external"
IMAGE: EntryKind = "image"

# How a request shows an entry: a file of the project, lines of one (`lines=START-END`), a file
# outside the project (`external`), an image part, or a read-only text under its name (a live
# part).
SentAs = Literal["file", "section", "external", "image", "part"]
# The status an entry shows while the user's copy matches it (see `bb7.state.status`).
InSync = Literal["", "R", "S"]


class KindFacts(msgspec.Struct, frozen=True, kw_only=True):
    """What bb7 does with one kind of context entry; the code asks these facts, never the
    kind's name, so a new kind is a row of `ENTRY_KINDS` and the code that reads it.

    `writable`: the model's changes to it become pending outputs the user applies.
    `toggles`: the user switches it between writable and read-only.
    `whole_file`: it holds the whole text of the file at its path, so the model's edits of
    that path start from it (a section or a part is a quote: an edit of it is refused).
    `of_file`: its path names a file (a live part's is its name): fork warnings, moves between
    stores and the file's buffer read it.
    `sent_as`: how a request shows it. `follows_edits`: a send brings it up to date with the
    user's copy first (a live part: reads it again). `in_sync`: its status while the user's
    copy matches it. `drifts`: its status says `~` when the user's copy differs (a section is a
    quote of the file as it was: never), and `:BB7Update` re-reads it.
    """

    writable: bool
    toggles: bool
    whole_file: bool
    of_file: bool
    sent_as: SentAs
    follows_edits: bool
    in_sync: InSync
    drifts: bool


ENTRY_KINDS: dict[EntryKind, KindFacts] = {
    WRITABLE: KindFacts(
        writable=True, toggles=True, whole_file=True, of_file=True, sent_as="file",
        follows_edits=True, in_sync="", drifts=True,
    ),
    READONLY: KindFacts(
        writable=False, toggles=True, whole_file=True, of_file=True, sent_as="file",
        follows_edits=True, in_sync="R", drifts=True,
    ),
    SECTION: KindFacts(
        writable=False, toggles=False, whole_file=False, of_file=True, sent_as="section",
        follows_edits=True, in_sync="S", drifts=False,
    ),
    EXTERNAL: KindFacts(
        writable=False, toggles=False, whole_file=True, of_file=True, sent_as="external",
        follows_edits=True, in_sync="R", drifts=True,
    ),
    # A picture as it was added (a screenshot does not change under the chat).
    IMAGE: KindFacts(
        writable=False, toggles=False, whole_file=False, of_file=True, sent_as="image",
        follows_edits=False, in_sync="R", drifts=False,
    ),
    **{
        kind: KindFacts(
            writable=False, toggles=False, whole_file=False, of_file=False, sent_as="part",
            follows_edits=True, in_sync="R", drifts=False,
        )
        for kind in ("diagnostics", "diff", "terminal")
    },
}  # fmt: skip

S = TypeVar("S", bound=msgspec.Struct)


def _copy(cls: type[S], source: msgspec.Struct) -> S:
    """A `cls` with the fields it shares with `source` (the others at their defaults): one
    way to turn an entry into its snapshot ref and back, so a new field is never forgotten."""
    return cls(**{f: getattr(source, f) for f in cls.__struct_fields__ if hasattr(source, f)})


Scope = Literal["project", "global"]
PROJECT: Scope = "project"
GLOBAL: Scope = "global"

EventAction = Literal[
    "user_added",
    "user_removed",
    "user_updated",
    "user_set_readonly",
    "user_applied",
    "user_partially_applied",
    "user_discarded",
    "user_accepted_hunk",  # lines of `file_id` the user took as proposed
    "user_amended_hunk",  # lines of `file_id` the user took with changes (`diff`)
    "user_rejected_hunk",  # lines of `file_id` the user dropped from a pending change
    "user_refused_edit",  # an edit matching several places, refused without choosing one
    "user_undid_apply",
    "assistant_wrote",
    "agent_wrote_disk",  # an agent changed the file on disk itself: an apply to review or undo
    "agent_deleted_disk",  # an agent deleted the file itself: its text before is pending again
    "fork_warning_modified",
    "fork_warning_deleted",
]
# What a restored snapshot found on disk (fork, edit-message, new chat with context).
WarningIssue = Literal["modified", "deleted"]


class Chat(msgspec.Struct, kw_only=True):
    """One conversation. `scope` says which database holds it (project or global)."""

    id: str
    name: str
    created: float
    updated: float
    model: str = ""
    reasoning_effort: str = ""
    draft: str = ""
    pinned: bool = False
    # Text the next request carries after a failed edit, so a repair survives a restart.
    retry_context: str = ""
    scope: Scope = PROJECT
    # The agent this chat talks to (`:BB7Agent`, `bb7 agent`); '' for a chat with the model.
    agent: str = ""


class Event(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A change to the chat's files, shown in the history and sent to the model. Built with
    the constructors below, one per action, so every event of a kind carries the same fields."""

    action: EventAction
    path: str
    file_id: str = ""
    prev_file_id: str = ""
    blob: str = ""
    start_line: int = 0
    end_line: int = 0
    readonly: bool = False
    added: bool = False
    # An update made at a send, to follow the user's edits (not asked for by hand).
    followed: bool = False
    reason: str = ""  # why the user rejected a hunk (one line; empty: not said)
    # An amended hunk: `-` the proposed lines, `+` those taken instead; a rejected one: `-` the
    # lines kept, `+` the proposed ones.
    diff: str = ""

    @classmethod
    def added_entry(cls, entry: ContextEntry) -> Event:
        return cls(
            action="user_added",
            path=entry.path,
            file_id=entry.file_id,
            blob=entry.blob,
            start_line=entry.start_line,
            end_line=entry.end_line,
            readonly=entry.readonly,
        )

    @classmethod
    def removed(cls, entry: ContextEntry) -> Event:
        return cls(
            action="user_removed",
            path=entry.path,
            file_id=entry.file_id,
            start_line=entry.start_line,
            end_line=entry.end_line,
        )

    @classmethod
    def updated(cls, old: ContextEntry, new: ContextEntry, *, followed: bool = False) -> Event:
        """The user's copy replaced the snapshot: by hand, or `followed` at a send."""
        return cls(
            action="user_updated",
            path=old.path,
            file_id=new.file_id,
            prev_file_id=old.file_id,
            blob=new.blob,
            start_line=old.start_line,
            end_line=old.end_line,
            followed=followed,
        )

    @classmethod
    def set_readonly(cls, entry: ContextEntry, readonly: bool) -> Event:
        return cls(
            action="user_set_readonly", path=entry.path, file_id=entry.file_id, readonly=readonly
        )

    @classmethod
    def applied(
        cls, new: ContextEntry, prev: ContextEntry | None, *, partly: bool = False
    ) -> Event:
        """The user applied (all of, or with `partly` some of) a pending output: `new` is the
        entry it became."""
        return cls(
            action="user_partially_applied" if partly else "user_applied",
            path=new.path,
            file_id=new.file_id,
            prev_file_id="" if prev is None else prev.file_id,
            blob=new.blob,
            added=prev is None,
        )

    @classmethod
    def discarded(cls, output: PendingOutput) -> Event:
        return cls(
            action="user_discarded",
            path=output.path,
            file_id=output.file_id,
            prev_file_id=output.base_file_id,
            blob=output.blob,
            added=output.added,
        )

    @classmethod
    def rejected_hunk(
        cls, path: str, file_id: str, start: int, end: int, change: str, reason: str = ""
    ) -> Event:
        """The user rejected one hunk of a pending output: lines start..end of the version
        `file_id` (the model's, or for a deletion the snapshot's), the hunk's `change` (`-`
        the lines kept, `+` the model's), for `reason` if given."""
        return cls(
            action="user_rejected_hunk",
            path=path,
            file_id=file_id,
            start_line=start,
            end_line=end,
            reason=reason,
            diff=change,
        )

    @classmethod
    def refused_edit(
        cls, path: str, file_id: str, lines: tuple[int, int], change: str, reason: str = ""
    ) -> Event:
        """The user refused an edit whose old text matched several places of the pending
        version `file_id` (`lines`: the first of them, (0, 0) when none is left), choosing
        none: its `change` (`-` the old text, `+` the new), for `reason` if given."""
        return cls(
            action="user_refused_edit",
            path=path,
            file_id=file_id,
            start_line=lines[0],
            end_line=lines[1],
            reason=reason,
            diff=change,
        )

    @classmethod
    def taken_hunk(cls, path: str, file_id: str, start: int, end: int, diff: str = "") -> Event:
        """The user took one hunk of a pending output (lines as in `rejected_hunk`): as
        proposed, or amended when `diff` says how."""
        return cls(
            action="user_amended_hunk" if diff else "user_accepted_hunk",
            path=path,
            file_id=file_id,
            start_line=start,
            end_line=end,
            diff=diff,
        )

    @classmethod
    def undid_apply(cls, output: PendingOutput) -> Event:
        """The user undid an apply: `output` is pending again."""
        return cls(action="user_undid_apply", path=output.path, file_id=output.file_id)

    @classmethod
    def wrote(cls, output: PendingOutput) -> Event:
        """The model wrote `output` (pending, or reverting to the snapshot)."""
        return cls(
            action="assistant_wrote",
            path=output.path,
            file_id=output.file_id,
            prev_file_id=output.base_file_id,
            blob=output.blob,
            added=output.added,
        )

    @classmethod
    def agent_wrote(cls, entry: ContextEntry, prev: ContextEntry | None) -> Event:
        """An agent wrote the file on disk itself during its turn: `entry` is the snapshot of
        what it wrote (an apply the user reviews or undoes), `prev` the file before the turn."""
        return cls(
            action="agent_wrote_disk",
            path=entry.path,
            file_id=entry.file_id,
            prev_file_id="" if prev is None else prev.file_id,
            blob=entry.blob,
            added=prev is None,
        )

    @classmethod
    def agent_deleted(cls, output: PendingOutput) -> Event:
        """An agent deleted the file itself: its text from before the turn is `output`, a
        pending new file (applying it puts the file back)."""
        return cls(
            action="agent_deleted_disk", path=output.path, file_id=output.file_id, blob=output.blob
        )

    @classmethod
    def fork_warning(cls, path: str, issue: WarningIssue, file_id: str) -> Event:
        action: EventAction = (
            "fork_warning_modified" if issue == "modified" else "fork_warning_deleted"
        )
        return cls(action=action, path=path, file_id=file_id)


class TextPart(msgspec.Struct, tag="text"):
    text: str


class ReasoningPart(msgspec.Struct, tag="reasoning"):
    text: str


class EventPart(msgspec.Struct, tag="event"):
    event: Event


class ToolPart(msgspec.Struct, tag="tool", kw_only=True, omit_defaults=True):
    """A tool call an agent made, as it ended: its kind (`edit`, `read`, `execute`, ...),
    title and status (`completed`, `failed`, ...), and the unified diff of the file changes it
    showed (`diff`, '' when none)."""

    id: str
    kind: str
    title: str
    status: str
    diff: str = ""


class PlanItem(msgspec.Struct, kw_only=True, omit_defaults=True):
    content: str
    status: str  # pending, in_progress, completed
    priority: str = ""


class PlanPart(msgspec.Struct, tag="plan"):
    """An agent's plan as it stood at the end of its turn: a checklist."""

    entries: list[PlanItem]


# One check's outcome: it passed, failed (a non-zero exit), ran past its timeout, or could not
# run (not found, not executable).
CheckState = Literal["passed", "failed", "timed_out", "error"]


class CheckOutcome(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One check run on a pending change: how it ended, the end of what it printed
    (`output`, after `dropped` bytes left out), one line when it did not run to its end, and
    the pending paths it was run for (its `files` globs matched them)."""

    name: str
    state: CheckState
    exit_code: int | None = None
    seconds: float = 0.0
    output: str = ""
    dropped: int = 0
    message: str = ""
    files: list[str] = []


class CheckRun(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The project's checks run on a copy with the chat's pending outputs applied (`scope`:
    only that path's): the outcomes, which outputs were checked (`fingerprint` of their
    paths and versions), the answer that wrote them, where they ran (`isolation`: namespace,
    copy (confined by Landlock) or unconfined) and `fix_round` when bb7 itself asked for that
    answer (the Nth "make the checks pass")."""

    outcomes: list[CheckOutcome]
    fingerprint: str = ""
    paths: list[str] = []
    scope: str = ""
    answer: int = 0
    seconds: float = 0.0
    isolation: str = ""
    fix_round: int = 0


class CheckPart(msgspec.Struct, tag="check"):
    run: CheckRun


class SummaryPart(msgspec.Struct, tag="summary", kw_only=True):
    """What the model wrote of earlier messages (`:BB7Compact`): the next requests send it in
    their place. `covers` names them (excluded while the summary is not)."""

    text: str
    covers: list[int]


Part = TextPart | ReasoningPart | EventPart | ToolPart | PlanPart | CheckPart | SummaryPart


class Usage(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What one answer (or a send's requests together) took. `prompt_tokens` counts every
    input token, the `cached_tokens` read from and the `cache_write_tokens` written to the
    provider's prompt cache included; `cost` in USD; `saved`: USD the cache saved against the
    same tokens at full price (negative when writing the cache cost more than reading saved);
    `first_token`: seconds from sending to the first output; `duration`: to the end;
    `reasoning_effort`: the effort the request asked for ('' for the model's default)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float = 0.0
    saved: float = 0.0
    first_token: float = 0.0
    duration: float = 0.0
    reasoning_effort: str = ""


class SnapshotRef(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One context entry as it was when a user message was sent (content by blob hash)."""

    path: str
    kind: EntryKind
    blob: str
    file_id: str
    start_line: int = 0
    end_line: int = 0

    @classmethod
    def of(cls, entry: ContextEntry) -> SnapshotRef:
        return _copy(cls, entry)

    @property
    def facts(self) -> KindFacts:
        return ENTRY_KINDS[self.kind]

    def entry(self) -> ContextEntry:
        """The context entry this snapshot restores."""
        return _copy(ContextEntry, self)


class OutputRef(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One pending output as it was when a user message was sent."""

    path: str
    blob: str
    file_id: str = ""
    base_file_id: str = ""
    added: bool = False

    @classmethod
    def of(cls, output: PendingOutput) -> OutputRef:
        return _copy(cls, output)

    def output(self) -> PendingOutput:
        """The pending output this ref restores."""
        return _copy(PendingOutput, self)


class Message(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A chat message. Roles: user, assistant, system, `event` for a user's file action, and
    `check` for the project's checks run on a pending change (one `CheckPart`).

    User messages carry the context and pending outputs at send time, so fork and
    edit-message can restore the exact contents the model saw.
    """

    role: str
    parts: list[Part]
    id: int = 0
    seq: int = 0
    model: str = ""
    usage: Usage | None = None
    created: float = 0.0
    context_snapshot: list[SnapshotRef] = []
    outputs_snapshot: list[OutputRef] = []
    # Left out of future requests by the user (it stays in the chat); a fork keeps it.
    excluded: bool = False

    def text(self) -> str:
        """The message's visible text (text parts joined)."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    def summary(self) -> SummaryPart | None:
        """A summary message's summary (role `summary`), else None."""
        return next((p for p in self.parts if isinstance(p, SummaryPart)), None)


class ContextEntry(msgspec.Struct, kw_only=True):
    """A file (or section) in a chat's context with the snapshot the model sees.

    Entries are keyed by (path, start_line, end_line); whole files use 0, 0, so a full file
    and a section of the same path are separate entries.
    """

    path: str
    kind: EntryKind
    blob: str
    file_id: str
    start_line: int = 0
    end_line: int = 0
    # True when the entry came from applying a file the model created.
    added: bool = False

    @property
    def facts(self) -> KindFacts:
        return ENTRY_KINDS[self.kind]

    @property
    def readonly(self) -> bool:
        return not self.facts.writable

    @staticmethod
    def taken(path: str, blob: str, text: str, previous: ContextEntry | None) -> ContextEntry:
        """The writable whole-file entry once the user took the model's change (all or part of
        it): the snapshot `blob` holding `text`; a file the model created stays `added`."""
        return ContextEntry(
            path=path,
            kind=WRITABLE,
            blob=blob,
            file_id=entry_file_id(path, text),
            added=previous.added if previous is not None else True,
        )

    def label(self) -> str:
        """`path` or `path:start-end`, how users and messages name the entry."""
        if self.start_line:
            return f"{self.path}:{self.start_line}-{self.end_line}"
        return self.path


class PendingOutput(msgspec.Struct, kw_only=True):
    """A file the model wrote, waiting for the user to apply, merge or discard it."""

    path: str
    blob: str
    file_id: str
    base_file_id: str
    added: bool
    created: float = 0.0


class PendingChoice(msgspec.Struct, kw_only=True):
    """An edit of the model's answer to `path` whose old text matches several places, with
    nothing in the answer to tell them apart: the pending output goes on without it until the
    user takes one of its places (`bb7.state.choices`) or refuses it. Its places are found
    again on the pending output whenever they are shown. `block`/`edit` say where it was in
    the answer; `message` is the engine's refusal."""

    id: int = 0  # assigned by the store
    path: str
    old: str
    new: str
    whole_lines: bool = False
    block: int | None = None
    edit: int | None = None
    message: str = ""
    created: float = 0.0


class Lease(msgspec.Struct, kw_only=True):
    """Who has a chat open: one process per chat, renewed by heartbeats."""

    chat_id: str
    pid: int
    host: str
    heartbeat: float
    token: str
    started: str = ""  # the holder's `bb7.process.identity` ('' when unknown)


class UndoRecord(msgspec.Struct, kw_only=True):
    """What one apply replaced: the local file before it and the chat state before it."""

    id: int
    path: str
    prev_local: str | None  # blob of the file before the apply; None if it did not exist
    written: str  # blob the apply wrote
    prev_entry: ContextEntry | None
    prev_output: PendingOutput
    # An agent wrote the file itself (`prev_local` is the text before its turn): its hunks are
    # reviewed in place and undo merges the text before back over the user's later edits.
    by_agent: bool = False


class Intent(msgspec.Struct, kw_only=True):
    """An apply (or an undo of one) about to replace a file, committed before the file is
    touched: the user's text (`prev_local`) is then safe whatever happens to the process. It is
    deleted in the transaction that records the apply (or undo); one left behind names one that
    was killed."""

    chat_id: str
    path: str
    prev_local: str | None  # blob of the file before; None if it did not exist
    written: str | None  # blob written; None: the file is deleted (undoing its creation)
    prev_entry: ContextEntry | None
    prev_output: PendingOutput
    pid: int
    host: str
    id: int = 0
    undo: int | None = None  # the undo record an undo reverts; None for an apply
    started: str = ""  # the writer's `bb7.process.identity`: a reused pid is another process
