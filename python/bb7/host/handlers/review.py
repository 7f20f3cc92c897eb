"""The inline review and the editor's merge: `review`, `review_accept`, `review_reject` and
`merge`. Each resolves the file, calls the core (`bb7.state.review`, `bb7.state.merge`) and
answers with the hunks left for `lua/bb7/review.lua` to draw.

An accepted hunk or a merge goes into the file's loaded buffer (`bb7.buffer.put` in Lua: one
undoable change, never written to disk) inside the core's transaction, so a buffer that changed
meanwhile undoes the whole action.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bb7.host import editor
from bb7.host.editor import EditorBuffers
from bb7.host.handlers.project import publish, publishing
from bb7.host.needs import Held
from bb7.host.protocol import MergeReply, PathArgs, ReviewActArgs, ReviewReply
from bb7.refusal import unwrap
from bb7.state.local import Buffers, LocalText
from bb7.state.merge import merge_output
from bb7.state.review import accept_hunks, current, reject_hunks
from bb7.text.hunks import Hunk
from bb7.text.merge import describe_lines

# Lua that puts text into a loaded buffer without writing it; returns nil, or why it could not.
PUT = "return require('bb7.buffer').put(...)"


class _Putting:
    """The core's `put` hook: the new text into the file's loaded buffer, or OSError. Keeps
    the text it put, so the statuses published after are computed from it."""

    def __init__(self, h: Held, buffers: EditorBuffers, path: str) -> None:
        self.h, self.buffers, self.path = h, buffers, path
        self.text: str | None = None

    def __call__(self, text: str) -> None:
        buffer = self.buffers.loaded.get(self.path)
        if buffer is None:
            raise OSError("its buffer is not loaded")
        content = editor.to_lines(text)
        problem = self.h.ctx.lua(PUT, buffer.buf, buffer.changedtick, content.lines, content.eol)
        if problem:
            raise OSError(problem)
        self.text = text

    @contextmanager
    def publishing(self) -> Iterator[None]:
        """Publish the file's status after the block, from the buffer as it is then."""
        try:
            yield
        finally:
            text: Buffers = self.buffers.text
            if self.text is not None:
                text = {**text, self.path: LocalText(self.text)}
            publish(self.h, text, [self.path])


def _chosen(args: ReviewActArgs) -> list[Hunk] | None:
    return None if args.all or args.hunk is None else [args.hunk]


def review(h: Held, args: PathArgs) -> ReviewReply:
    """The hunks of the pending change of `args.path` over its buffer text."""
    path, buffers = h.path(args.path), h.buffers(args.buffers)
    with publishing(h, buffers.text, [path]):
        done = unwrap(current(h.store, h.chat.id, path, buffers.text))
    return ReviewReply(path=args.path, hunks=done.hunks)


def review_accept(h: Held, args: ReviewActArgs) -> ReviewReply:
    path, buffers = h.path(args.path), h.buffers(args.buffers)
    put = _Putting(h, buffers, path)
    with put.publishing():
        done = unwrap(
            accept_hunks(
                h.store, h.chat.id, path, _chosen(args), buffers.text, put, amended=args.amended
            )
        )
    return ReviewReply(path=args.path, hunks=done.hunks)


def review_reject(h: Held, args: ReviewActArgs) -> ReviewReply:
    """Reject hunks: of a pending change, out of it; of an agent's own write, its lines from
    before the turn back into the buffer."""
    path, buffers = h.path(args.path), h.buffers(args.buffers)
    put = _Putting(h, buffers, path)
    with put.publishing():
        done = unwrap(
            reject_hunks(
                h.store,
                h.chat.id,
                path,
                _chosen(args),
                buffers.text,
                reason=args.reason,
                put=put,
            )
        )
    return ReviewReply(path=args.path, hunks=done.hunks)


def merge(h: Held, args: PathArgs) -> MergeReply:
    """`:BB7Merge`: the three-way merge into the buffer; overlaps stay pending."""
    path, buffers = h.path(args.path), h.buffers(args.buffers)
    put = _Putting(h, buffers, path)
    with put.publishing():
        done = unwrap(merge_output(h.store, h.chat.id, path, buffers.text, put))
    name = h.shown(args.path)
    if done.overlaps:
        # One short line (it fits 80 columns); the review opens on those lines.
        message = f"{name}: merged, except {describe_lines(done.overlaps)}: both changed them"
    else:
        message = f"{name}: merged; u undoes it, :w writes it"
    return MergeReply(path=args.path, overlaps=done.overlaps, message=message)
