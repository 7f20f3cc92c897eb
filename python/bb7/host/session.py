"""What the host keeps between requests: the project it serves, the lease on the chat it
holds, the options from `setup()`, what the editor last saw, and the running sends.

Only bookkeeping around the state layer (`bb7.state`): opening the workspace of Neovim's working
directory, taking and renewing a chat's lease. Which chat a request works on is
`bb7.host.needs`'s question, turning the editor's paths and buffers into the core's
`bb7.host.editor`'s; decisions stay in the core.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bb7.checks import CHECKS_FILE
from bb7.host.protocol import Settings
from bb7.prompt import DEFAULT_MODEL
from bb7.refusal import Problem
from bb7.state import lock
from bb7.state.local import LocalView
from bb7.state.records import Chat
from bb7.state.store import STATE_DIR, Store, StoreError, init_project, project_db_path
from bb7.state.workspace import Workspace, open_workspace

if TYPE_CHECKING:  # the send loop, the agents and the checks are imported on first use
    from bb7.agent.session import AgentSession
    from bb7.host.handlers.checks import CheckJob
    from bb7.provider.handle import Handle

logger = logging.getLogger(__name__)


def find_root(start: Path) -> Path:
    """The nearest directory at or above `start` with bb7 state, else `start` itself."""
    for directory in (start, *start.parents):
        if project_db_path(directory).exists():
            return directory
    return start


class Session:
    """The host's project and held chat. Used on pynvim's loop thread only, except the lease
    keeper's own thread (which has its own database connection)."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self.workspace: Workspace | None = None
        self.unusable: Problem | None = None  # why the project's database cannot be opened
        self.settings = Settings()
        # Runs a function on the loop thread soon (the host's `ctx.post`): the lease keeper's
        # thread reports a lost lease through it.
        self.post: Callable[..., None] | None = None
        # Called with the chat's id on the loop thread once another process took the held chat
        # over (or it was unlocked), after `lost` ended what ran in it here.
        self.on_lease_lost: Callable[[str], None] | None = None
        self._keeper: lock.LeaseKeeper | None = None
        # Per project path: the local text the last status shown was computed from. Apply
        # hands it back to the core, which refuses if the file changed since.
        self.seen: dict[str, LocalView] = {}
        # Running sends and agent turns by request id (`cancel` finds them here).
        self.sends: dict[str, Handle[Any]] = {}
        # The agent of each agent chat that had a turn (its process runs until the host exits).
        self.agents: dict[str, AgentSession] = {}
        self._lost: list[tuple[Store, str]] = []  # see `lost`
        # The project's checks running on a pending change (one run at a time).
        self.checking: CheckJob | None = None
        self._recovered: list[str] = []

    # -- the project ---------------------------------------------------------------------------

    def open(self, root: Path, settings: Settings) -> None:
        """Serve the project at or above `root` (a directory without `.bb7/` is served once
        `:BB7Init` creates it)."""
        self.settings = settings
        found = find_root(root.resolve())
        if found == self.root and self.workspace is not None:
            return
        self.close()
        self.root = found
        self.unusable = None
        try:
            opened = open_workspace(found)
        except (StoreError, sqlite3.DatabaseError) as exc:
            logger.exception("cannot open the project state of %s", found)
            # A StoreError is already the one line the CLI prints too.
            self.unusable = Problem(
                "unusable_state",
                str(exc)
                if isinstance(exc, StoreError)
                else f"{project_db_path(found)} cannot be used ({exc}); move it away and run "
                ":BB7Init for a fresh one",
            )
            opened = self.unusable
        self.workspace = None if isinstance(opened, Problem) else opened
        self._recovered = [] if self.workspace is None else self.workspace.recovered
        logger.info("project %s (%s)", found, "initialised" if self.workspace else "no .bb7")

    def take_recovered(self) -> list[str]:
        """What the last open settled of a killed bb7 (`bb7.state.recovery`), handed out once."""
        taken, self._recovered = self._recovered, []
        return taken

    def init(self, root: Path) -> Path:
        """Create `.bb7/` in `root` (safe when it exists) and serve it."""
        init_project(root).close()
        self.root = None  # force a reopen
        self.open(root, self.settings)
        return root / STATE_DIR

    def serve_global(self) -> bool:
        """Outside any bb7 project, serve the global chats (until the next project is
        opened). False when there is a project, or its state is unusable."""
        if self.workspace is not None or self.unusable is not None:
            return False
        self.workspace = Workspace(None, None)
        logger.info("no project in %s: serving the global chats", self.root)
        return True

    def project(self) -> Workspace | Problem:
        if self.unusable is not None:
            return self.unusable
        if self.workspace is None:
            where = self.root or Path.cwd()
            return Problem(
                "not_initialized",
                f"no bb7 project in {where}: run :BB7Init there to start one",
            )
        return self.workspace

    # -- the chat's lease -----------------------------------------------------------------------

    def hold(self, store: Store, chat: Chat) -> Problem | None:
        """Hold `chat` for this host (a lease, renewed in the background), giving up the one
        held before; refused when another bb7 holds it."""
        self.settle()
        keeper = self._keeper
        held = keeper is not None and keeper.chat_id == chat.id and keeper.store is store
        # The keeper looks twice a second: a takeover since is read from the lease row, so
        # this host never acts on a chat another one holds now.
        if held and keeper is not None:
            if not keeper.lost and lock.still_ours(store, keeper.lease):
                return None
            self.lost(keeper)
        self._release()
        kept = lock.keep(store, chat.id, on_lost=self._keeper_lost)
        if isinstance(kept, Problem):
            return kept
        self._keeper = kept
        return None

    def _keeper_lost(self, problem: Problem) -> None:
        """From a keeper's thread: its lease was lost (it is marked `lost`)."""
        if self.post is not None:
            self.post(self._check_lost)

    def _check_lost(self) -> None:
        if self._keeper is not None and self._keeper.lost:
            self.lost(self._keeper)

    def lost(self, keeper: lock.LeaseKeeper) -> None:
        """Another bb7 took the chat of `keeper` over: the sends running here end (the host
        stays), the chat is no longer held, and `on_lease_lost` is told. Loop thread only;
        nothing when `keeper` no longer holds this host's chat."""
        if keeper is not self._keeper:
            return
        keeper.lost = True
        keeper.stop()
        self._keeper = None
        self.seen.clear()
        for handle in self.sends.values():
            handle.cancel()
        # The lost lease's token stays in the store's `held` while a cancelled send may still
        # store its end: the store refuses that write instead of adding to the other's chat.
        self._lost.append((keeper.store, keeper.chat_id))
        self.settle()
        if self.on_lease_lost is not None:
            self.on_lease_lost(keeper.chat_id)

    def settle(self) -> None:
        """Forget the tokens of lost leases once no send runs that could write under them."""
        if any(not h.finished for h in self.sends.values()):
            return
        for store, chat_id in self._lost:
            store.held.pop(chat_id, None)
        self._lost.clear()

    def send_ended(self, request_id: str) -> None:
        self.sends.pop(request_id, None)
        self.settle()

    def _release(self) -> None:
        if self._keeper is not None:
            self._keeper.release()
            self._keeper = None
        self.seen.clear()

    def close(self) -> None:
        """Give the chat up and close the databases (host exit, another project), ending the
        checks that run. A send still running keeps its database open until it ends (its
        connection closes with it)."""
        self.cancel_checks()
        self._release()
        for agent in self.agents.values():
            agent.close()
        self.agents.clear()
        if self.workspace is not None and not any(not h.finished for h in self.sends.values()):
            self.workspace.close()
        self.workspace = None

    def cancel_checks(self) -> None:
        """Stop the checks running on the pending change: a new answer, an apply or a discard
        changes what they check."""
        job, self.checking = self.checking, None
        if job is not None:
            job.cancel.cancel()

    def checks_declared(self) -> bool:
        """Whether the project has checks (its file, or `setup()`'s), so statuses carry the
        checks' verdicts (a stat; the checks are read when they run)."""
        if self.root is None:
            return False
        return bool(self.settings.checks.checks) or (self.root / CHECKS_FILE).is_file()

    def model(self, chat: Chat | None, override: str | None = None) -> str:
        """The model a request uses: this send's, else the chat's, else the option, else
        bb7's."""
        chat_model = chat.model if chat is not None else ""
        return override or chat_model or self.settings.provider.model or DEFAULT_MODEL
