"""The project's chats: the active one (`active_chat`, `new_chat`, `set_model`), a chat with an
agent (`agent_chat`: its turns are `bb7.host.handlers.agent`'s), the chat list (switch, rename,
pin, delete, search, move between project and global), fork and edit from a message, drafts,
dismissing a retry state.

A change of the active chat publishes its files' statuses (signs, statusline).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bb7.chatview import info
from bb7.chatview.conversation import total_usage
from bb7.files.paths import tilde
from bb7.host.handlers.project import publish, publish_all
from bb7.host.needs import Call, Held, Project, Reading, held_elsewhere
from bb7.host.protocol import (
    AgentArgs,
    ChatIdArgs,
    ChatLost,
    ChatRestored,
    ChatSearchHit,
    ChatSummary,
    MessageArgs,
    MessageInfo,
    MoveChatArgs,
    NewChatArgs,
    NoArgs,
    PinChatArgs,
    RenameChatArgs,
    Said,
    SaveDraftArgs,
    SearchChatsArgs,
    SetModelArgs,
    TakeChatArgs,
)
from bb7.refusal import Abort, Problem, unwrap
from bb7.state import chats, history, lock
from bb7.state.records import Chat
from bb7.state.store import Store
from bb7.state.workspace import Workspace
from bb7.text.words import plural

if TYPE_CHECKING:
    from bb7.agent.agents import AgentSpec


def summary(ws: Workspace, chat: Chat) -> ChatSummary:
    active = ws.active()
    store = ws.store(chat.scope)
    return ChatSummary(
        id=chat.id,
        name=chat.name,
        scope=chat.scope,
        pinned=chat.pinned,
        updated=chat.updated,
        model=chat.model,
        active=active is not None and active[1].id == chat.id,
        held_by="" if isinstance(store, Problem) else held_elsewhere(store, chat),
        effort=chat.reasoning_effort,
        agent=chat.agent,
    )


def activate(p: Project, store: Store, chat: Chat) -> ChatSummary:
    """Make `chat` the active one, held by this host (or read-only, `held_by`, while another
    bb7 holds it), and show its files' statuses."""
    p.ws.set_active(store, chat.id)
    p.held_or_read()
    publish_all(p)
    return summary(p.ws, chat)


def take_chat(p: Project, args: TakeChatArgs) -> ChatSummary:
    """`:BB7Chat!`: hold the active chat (a new one when there is none). A chat whose holder is
    gone is taken; one another live bb7 holds is taken only with `force`, else it comes back
    with `held_by` (the editor asks first)."""
    found = p.ws.active()
    if found is not None:
        store, chat = found
        if args.force:
            lock.force_unlock(store, chat.id)
        elif held_elsewhere(store, chat):
            return summary(p.ws, chat)
    h = p.held(create=True)
    publish_all(h)
    return summary(p.ws, h.chat)


def lease_lost(c: Call, chat_id: str) -> None:
    """Another bb7 took over the chat this host held (its sends here have ended): the editor
    shows it read-only, saying who has it now (not when it was only unlocked: the next
    request takes it again)."""
    ws = c.session.workspace
    found = None if ws is None else ws.find(chat_id)
    if found is None or isinstance(found, Problem):
        return
    store, chat = found
    by = held_elsewhere(store, chat)
    if by:
        c.emit("chat_lost", ChatLost(chat.id, chat.name, by))


def active_chat(h: Held, args: NoArgs) -> Chat:
    """The active chat (a new one when there is none), held by this host."""
    return h.chat


def new_chat(p: Project, args: NewChatArgs) -> Said:
    found = p.ws.active() if args.same_context else None
    if found is None:
        h = p.new_chat(args.name)
        publish(h, {})
        return Said(f"new chat: {h.chat.name}")
    store, source = found
    chat = unwrap(history.reuse_context(store, source.id))
    if args.name:
        chat = unwrap(chats.rename_chat(store, chat.id, args.name))
    activate(p, store, chat)
    files = plural(len(store.entries(chat.id)), "file")
    return Said(f"new chat with the same context ({files}): {chat.name}")


def set_model(h: Held, args: SetModelArgs) -> Said:
    effort = h.chat.reasoning_effort
    unwrap(chats.save_settings(h.store, h.chat.id, model=args.model, reasoning_effort=effort))
    return Said(f"model of {h.chat.name}: {args.model}")


def chat_list(p: Project, args: NoArgs) -> list[ChatSummary]:
    """Every chat, pinned first, then the most recently used."""
    return [summary(p.ws, chat) for chat in chats.list_chats(p.ws.stores())]


def switch_chat(p: Project, args: ChatIdArgs) -> ChatSummary:
    return activate(p, *p.find(args.chat_id))


def rename_chat(p: Project, args: RenameChatArgs) -> ChatSummary:
    store, chat = p.find(args.chat_id)
    return summary(p.ws, unwrap(chats.rename_chat(store, chat.id, args.name)))


def pin_chat(p: Project, args: PinChatArgs) -> ChatSummary:
    store, chat = p.find(args.chat_id)
    return summary(p.ws, unwrap(chats.set_pinned(store, chat.id, args.pinned)))


def delete_chat(p: Project, args: ChatIdArgs) -> ChatSummary | None:
    """Delete a chat; when it was the active one, the most recent other chat becomes active
    (returned), or none."""
    store, chat = p.find(args.chat_id)
    active = p.ws.active()
    unwrap(chats.delete_chat(store, chat.id))
    if active is not None and active[1].id != chat.id:
        return summary(p.ws, active[1])
    rest = chats.list_chats(p.ws.stores())
    if not rest:
        p.ws.set_active(p.ws.home(), None)
        publish_all(p)
        return None
    return activate(p, *p.find(rest[0].id))


def search_chats(p: Project, args: SearchChatsArgs) -> list[ChatSearchHit]:
    return [
        ChatSearchHit(summary(p.ws, hit.chat), hit.match, hit.excerpt)
        for hit in chats.search_chats(p.ws.stores(), args.query)
    ]


def _restore(
    h: Held, args: MessageArgs, restore: Callable[..., history.Restored | Problem]
) -> ChatRestored:
    """Fork or edit from a user message of the active chat; the chat it leaves active (the
    fork, or the cut chat) shows its files' statuses."""
    buffers = h.buffers(args.buffers).text
    restored = unwrap(restore(h.store, h.chat.id, args.message_id, buffers=buffers))
    activate(h, h.store, restored.chat)
    return ChatRestored(
        chat_id=restored.chat.id,
        draft=restored.draft,
        # One short line each (the conversation shows the warning too).
        warnings=[
            f"{w.path}: {w.issue} since that message; the chat has it as it was"
            for w in restored.warnings
        ],
    )


def fork_chat(h: Held, args: MessageArgs) -> ChatRestored:
    """A new chat with the history before a user message of the active chat, made active."""
    return _restore(h, args, history.fork_chat)


def edit_message(h: Held, args: MessageArgs) -> ChatRestored:
    """Cut the active chat before a user message; its text becomes the draft."""
    return _restore(h, args, history.edit_message)


def message_info(r: Reading, args: MessageArgs) -> MessageInfo:
    """What `K` shows about a message of the active chat."""
    return MessageInfo(unwrap(info.message_info(r.store.messages(r.chat.id), args.message_id)))


def chat_info(r: Reading, args: NoArgs) -> MessageInfo:
    """What `K` shows on the active chat's first line: the chat, its project, files, model."""
    chat = r.chat
    root = r.store.root if r.store.root is not None else r.session.root
    where = "none (a global chat)" if r.store.root is None else tilde(str(root))
    return MessageInfo(
        info.chat_info(
            chat.name,
            chat.id,
            where,
            chat.created,
            len(r.store.entries(chat.id)),
            r.session.model(chat),
            chat.reasoning_effort,
            total_usage(r.store.messages(chat.id)),
        )
    )


def save_draft(p: Project, args: SaveDraftArgs) -> None:
    store, chat = p.find(args.chat_id)
    if chat.draft != args.draft and not held_elsewhere(store, chat):
        unwrap(chats.save_draft(store, chat.id, args.draft))


def move_chat(p: Project, args: MoveChatArgs) -> ChatSummary:
    """Move a chat between the project's store and the global one (the core says what may
    not move: pending outputs, files a global chat cannot keep)."""
    source, chat = p.find(args.chat_id)
    target = unwrap(p.ws.store(args.scope))
    if target is source:
        return summary(p.ws, chat)
    active = p.ws.active()
    was_active = active is not None and active[1].id == chat.id
    root = p.ws.root if p.ws.root is not None else p.session.root
    if root is None:
        raise Abort(Problem("not_initialized", "a chat moves to a project from inside one"))
    moved = unwrap(history.move_chat(source, target, chat.id, root))
    if was_active:
        activate(p, target, moved)
    return summary(p.ws, moved)


def dismiss_retry(h: Held, args: NoArgs) -> Said:
    """Drop the chat's retry state: the failed edits' errors do not go with the next send."""
    if not h.chat.retry_context:
        return Said("no failed edits to dismiss")
    with h.store.transaction():
        h.store.set_retry(h.chat.id, "", [])
    return Said("the failed edits are dismissed; the next message goes without them")


def _agent(p: Project, name: str) -> AgentSpec:
    """The agent `name` names (the first found when ''), refused when its program is not
    found."""
    from bb7.agent.agents import found, resolve  # the host's start does not pay for agents

    commands = p.session.settings.agents.commands
    spec = unwrap(resolve(name or None, commands or None))
    if not found(spec.cmd):
        unwrap(
            Problem(
                "no_agent",
                f"{spec.name}: {spec.cmd[0]} not found; install it or set agents.{spec.name}.cmd",
            )
        )
    return spec


def agent_chat(p: Project, args: AgentArgs) -> Said:
    """`:BB7Agent [NAME]`: the active chat when it is that agent's (any agent's without a
    NAME), else a new chat with the agent, made active and held; the view shows it."""
    active = p.ws.active()
    if active is not None and active[1].agent and args.name in ("", active[1].agent):
        h = p.hold(*active)
        return Said(f"{h.chat.agent}: {h.chat.name}")
    spec = _agent(p, args.name)
    store = p.ws.home()
    if store.root is None:
        unwrap(Problem("global", "an agent works in a project: :BB7Init starts one here"))
    chat = chats.new_chat(store, agent=spec.name)
    p.ws.set_active(store, chat.id)
    p.hold(store, chat)
    return Said(f"{spec.name}: a new agent chat; write below, it edits through bb7")
