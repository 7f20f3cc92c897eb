"""The project a host serves (`open`, `init`) and the statuses of the active chat's files
(`statuses`, and `publish`, which every route that changes a file's status calls)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bb7.adding.project_files import project_files
from bb7.checks.verdict import Verdict, checks_now
from bb7.host.editor import shown
from bb7.host.needs import Call, Reading
from bb7.host.protocol import (
    BufferText,
    InitArgs,
    Notify,
    OpenArgs,
    Opened,
    Said,
    StatusChanged,
    StatusesArgs,
    StatusItem,
)
from bb7.host.session import Session
from bb7.refusal import Abort, Problem
from bb7.state.local import Buffers, LocalView
from bb7.state.review import pending_marks
from bb7.state.status import StatusRow, file_statuses
from bb7.state.store import Store


def publish(r: Reading, buffers: Buffers, paths: Collection[str] | None = None) -> None:
    """Emit `status_changed` for `paths` of the chat (every file, replacing Lua's cache, when
    None); paths no longer in the chat are sent as removed."""
    if paths is not None and not paths:
        return
    rows = file_statuses(r.store, r.chat.id, buffers, paths=paths)
    r.emit("status_changed", status_changed(r, rows, buffers, paths))


def status_changed(
    r: Reading,
    rows: Iterable[StatusRow],
    buffers: Buffers,
    paths: Collection[str] | None = None,
) -> StatusChanged:
    """What Lua's status cache gets for `rows`, the statuses of `paths` (every file when
    None); remembers what each status was computed from (for apply)."""
    store, chat_id, seen = r.store, r.chat.id, r.session.seen
    files: dict[str, StatusItem] = {}
    shown: set[str] = set()
    verdicts = verdicts_of(r.session, store, chat_id)
    for row in rows:
        if row.path in shown:
            continue  # a section of a file that is also whole: the whole file's status counts
        shown.add(row.path)
        marks = pending_marks(store, chat_id, row.path, buffers) if row.has_output else None
        verdict = verdicts.get(row.path)
        files[r.editor_path(row.path)] = StatusItem(
            row.status,
            [] if marks is None else marks.model,
            [] if marks is None else marks.user,
            check="" if verdict is None else verdict.word(),
            check_mark="" if verdict is None else verdict.mark(),
            choose=row.choose,
            agent=row.agent,
        )
        seen[row.path] = LocalView(row.local_hash, row.changedtick)
    removed = [r.editor_path(p) for p in paths or () if p not in shown]
    return StatusChanged(files=files, removed=removed, full=paths is None)


def verdicts_of(session: Session, store: Store, chat_id: str) -> dict[str, Verdict]:
    """The checks' verdict on each pending file's change, when the project has checks."""
    if not session.checks_declared():
        return {}
    now = checks_now(store, chat_id)
    return {} if now is None else now.files


def publish_all(c: Call, buffers: Iterable[BufferText] = ()) -> None:
    """Every status of the active chat (none without one)."""
    r = c.active()
    if r is None:
        c.emit("status_changed", StatusChanged(files={}, full=True))
        return
    publish(r, r.buffers(buffers).text)


def statuses(c: Call, args: StatusesArgs) -> int:
    """Recompute the statuses of the given buffers' files (all files with `all`)."""
    r = c.active()
    if r is None:
        if args.all:
            publish_all(c)
        return 0
    buffers = r.buffers(args.buffers)
    if args.all:
        publish(r, buffers.text)
        return len(args.buffers)
    publish(r, buffers.text, buffers.paths)
    return len(buffers.paths)


def open_project(c: Call, args: OpenArgs) -> Opened:
    c.session.open(Path(args.root), args.settings)
    for line in c.session.take_recovered():  # the lines the CLI prints on stderr, once
        c.emit("notify", Notify("warn", line))
    publish_all(c, args.buffers)
    if c.session.workspace is not None and c.session.root is not None:
        # The picker's first list of a big tree outside git then reads only what changed.
        c.ctx.spawn(warm_listing, c.session.root, name="list the project's files")
    r = c.active()
    return Opened(
        root=str(c.session.root),
        initialized=c.session.workspace is not None,
        chat=None if r is None else r.chat.id,
    )


def warm_listing(root: Path) -> None:
    project_files(root)


def init(c: Call, args: InitArgs) -> Said:
    root = Path(args.root)
    if not root.is_dir():
        raise Abort(Problem("invalid_root", f"{root} is not a directory"))
    if root.resolve() == Path.home().resolve():
        raise Abort(Problem("invalid_root", "refusing to use the home directory as a project root"))
    state = c.session.init(root)
    publish_all(c)
    return Said(f"project ready in {shown(None, str(root))} (its state in {state.name}/)")


@contextmanager
def publishing(r: Reading, buffers: Buffers, paths: Collection[str]) -> Iterator[None]:
    """Publish the statuses of `paths` after the block, whether it succeeded or was refused
    (a refusal may still have changed what the user should see, e.g. a changed file)."""
    try:
        yield
    finally:
        publish(r, buffers, paths)
