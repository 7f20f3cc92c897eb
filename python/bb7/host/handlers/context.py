"""The chat's context: add and remove files, sections or the clipboard's image, add live parts
(`add_part`, and `live_texts`, which reads them again at a send), re-snapshot files from the
editor (`update_file`, `update_all`), make them read-only or writable. Each publishes the
statuses of the files it touched."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bb7 import live
from bb7.adding import ask
from bb7.adding.expand import Expansion, expand, links_out_line
from bb7.files.clipboard import ClipboardProblem, clipboard_image
from bb7.files.images import SUFFIXES, Image, image_from_bytes
from bb7.host.handlers.project import publish, publishing
from bb7.host.needs import Held, Reading
from bb7.host.protocol import (
    AddPartArgs,
    AddPathsArgs,
    AddPlan,
    BuffersArgs,
    Choice,
    FileArgs,
    FileListArgs,
    Said,
    SetReadonlyArgs,
    Updated,
)
from bb7.refusal import Abort, Problem, advise, unwrap
from bb7.state import context
from bb7.state.records import ContextEntry
from bb7.text.tokens import estimate_tokens, format_tokens


def add_paths(h: Held, args: AddPathsArgs) -> AddPlan:
    """`:BB7Add` with its arguments: asks first (many files, a secret), else adds them all or
    none. The question's answer comes back as `args.answer`; the files are listed again."""
    found = unwrap(expand(args.specs, Path(args.cwd), h.store.root))
    if args.answer == "no_secrets":
        found = ask.without_secrets(found)
    elif not args.answer:
        question = ask.question(found, h.shown)
        if question is not None:
            choices = [Choice(action, label) for action, label in question.choices]
            return AddPlan(question=question.text, choices=choices)
    message = _add_found(h, args, found)
    left_out = links_out_line(found, h.shown)
    return AddPlan(message=f"{message}; {left_out}" if left_out else message)


def _add_found(h: Held, args: AddPathsArgs, found: Expansion) -> str:
    targets = [f.target for f in found.found]
    buffers = h.buffers(args.buffers).text
    before = {t: context.existing(h.store, h.chat.id, t, h.session.root) for t in targets}
    texts = {path: local.text for path, local in buffers.items()}
    added = context.add_many(
        h.store,
        h.chat.id,
        targets,
        readonly=args.readonly,
        base=h.session.root,
        texts=texts,
        skippable=[args.gathered or not f.named for f in found.found],
    )
    if isinstance(added, Problem):
        message = added.message
        for target in targets:  # absolute paths, as the user named them (one line)
            message = message.replace(target.path, h.shown(target.path))
        added = Problem(added.kind, message)
    done = unwrap(added)
    publish(h, buffers, [entry.path for entry in done.entries])
    chat = f"[global] {h.chat.name}" if h.chat.scope == "global" else h.chat.name
    pairs = [(before[t], entry) for t, entry in zip(done.kept, done.entries, strict=True)]
    if done.skipped:  # one line: what was skipped and what changed; the files up to date go
        pairs = [p for p in pairs if context.added_verb(*p) != "already up to date:"]
    said = f"nothing new in {chat}"
    if pairs:
        kept, entries = [p[0] for p in pairs], [p[1] for p in pairs]
        # Files added go to the chat; refreshed or up to date ones are in it already.
        to = "to" if any(was is None for was in kept) else "in"
        summary = context.added_summary(kept, entries, h.shown, kind=not done.skipped)
        said = f"{summary} {to} {chat}"
    skipped = context.skipped_summary(done.skipped, h.shown)
    # The chat's name ends the line: where an 80-column screen cuts it, why a file was
    # skipped is what stays.
    return f"{skipped}; {said}" if skipped else said


def add_part(h: Held, args: AddPartArgs) -> Said:
    """`:BB7Add diagnostics|diff|terminal ...`: the part read now, added (or read again)."""
    part = unwrap(live.parse(args.words))
    text = _read(h, part, args.editor)
    if isinstance(text, Problem | None):
        raise Abort(text or Problem("live", f"{part.name} cannot be read here"))
    before = h.store.entry(h.chat.id, part.name)
    entry = unwrap(context.add_part(h.store, h.chat.id, part.kind, part.name, text))
    publish(h, {}, [entry.path])
    tokens = format_tokens(estimate_tokens(text))
    verb = "added" if before is None else "read again:"
    return Said(f"{verb} {part.name} ({tokens} tokens, read again at each send) to {h.chat.name}")


def live_texts(h: Reading, editor: live.EditorState | None) -> tuple[dict[str, str], list[str]]:
    """Each live part of the chat read again now (`bb7.live.read_all`)."""
    entries = h.store.entries(h.chat.id)
    located, shown = _located(h, editor)
    return live.read_all(entries, editor, h.store.root, located, shown)


def _read(h: Reading, part: live.Named, editor: live.EditorState | None) -> str | Problem | None:
    located, shown = _located(h, editor)
    return live.read(part, editor, h.store.root, located, shown)


def _located(h: Reading, editor: live.EditorState | None) -> tuple[list[str], dict[str, str]]:
    """The chat's files as the editor names them (absolute), and how a part names a file."""
    files = [e.path for e in h.store.entries(h.chat.id) if e.facts.of_file]
    shown = {h.editor_path(path): path for path in files}
    for d in [] if editor is None else editor.diagnostics:
        shown.setdefault(d.path, h.shown(d.path))
    return list(shown), shown


def paste_image(h: Held, args: BuffersArgs) -> Said:
    """`:BB7PasteImage`: the system clipboard's image into the chat, named after the time
    (`clipboard-20261127-142501.png`); it has no file, so it never changes under the chat."""
    data = clipboard_image(os.environ)
    if isinstance(data, ClipboardProblem):
        raise Abort(Problem(data.kind, data.message))
    image = unwrap(_image(data))
    suffix = next(s for s, media in SUFFIXES.items() if media == image.media_type)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    names = (f"clipboard-{stamp}{'' if n == 1 else f'-{n}'}{suffix}" for n in range(1, 100))
    name = next(n for n in names if h.store.entry(h.chat.id, n, 0, 0) is None)
    unwrap(context.add_image(h.store, h.chat.id, name, data))
    publish(h, h.buffers(args.buffers).text, [name])
    return Said(f"added {name} ({format_tokens(image.tokens)} tokens) to {h.chat.name}")


def _image(data: bytes) -> Image | Problem:
    image = image_from_bytes(data, "the clipboard's image")
    return image if isinstance(image, Image) else Problem(image.kind, image.message)


def remove(h: Held, args: FileArgs) -> Said:
    """Drop a file, or a section (by its lines, or named `path:START-END`), from the chat."""
    target = context.Target(args.path, args.start_line, args.end_line)
    if not args.start_line:
        target = context.parse_target(args.path)
    entry = unwrap(context.remove(h.store, h.chat.id, target, base=h.session.root))
    publish(h, h.buffers(args.buffers).text, [entry.path])
    return Said(f"removed {entry.label()} from {h.chat.name}")


# A pending output in the way of an update: where to see it.
UPDATE = {"conflict": ":BB7Diff shows it"}


def update_file(h: Held, args: FileArgs) -> str:
    """Re-snapshot a file (or section) from its buffer or disk; returns its project path."""
    path, buffers = h.path(args.path), h.buffers(args.buffers).text
    with publishing(h, buffers, [path]):
        target = context.Target(path, args.start_line, args.end_line)
        updated = context.update(h.store, h.chat.id, target, buffers=buffers)
        return unwrap(advise(updated, UPDATE)).path


def update_all(h: Held, args: FileListArgs) -> Updated:
    buffers = h.buffers(args.buffers).text
    results = context.update_all(h.store, h.chat.id, buffers=buffers)
    publish(h, buffers)
    return Updated(
        updated=[path for path, got in results if isinstance(got, ContextEntry)],
        problems=[advise(got, UPDATE).message for _, got in results if isinstance(got, Problem)],
    )


def set_readonly(h: Held, args: SetReadonlyArgs) -> str:
    path, buffers = h.path(args.path), h.buffers(args.buffers).text
    with publishing(h, buffers, [path]):
        target = context.Target(path)
        return unwrap(context.set_readonly(h.store, h.chat.id, target, args.readonly)).path
