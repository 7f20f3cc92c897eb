"""What the chat view (`lua/bb7/chat/`) draws: a chat's whole view (`chat_view`), the files
panel alone (`file_list`) and the project files its picker offers (`project_files`). The view's
actions are the other modules' routes.

Outside any bb7 project, opening the view serves the global chats instead of refusing (files
join them read-only, as external context) and says once how to make a project."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import msgspec

from bb7.adding.project_files import project_files as list_files
from bb7.chatview import conversation, files
from bb7.host import editor
from bb7.host.handlers.chats import summary
from bb7.host.handlers.project import status_changed, verdicts_of
from bb7.host.needs import Call, Reading
from bb7.host.protocol import ChatView, ChatViewArgs, FileListArgs, NoArgs, ProjectFiles
from bb7.prompt.instructions import load_instructions
from bb7.state.status import StatusRow, file_statuses
from bb7.state.store import Store


def _panel(c: Call, store: Store, chat_id: str, rows: list[StatusRow]) -> files.Panel:
    paths = functools.partial(editor.editor_path, store)
    model_files = c.session.settings.context.instruction_files
    applied = load_instructions(store.root, None, model_files).applied
    verdicts = verdicts_of(c.session, store, chat_id)
    return files.panel(rows, paths, os.path.expanduser("~"), applied, verdicts)


GLOBAL_HINT = "a global chat: no bb7 project here (:BB7Init makes one)"


def chat_view(c: Call, args: ChatViewArgs) -> ChatView:
    """The active chat's view (`create`: held, a new one when there is none; read-only, its
    `held_by` set, while another bb7 holds it), or the chat `chat_id`'s. With `create` outside
    any project: a global chat, and a hint. `statuses`: the active chat's statuses too, from
    the panel's computation."""
    hint = GLOBAL_HINT if args.create and c.session.serve_global() else ""
    p = c.project()
    r: Reading | None = None
    if args.chat_id:
        store, chat = p.find(args.chat_id)
    else:
        r = p.held_or_read(create=True) if args.create else p.reading()
        store, chat = r.store, r.chat
    retry = bool(chat.retry_context)
    buffers = editor.editor_buffers(store, args.buffers).text
    rows = file_statuses(store, chat.id, buffers)
    messages = store.messages(chat.id)
    return ChatView(
        # The title's model is the one the chat's next send uses.
        chat=msgspec.structs.replace(summary(p.ws, chat), model=p.session.model(chat)),
        draft=chat.draft,
        retry=retry,
        conversation=conversation.render(
            messages,
            retry=retry,
            width=args.width,
            header=conversation.started_line(
                chat.created,
                conversation.started_with(messages, [e.label() for e in store.entries(chat.id)]),
            ),
        ),
        files=_panel(c, store, chat.id, rows),
        hint=hint,
        statuses=status_changed(r, rows, buffers) if args.statuses and r is not None else None,
        resend=conversation.ended_without_answer(messages),
    )


def file_list(r: Reading, args: FileListArgs) -> files.Panel:
    rows = file_statuses(r.store, r.chat.id, r.buffers(args.buffers).text)
    return _panel(r, r.store, r.chat.id, rows)


def project_files(c: Call, args: NoArgs) -> ProjectFiles:
    """The files under the editor's working directory (the project root when there is one),
    git-tracked first."""
    root = c.session.root or Path.cwd()
    return ProjectFiles(str(root), list_files(root))
