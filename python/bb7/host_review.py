"""Host handlers for the inline review and the editor's merge: `review`, `review_accept`,
`review_reject` and `merge`. Each decodes, calls the core (`bb7.state.review`,
`bb7.state.merge`), and answers with the hunks left for `lua/bb7/review.lua` to draw.

An accepted hunk or a merge goes into the file's loaded buffer (`bb7.buffer.put` in Lua: one
undoable change, never written to disk) inside the core's transaction, so a buffer that changed
meanwhile undoes the whole action.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

import msgspec

from bb7.editor_text import to_lines
from bb7.host_registry import Context, Registry
from bb7.host_session import Session
from bb7.host_state import on_file
from bb7.protocol import BufferText, PathArgs
from bb7.review import Hunk
from bb7.state.merge import describe_lines, merge_output
from bb7.state.records import Problem
from bb7.state.review import Reviewed, accept_hunks, current, reject_hunks

T = TypeVar("T")

# Lua that puts text into a loaded buffer without writing it; returns nil, or why it could not.
PUT = "return require('bb7.buffer').put(...)"


class ReviewActArgs(msgspec.Struct, frozen=True):
    """`review_accept` / `review_reject`: the hunk the editor drew under the cursor, or `all`."""

    path: str
    buffers: list[BufferText] = []
    hunk: Hunk | None = None
    all: bool = False


class ReviewReply(msgspec.Struct, frozen=True, omit_defaults=True):
    """The hunks to draw over the buffer of `path` (absolute); none: nothing is pending."""

    path: str
    hunks: list[Hunk]
    message: str | None = None


class MergeReply(msgspec.Struct, frozen=True):
    """`merge`: `overlaps` (1-based first, last local lines) stay pending for the review."""

    path: str
    overlaps: list[tuple[int, int]]
    message: str


def _put(ctx: Context, args: PathArgs | ReviewActArgs) -> Callable[[str], None]:
    """The core's `put` hook: the new text into the file's loaded buffer, or OSError."""
    buffer = next((b for b in args.buffers if b.buf and b.path == args.path), None)

    def put(text: str) -> None:
        if buffer is None:
            raise OSError(f"{args.path} is not loaded in a buffer")
        content = to_lines(text)
        problem = ctx.lua(PUT, buffer.buf, buffer.changedtick, content.lines, content.eol)
        if problem:
            raise OSError(problem)

    return put


def _reply(path: str, done: Reviewed | Problem) -> ReviewReply | Problem:
    if isinstance(done, Problem):
        return done
    return ReviewReply(path=path, hunks=done.hunks)


def review(session: Session, ctx: Context, args: PathArgs) -> ReviewReply | Problem:
    """The hunks of the pending change of `args.path` over its buffer text."""
    done = on_file(session, ctx, args, current)
    return _reply(args.path, done)


def review_accept(session: Session, ctx: Context, args: ReviewActArgs) -> ReviewReply | Problem:
    chosen = None if args.all or args.hunk is None else [args.hunk]
    done = on_file(
        session,
        ctx,
        args,
        lambda store, chat_id, path, buffers: accept_hunks(
            store, chat_id, path, chosen, buffers, _put(ctx, args)
        ),
    )
    return _reply(args.path, done)


def review_reject(session: Session, ctx: Context, args: ReviewActArgs) -> ReviewReply | Problem:
    chosen = None if args.all or args.hunk is None else [args.hunk]
    done = on_file(
        session,
        ctx,
        args,
        lambda store, chat_id, path, buffers: reject_hunks(store, chat_id, path, chosen, buffers),
    )
    return _reply(args.path, done)


def merge(session: Session, ctx: Context, args: PathArgs) -> MergeReply | Problem:
    """`:BB7Merge`: the three-way merge into the buffer; overlaps stay pending."""
    done = on_file(
        session,
        ctx,
        args,
        lambda store, chat_id, path, buffers: merge_output(
            store, chat_id, path, buffers, _put(ctx, args)
        ),
    )
    if isinstance(done, Problem):
        return done
    name = session.shown(args.path)
    if done.overlaps:
        lines = describe_lines(done.overlaps)
        message = (
            f"{name}: merged, except lines {lines}: your edits and the model's change the same "
            "lines there; they stay pending (review them here)"
        )
    else:
        message = f"{name}: merged into the buffer (u undoes it, :w writes it)"
    return MergeReply(path=args.path, overlaps=done.overlaps, message=message)


def register(registry: Registry, session: Session) -> None:
    """Add the review's requests to the host's table."""

    def request(name: str, args_type: type[T], fn: Callable[[Session, Context, T], object]) -> None:
        registry.request(name, args_type, functools.partial(fn, session))

    request("review", PathArgs, review)
    request("review_accept", ReviewActArgs, review_accept)
    request("review_reject", ReviewActArgs, review_reject)
    request("merge", PathArgs, merge)
