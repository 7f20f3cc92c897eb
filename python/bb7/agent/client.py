"""An ACP client over one agent process: initialize, one session, prompt turns, cancel.

`AgentClient.connect` starts the agent (`bb7.agent.rpc`), offers `fs.readTextFile` and
`fs.writeTextFile` (never a terminal: bb7 runs no command of its own), checks the protocol
version the agent answers with and opens a session in the project. `prompt` sends one turn and
blocks until the agent answers it; meanwhile the agent's updates and requests go to a
`Handler` (the turn, `bb7.agent.session`), and a file write outside a turn is refused. Every
way a connection fails is one line (`Failure`): no such command, no answer to `initialize`
within `INIT_TIMEOUT`, a protocol version other than bb7's, an agent that refuses or dies, a
message bb7 cannot read. Blocking calls run in a worker thread, never on the editor's loop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

import msgspec

from bb7 import __version__
from bb7.agent import schema as acp
from bb7.agent.rpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Call,
    Failure,
    Peer,
    Responder,
    RpcError,
)
from bb7.refusal import Problem

log = logging.getLogger(__name__)

T = TypeVar("T")

# Seconds an agent has to answer `initialize` (a real one starts in a few: OpenCode ~3 s).
INIT_TIMEOUT = 30.0
# Seconds for `session/new` (an agent may connect to its servers first).
SESSION_TIMEOUT = 60.0

# ACP's "authentication required".
AUTH_REQUIRED = -32000
# What an agent's write after its turn ended is answered with.
TURN_OVER = "the turn has ended: bb7 takes an agent's writes during its turns"


class Handler(Protocol):
    """What a turn does with what the agent sends; called on the connection's reader thread,
    one message at a time, in order (a slow handler holds the next messages back)."""

    def update(self, kind: str, update: msgspec.Struct) -> None: ...

    def read(self, request: acp.ReadTextFileRequest) -> str | Problem: ...

    def write(self, request: acp.WriteTextFileRequest) -> Problem | None: ...

    def permission(
        self, request: acp.RequestPermissionRequest, answer: Callable[[str | None], None]
    ) -> None:
        """Answer with `answer(option_id)` now or later, from any thread; None: cancelled."""

    def closed(self, failure: Failure) -> None:
        """The connection ended (`failure` says why); a turn waiting ends with it."""


class AgentClient:
    """One agent process with one session in `root`."""

    def __init__(
        self,
        argv: Sequence[str],
        root: Path,
        handler: Handler,
        *,
        env: Mapping[str, str] | None = None,
        init_timeout: float = INIT_TIMEOUT,
    ) -> None:
        self.root = root
        self.handler = handler
        self.init_timeout = init_timeout
        self.peer = Peer(
            argv,
            cwd=root,
            env=env,
            on_request=self._request,
            on_notification=self._notification,
            on_closed=handler.closed,
        )
        self.session_id = ""
        self.agent_title = self.peer.name
        self._asking: dict[int, Responder] = {}
        self._asking_lock = threading.Lock()
        self._next_ask = 0
        self._prompt: Call | None = None

    @property
    def connected(self) -> bool:
        return bool(self.session_id) and self.peer.failure is None

    def connect(self) -> Failure | None:
        """Start the agent and open a session; a failure stops it."""
        failed = self.peer.start()
        if failed is not None:
            return failed
        hello = acp.InitializeRequest(
            protocol_version=acp.PROTOCOL_VERSION,
            client_capabilities=acp.ClientCapabilities(
                fs=acp.FileSystemCapability(read_text_file=True, write_text_file=True)
            ),
            client_info=acp.Implementation(name="bb7", version=__version__),
        )
        name = self.peer.name
        answer = self.peer.request("initialize", hello).wait(self.init_timeout)
        if isinstance(answer, Failure) and answer.kind == "timeout":
            return self._give_up(
                Failure(
                    "timeout",
                    f"{name} did not answer initialize within {self.init_timeout:g} s; "
                    "bb7 stopped it",
                )
            )
        init = _decoded(answer, acp.InitializeResponse, name, "initialize")
        if isinstance(init, Failure):
            return self._give_up(init)
        if init.protocol_version != acp.PROTOCOL_VERSION:
            return self._give_up(
                Failure(
                    "version",
                    f"{name} speaks ACP version {init.protocol_version}; bb7 speaks version "
                    f"{acp.PROTOCOL_VERSION}",
                )
            )
        if init.agent_info is not None:
            self.agent_title = init.agent_info.title or init.agent_info.name or name
        opened = self.peer.request(
            "session/new", acp.NewSessionRequest(cwd=str(self.root), mcp_servers=[])
        )
        session = _decoded(
            opened.wait(SESSION_TIMEOUT), acp.NewSessionResponse, name, "session/new"
        )
        if isinstance(session, Failure):
            return self._give_up(session)
        self.session_id = session.session_id
        return None

    def _give_up(self, failure: Failure) -> Failure:
        self.peer.close()
        return failure

    def prompt(self, text: str) -> acp.PromptResponse | Failure:
        """One turn: blocks until the agent answers (or the connection ends)."""
        request = acp.PromptRequest(session_id=self.session_id, prompt=[acp.TextContent(text=text)])
        # Known before it is sent: the agent may write (and answer) before `request` returns.
        self._prompt = Call("session/prompt")
        try:
            answer = self.peer.request("session/prompt", request, self._prompt).wait()
        finally:
            self._prompt = None
        return _decoded(answer, acp.PromptResponse, self.peer.name, "session/prompt")

    def cancel(self) -> None:
        """`session/cancel`; every permission question still open is answered `cancelled`,
        as the protocol asks. The turn ends when the agent answers its prompt."""
        if self.session_id:
            self.peer.notify("session/cancel", acp.CancelNotification(session_id=self.session_id))
        with self._asking_lock:
            open_, self._asking = list(self._asking.values()), {}
        for responder in open_:
            responder.reply(acp.RequestPermissionResponse(outcome=acp.CancelledOutcome()))

    def close(self) -> None:
        self.peer.close()

    # -- what the agent sends ---------------------------------------------------------------

    def _notification(self, method: str, params: msgspec.Raw) -> None:
        if method != "session/update":
            return  # nothing else of the protocol's notifications is for a client like bb7
        try:
            _, kind, update = acp.update_of(params)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            log.warning("an update bb7 cannot read: %s", exc)
            return
        if update is not None:
            self.handler.update(kind, update)

    def _request(self, method: str, params: msgspec.Raw, responder: Responder) -> None:
        try:
            if method == "fs/read_text_file":
                read = msgspec.json.decode(params, type=acp.ReadTextFileRequest)
                text = self.handler.read(read)
                if isinstance(text, Problem):
                    responder.error(INVALID_PARAMS, text.message)
                else:
                    responder.reply(acp.ReadTextFileResponse(content=text))
            elif method == "fs/write_text_file":
                write = msgspec.json.decode(params, type=acp.WriteTextFileRequest)
                prompt = self._prompt
                if prompt is None or prompt.settled:
                    # The agent's messages are read in order, on this thread: a write sent
                    # before its answer to the prompt is taken before that answer ends the
                    # turn. One after it would be pending with no turn to record or show it.
                    log.warning("%s wrote %s after its turn: refused", self.peer.name, write.path)
                    responder.error(INVALID_PARAMS, TURN_OVER)
                    return
                refused = self.handler.write(write)
                if refused is not None:
                    responder.error(INVALID_PARAMS, refused.message)
                else:
                    responder.reply({})
            elif method == "session/request_permission":
                asked = msgspec.json.decode(params, type=acp.RequestPermissionRequest)
                self._ask(asked, responder)
            else:
                responder.error(METHOD_NOT_FOUND, f"bb7 does not offer {method}")
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            responder.error(INVALID_PARAMS, f"bb7 cannot read this {method}: {exc}")

    def _ask(self, asked: acp.RequestPermissionRequest, responder: Responder) -> None:
        with self._asking_lock:
            self._next_ask += 1
            number = self._next_ask
            self._asking[number] = responder

        def answer(option_id: str | None) -> None:
            with self._asking_lock:
                if self._asking.pop(number, None) is None:
                    return  # answered already (cancelled meanwhile)
            outcome: acp.SelectedOutcome | acp.CancelledOutcome = (
                acp.CancelledOutcome()
                if option_id is None
                else acp.SelectedOutcome(option_id=option_id)
            )
            responder.reply(acp.RequestPermissionResponse(outcome=outcome))

        self.handler.permission(asked, answer)


def _decoded(
    answer: msgspec.Raw | RpcError | Failure, kind: type[T], name: str, method: str
) -> T | Failure:
    """A reply as `kind`, or the one line saying why there is none."""
    if isinstance(answer, Failure):
        return answer
    if isinstance(answer, RpcError):
        if answer.code == AUTH_REQUIRED:
            return Failure(
                "refused", f"{name} needs you to log in first (run it once in a terminal)"
            )
        return Failure("refused", f"{name} refused {method}: {answer.message}")
    try:
        return msgspec.json.decode(answer, type=kind)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        return Failure("malformed", f"{name} answered {method} with something else ({exc})")
