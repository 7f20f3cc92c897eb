"""What the chat view (`lua/bb7/chat/`) draws: a chat's whole view (`chat_view`) and the files
panel alone (`file_list`). The view's actions are the other modules' routes."""

from __future__ import annotations

import functools
import os

import msgspec

from bb7.chatview import conversation, files
from bb7.host import editor
from bb7.host.handlers.chats import summary
from bb7.host.needs import Project, Reading
from bb7.host.protocol import ChatView, ChatViewArgs, FileListArgs
from bb7.state.local import Buffers
from bb7.state.status import file_statuses
from bb7.state.store import Store


def _panel(store: Store, chat_id: str, buffers: Buffers) -> files.Panel:
    rows = file_statuses(store, chat_id, buffers)
    paths = functools.partial(editor.editor_path, store)
    return files.panel(rows, paths, os.path.expanduser("~"))


def chat_view(p: Project, args: ChatViewArgs) -> ChatView:
    """The active chat's view (`create`: held, a new one when there is none), or the chat
    `chat_id`'s."""
    if args.chat_id:
        store, chat = p.find(args.chat_id)
    else:
        r = p.held(create=True) if args.create else p.reading()
        store, chat = r.store, r.chat
    retry = bool(chat.retry_context)
    buffers = editor.editor_buffers(store, args.buffers).text
    return ChatView(
        # The title's model is the one the chat's next send uses.
        chat=msgspec.structs.replace(summary(p.ws, chat), model=p.session.model(chat)),
        draft=chat.draft,
        retry=retry,
        conversation=conversation.render(store.messages(chat.id), retry=retry),
        files=_panel(store, chat.id, buffers),
    )


def file_list(r: Reading, args: FileListArgs) -> files.Panel:
    return _panel(r.store, r.chat.id, r.buffers(args.buffers).text)
